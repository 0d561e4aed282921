#include "sim/cli/cli_args.h"

#include <CLI/CLI.hpp>

#include "broker_model/core/compatibility_strategy.h"
#include "sim/cli/compat_internal.h"
#include "sim/scenario/did_you_mean.h"

namespace cnx::sim {
namespace {

/// How often an option may be given.
enum class Repeat {
    Last,  // the last one counts (run's options, as scripts pass them twice)
    Once,  // a second one is an error ("given twice"), and the value may not be empty
    Each,  // repeatable, every value kept in order (serve --set, --fault)
    Many,  // one or more values after one option, repeatable (compat --existing A B C)
};

/// One option of a command: adding an option is one line of this table.
struct OptionSpec {
    std::string name;                  // "--seed"
    bool takesValue = false;
    std::vector<std::string> choices;  // known values, for completion ("fifo", "random")
    bool path = false;                 // the value is a file (completion offers files)
    std::string shortName{};           // "-q" beside "--quiet"
    Repeat repeat = Repeat::Last;
};

struct CommandSpec {
    std::string name;
    std::string summary;
    bool pathArgs = false;  // positional arguments are files or folders
    std::vector<OptionSpec> options;
    bool typed = false;     // compat, serve, record: the command reads the Args itself
};

OptionSpec flag(std::string name) { return {std::move(name), false, {}, false}; }
OptionSpec value(std::string name) { return {std::move(name), true, {}, false}; }
OptionSpec file(std::string name) { return {std::move(name), true, {}, true}; }
OptionSpec shortFlag(std::string shortName, std::string name) { return {std::move(name), false, {}, false, std::move(shortName)}; }
OptionSpec oneOf(std::string name, std::vector<std::string> choices) {
    return {std::move(name), true, std::move(choices), false};
}
OptionSpec once(OptionSpec o) {
    o.repeat = Repeat::Once;
    return o;
}
OptionSpec each(OptionSpec o) {
    o.repeat = Repeat::Each;
    return o;
}
OptionSpec many(OptionSpec o) {
    o.repeat = Repeat::Many;
    return o;
}
OptionSpec withShort(std::string shortName, OptionSpec o) {
    o.shortName = std::move(shortName);
    return o;
}

/// The strategies `compat --strategy` takes: every one but UNDEFINED (§5.3).
std::vector<std::string> strategyChoices() {
    std::vector<std::string> names;
    for (auto n : compatibilityStrategyNames())
        if (n != "UNDEFINED") names.emplace_back(n);
    return names;
}

const std::vector<CommandSpec>& commandTable() {
    static const std::vector<CommandSpec> table{
        {"run", "replay scenarios", true,
         {value("--tags"), value("--exclude-tags"), file("--junit"), file("--report"), file("--json"), value("--seed"),
          oneOf("--schedule", {"fifo", "random"}), value("--shard"), value("--version"), value("--max-interleavings"),
          value("--max-explore-time"), value("--jobs"), oneOf("--shard-by", {"runs", "interleavings"}), flag("--accept"), flag("--strict"), flag("--explore-all"),
          shortFlag("-q", "--quiet"), value("--against"), value("--admin"), value("--timeout"), value("--explore"),
          withShort("-o", file("--output")), flag("--no-fast-paths")}},
        {"explain", "print the decision trace of every step of FILE", true,
         {value("--version"), value("--step"), flag("--no-fast-paths")}},
        {"lint", "check scenario files without running them", true, {flag("--no-fast-paths")}},
        {"profiles", "list the broker behaviour profiles", false, {value("--diff"), flag("--gaps")}},
        {"compat", "check one schema against existing ones, as the broker would", false,
         {once(oneOf("--strategy", strategyChoices())), many(file("--existing")), once(file("--new")),
          once(oneOf("--avro", compat_cli::avroVersionNames())), once(value("--broker-version")),
          once(value("--root-message")),
          once(value("--root-file"))},
         true},
        {"serve", "serve the model on Pulsar's binary protocol and admin API", false,
         {once(value("--broker-version")), once(file("--config")), each(value("--set")), once(file("--setup")),
          each(value("--fault")), once(value("--bind")), once(value("--port")), once(value("--admin-port")),
          once(value("--tls-port")), once(value("--admin-tls-port")),
          once(file("--trace")), once(value("--keepalive-seconds")), once(value("--max-queued-bytes")),
          once(value("--max-incomplete-bytes")), once(value("--max-log-bytes")), once(file("--record"))},
         true},
        {"record", "record a real broker's session as a scenario", false,
         {once(value("--upstream")), withShort("-o", once(file("--output"))), once(value("--listen")),
          once(value("--admin-upstream")), once(value("--admin-listen")), once(value("--broker-version"))},
         true},
    };
    return table;
}

const CommandSpec* specOf(const std::string& command) {
    for (const auto& c : commandTable())
        if (c.name == command) return &c;
    return nullptr;
}

/// The CLI11 app of one command, writing into `out`. Help and verbosity are the
/// same on every command: -h/--help, -v/-vv/-vvv/--verbose.
struct CommandApp {
    CLI::App app;
    std::map<std::string, std::string> values;
    std::map<std::string, bool> flags;
    std::vector<std::string> positional;
    int verbosity = 0;
    bool help = false;

    std::map<std::string, std::vector<std::string>> lists;

    explicit CommandApp(const CommandSpec& spec) : app(spec.summary, spec.name) {
        app.set_help_flag();
        app.allow_extras();
        app.add_flag("-h,--help", help);
        app.add_flag("-v,--verbose", verbosity, "diagnostics on stderr (-vv: debug)");
        for (const auto& o : spec.options) {
            std::string names = o.shortName.empty() ? o.name : o.shortName + "," + o.name;
            if (!o.takesValue) {
                app.add_flag(names, flags[o.name])->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
                continue;
            }
            CLI::Option* opt = nullptr;
            if (o.repeat == Repeat::Last) {
                opt = app.add_option(names, values[o.name])->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
            } else {
                // Every value is kept, so "given twice" can be told from "given once".
                opt = app.add_option(names, lists[o.name])->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
                if (o.repeat == Repeat::Many)
                    opt->expected(1, CLI::detail::expected_max_vector_size);
                else
                    opt->expected(1)->allow_extra_args(false);
            }
            if (!o.choices.empty()) opt->description("one of: " + CLI::detail::join(o.choices, ", "));
        }
        app.add_option("args", positional);
    }
};

std::vector<std::string> optionNames(const CommandSpec& spec) {
    std::vector<std::string> names = optionsOf(spec.name);
    if (spec.name == "run") names.push_back("--accept=all");
    names.push_back("--help");
    names.push_back("--verbose");
    return names;
}

}  // namespace

bool parsedCommand(const std::string& command) {
    const CommandSpec* spec = specOf(command);
    return spec && !spec->typed;
}

std::vector<std::string> optionsOf(const std::string& command) {
    std::vector<std::string> names;
    if (const CommandSpec* spec = specOf(command))
        for (const auto& o : spec->options) names.push_back(o.name);
    return names;
}

const std::vector<std::string>& commandNames() {
    static const std::vector<std::string> names{"run",   "explain", "lint",       "profiles", "compat",
                                                "serve", "record",  "schema", "completion", "help"};
    return names;
}

std::optional<std::string> parseArgs(const std::string& command, const std::vector<std::string>& in, Args& out) {
    const CommandSpec* spec = specOf(command);
    if (!spec) return "unknown command '" + command + "'";
    CommandApp c(*spec);
    // `--accept=all` is a flag of its own, not --accept with a value.
    std::vector<std::string> rest;
    for (const auto& a : in) {
        if (command == "run" && a == "--accept=all")
            out.options["--accept=all"] = "";
        else
            rest.push_back(a);
    }
    std::vector<std::string> reversed(rest.rbegin(), rest.rend());  // CLI11 parses a vector back to front
    try {
        c.app.parse(reversed);
    } catch (const CLI::ArgumentMismatch&) {
        if (!rest.empty() && rest.back().starts_with("-"))
            return "option " + rest.back().substr(0, rest.back().find('=')) + " needs a value";
        return "an option needs a value";
    } catch (const CLI::ParseError& e) {
        return std::string(e.what());
    }
    for (const auto& a : c.app.remaining()) {
        if (a.starts_with("--")) {
            std::string name = a.substr(0, a.find('='));
            auto hint = closestMatch(name, optionNames(*spec));
            return "unknown option '" + a + "' for 'cnxsim " + command + "'" +
                   (hint ? " (did you mean '" + *hint + "'?)" : "");
        }
        if (a.starts_with("-") && a.size() > 1) return "unknown option '" + a + "' for 'cnxsim " + command + "'";
        c.positional.push_back(a);
    }
    for (const auto& o : spec->options) {
        if (!o.takesValue) {
            if (c.flags[o.name]) out.options[o.name] = "";
            continue;
        }
        if (o.repeat == Repeat::Last) {
            if (c.app.count(o.name)) out.options[o.name] = c.values[o.name];
            continue;
        }
        const auto& all = c.lists[o.name];
        if (all.empty()) continue;
        if (o.repeat == Repeat::Once && all.size() > 1) return "option " + o.name + " is given twice";
        for (const auto& v : all)
            if (v.empty()) return "option " + o.name + " needs a value";
        out.lists[o.name] = all;
        out.options[o.name] = all.back();
    }
    if (c.help) out.options["--help"] = "";
    out.positional = c.positional;
    out.verbosity = c.verbosity;
    return std::nullopt;
}

std::string bashCompletion() {
    // Walks each command's CLI11 app: its options, which take a value, and the
    // values known for them.
    std::string cases;
    for (const auto& spec : commandTable()) {
        CommandApp c(spec);
        std::string words, valueCases;
        for (const auto* opt : c.app.get_options()) {
            for (const auto& name : opt->get_lnames()) words += " --" + name;
            for (const auto& name : opt->get_snames()) words += " -" + name;
            if (opt->get_items_expected_max() == 0 || opt->get_lnames().empty()) continue;
            std::string longName = "--" + opt->get_lnames().front();
            for (const auto& o : spec.options) {
                if (o.name != longName) continue;
                if (!o.choices.empty())
                    valueCases += "        " + longName + ") COMPREPLY=($(compgen -W \"" +
                                  CLI::detail::join(o.choices, " ") + "\" -- \"$cur\")); return ;;\n";
                else if (o.path)
                    valueCases += "        " + longName + ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
                else
                    valueCases += "        " + longName + ") return ;;\n";
            }
        }
        if (spec.name == "run") words += " --accept=all";
        cases += "    " + spec.name + ")\n      case \"$prev\" in\n" + valueCases + "      esac\n" +
                 "      if [[ \"$cur\" == -* ]]; then COMPREPLY=($(compgen -W \"" + words.substr(1) +
                 "\" -- \"$cur\"))\n" + "      else COMPREPLY=($(compgen " + (spec.pathArgs ? "-f " : "") +
                 "-- \"$cur\")); fi ;;\n";
    }
    std::string commands = CLI::detail::join(commandNames(), " ");
    return "# bash completion for cnxsim (cnxsim completion bash)\n"
           "# install: cnxsim completion bash > ~/.local/share/bash-completion/completions/cnxsim\n"
           "_cnxsim() {\n"
           "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
           "  if [[ $COMP_CWORD -eq 1 ]]; then\n"
           "    COMPREPLY=($(compgen -W \"" + commands + " --help --version\" -- \"$cur\")); return\n"
           "  fi\n"
           "  case \"${COMP_WORDS[1]}\" in\n" + cases +
           "    help) COMPREPLY=($(compgen -W \"" + commands + "\" -- \"$cur\")) ;;\n"
           "    completion) COMPREPLY=($(compgen -W \"bash\" -- \"$cur\")) ;;\n"
           "    *) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
           "  esac\n"
           "}\n"
           "complete -o filenames -F _cnxsim cnxsim\n";
}

}  // namespace cnx::sim
