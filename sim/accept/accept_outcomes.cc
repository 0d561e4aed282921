#include "sim/accept/accept_outcomes.h"

#include <algorithm>
#include <cctype>

#include "broker_model/profile/profile.h"
#include "sim/run/expectation.h"

namespace cnx::sim {
namespace {

constexpr std::size_t kMaxMessage = 120;

bool isIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// Whether `token` is a qualified Java class name: dotted identifiers, the last
// one capitalised ("org.apache.avro.SchemaValidationException").
bool isJavaClass(std::string_view token) {
    auto dot = token.rfind('.');
    if (dot == std::string_view::npos || dot + 1 >= token.size()) return false;
    if (!std::isupper(static_cast<unsigned char>(token[dot + 1]))) return false;
    bool segmentStart = true;
    for (char c : token) {
        if (c == '.') {
            if (segmentStart) return false;
            segmentStart = true;
        } else if (!isIdentifierChar(c) || (segmentStart && std::isdigit(static_cast<unsigned char>(c)))) {
            return false;
        } else {
            segmentStart = false;
        }
    }
    return !segmentStart;
}

// The text after the last "<java.Class>: " of `line`.
std::string_view afterLastExceptionClass(std::string_view line) {
    std::size_t rootStart = 0;
    for (auto colon = line.find(": "); colon != std::string_view::npos; colon = line.find(": ", colon + 1)) {
        auto begin = line.rfind(' ', colon);
        begin = begin == std::string_view::npos ? 0 : begin + 1;
        if (begin >= rootStart && isJavaClass(line.substr(begin, colon - begin))) rootStart = colon + 2;
    }
    return line.substr(rootStart);
}

std::string_view trimmed(std::string_view s) {
    auto end = s.find_last_not_of(" \t");
    auto begin = s.find_first_not_of(" \t");
    if (end == std::string_view::npos) return {};
    return s.substr(begin, end + 1 - begin);
}

// At most kMaxMessage bytes, not splitting a UTF-8 sequence, at a word break
// when one is in the second half.
std::string_view shortened(std::string_view s) {
    if (s.size() <= kMaxMessage) return s;
    std::size_t cut = kMaxMessage;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    auto space = s.substr(0, cut).rfind(' ');
    if (space != std::string_view::npos && space > kMaxMessage / 2) cut = space;
    return trimmed(s.substr(0, cut));
}

// The name `expect.schema` can use for `schema`: an alias with that definition, or a primitive type name.
// NONE has no name the loader reads back there (`NONE needs a definition`): its `type: NONE` says it all.
std::optional<std::string> schemaNameOf(const SchemaData& schema, const Scenario& scenario) {
    if (schema.type == SchemaType::NONE) return std::nullopt;
    for (const auto& [alias, ref] : scenario.schemas) {
        if (ref.kind == SchemaRef::Kind::definition && ref.data.type == schema.type && ref.data.data == schema.data)
            return alias;
    }
    if (schema.data.empty() && isPrimitive(schema.type)) return std::string(to_string_view(schema.type));
    return std::nullopt;
}

std::string fieldsOrOk(const std::string& fields) { return fields.empty() ? "ok" : "{ " + fields + " }"; }

std::string renderOne(const Observed& o, bool getSchema, const Scenario& scenario) {
    std::string fields;
    auto add = [&fields](const std::string& k, const std::string& v) {
        fields += (fields.empty() ? "" : ", ") + k + ": " + v;
    };
    if (!o.ok) {
        add("error", o.error);
        if (auto m = rootMessage(o.message); !m.empty()) add("message", yamlQuote(m));
        return fieldsOrOk(fields);
    }
    if (o.schemaVersion) add("schema_version", std::to_string(*o.schemaVersion));
    if (getSchema && o.schema) {
        add("type", std::string(to_string_view(o.schema->type)));
        if (auto name = schemaNameOf(*o.schema, scenario)) add("schema", *name);
        add("properties", renderProperties(o.schema->properties));
    }
    if (o.compatible) add("compatible", *o.compatible ? "true" : "false");
    if (o.strategy) add("strategy", std::string(to_string_view(*o.strategy)));
    return fieldsOrOk(fields);
}

// The bound that starts run `next` after run `previous` ends: the line as the
// scenario wrote it when that still lies above `previous`, else the exact release.
std::string boundBetween(const VersionOutcome& previous, const VersionOutcome& next) {
    auto written = ReleaseVersion::parse(next.asWritten);
    if (written && written->patch < 0) {
        ReleaseVersion lineStart{written->major, written->minor, 0};
        if (previous.release < lineStart && lineStart <= next.release) return next.asWritten;
    }
    return next.release.toString();
}

struct PendingStep {
    const Step* step = nullptr;
    std::vector<VersionOutcome> outcomes;
    bool edit = false;
};

// Whether `mode` replaces what applies to this version of the step.
bool takes(const StepResult& s, AcceptMode mode) {
    if (!s.step->expect.present || !s.expected) return true;  // no expectation, or none for this version
    return mode == AcceptMode::mismatches && s.status == StepStatus::failed;
}

AcceptEdit editOf(const PendingStep& p) {
    AcceptEdit e;
    e.stepLine = p.step->pos.line;
    e.stepColumn = p.step->pos.column;
    if (p.step->expect.present) e.expectLine = p.step->expect.pos.line;
    e.expectYaml = perVersionYaml(p.outcomes);
    return e;
}

}  // namespace

std::string rootMessage(const std::string& message) {
    std::string_view text = message;
    if (auto causedBy = text.find(" caused by "); causedBy != std::string_view::npos) text = text.substr(0, causedBy);
    std::string_view firstLine = text.substr(0, text.find_first_of("\r\n"));
    std::string_view root = afterLastExceptionClass(firstLine);
    root = root.substr(0, root.find('{'));
    root = trimmed(root);
    if (root.empty()) root = trimmed(firstLine.substr(0, firstLine.find('{')));
    return std::string(shortened(root));
}

std::string renderAccepted(const Observed& o, const Step& step, const Scenario& scenario) {
    if (o.perClient.empty()) return renderOne(o, step.is<GetSchemaStep>(), scenario);
    std::string out;
    for (const auto& [name, each] : o.perClient) out += (out.empty() ? "" : ", ") + name + ": " + renderOne(each, false, scenario);
    return "{ " + out + " }";
}

std::string perVersionYaml(std::vector<VersionOutcome> outcomes) {
    std::stable_sort(outcomes.begin(), outcomes.end(),
                     [](const VersionOutcome& a, const VersionOutcome& b) { return a.release < b.release; });
    // A release listed twice ("2.10" and "2.10.6") counts once.
    outcomes.erase(std::unique(outcomes.begin(), outcomes.end(),
                               [](const VersionOutcome& a, const VersionOutcome& b) { return a.release == b.release; }),
                   outcomes.end());
    std::vector<std::size_t> runStarts{0};
    for (std::size_t i = 1; i < outcomes.size(); ++i) {
        if (outcomes[i].yaml != outcomes[i - 1].yaml) runStarts.push_back(i);
    }
    if (runStarts.size() == 1) return outcomes.front().yaml;
    std::string out = "{ ";
    for (std::size_t r = 0; r < runStarts.size(); ++r) {
        bool last = r + 1 == runStarts.size();
        std::size_t boundary = last ? runStarts[r] : runStarts[r + 1];
        std::string key = (last ? ">=" : "<") + boundBetween(outcomes[boundary - 1], outcomes[boundary]);
        out += (r ? ", " : "") + yamlQuote(key) + ": " + outcomes[runStarts[r]].yaml;
    }
    return out + " }";
}

std::map<std::string, std::vector<AcceptEdit>> acceptEdits(const std::vector<ScenarioResult>& results, AcceptMode mode) {
    std::map<std::string, std::map<const Step*, PendingStep>> byFile;
    for (const auto& r : results) {
        const BehaviourProfile* profile = r.setupError.empty() ? profileFor(r.version) : nullptr;
        if (!profile) continue;  // nothing ran
        for (const auto& s : r.steps) {
            if (s.step->is<CheckStep>()) continue;  // a check is its own assertion
            if (s.race) continue;  // a race lists `outcomes`, not `expect`: its failure block names what it reached
            auto& p = byFile[r.file][s.step];
            p.step = s.step;
            bool take = takes(s, mode);
            p.edit = p.edit || (take && hasOutcome(*s.step, s.observed));
            std::string yaml = take ? renderAccepted(s.observed, *s.step, *r.scenario) : renderExpect(*s.expected);
            p.outcomes.push_back({profile->release, r.version, std::move(yaml)});
        }
    }
    std::map<std::string, std::vector<AcceptEdit>> edits;
    for (const auto& [file, steps] : byFile) {
        for (const auto& [step, p] : steps) {
            if (p.edit) edits[file].push_back(editOf(p));
        }
    }
    return edits;
}

}  // namespace cnx::sim
