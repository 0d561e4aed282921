#include "tests/differential/answers.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>

#include "broker_model/compat/avro/avro_check.h"

namespace cnx::differential {
namespace {

CompatibilityStrategy strategyFor(const Case& c) {
    switch (c.strategy) {
        case Strategy::BACKWARD: return c.all ? CompatibilityStrategy::BACKWARD_TRANSITIVE : CompatibilityStrategy::BACKWARD;
        case Strategy::FORWARD: return c.all ? CompatibilityStrategy::FORWARD_TRANSITIVE : CompatibilityStrategy::FORWARD;
        case Strategy::FULL: return c.all ? CompatibilityStrategy::FULL_TRANSITIVE : CompatibilityStrategy::FULL;
    }
    return CompatibilityStrategy::BACKWARD;
}

Answer fromResult(const compat::CheckResult& r) {
    switch (r.verdict) {
        case compat::Verdict::compatible: return {AnswerKind::compatible, "", ""};
        case compat::Verdict::incompatible:
            if (!r.problems.empty() && r.problems.front().kind == "schema_parse_error") {
                return {AnswerKind::parseError, "", r.problems.front().detail};
            }
            return {AnswerKind::incompatible, "", r.problems.empty() ? "" : r.problems.front().kind + " at " + r.problems.front().path};
        case compat::Verdict::error: return {AnswerKind::error, r.exceptionClass, r.message};
    }
    return {};
}

const compat::SchemaCompatibilityCheck& avroCheck() {
    static const auto check = compat::makeAvroCheck();
    return *check;
}

}  // namespace

std::string_view to_string_view(AnswerKind k) {
    switch (k) {
        case AnswerKind::compatible: return "compatible";
        case AnswerKind::incompatible: return "incompatible";
        case AnswerKind::parseError: return "parse-error";
        case AnswerKind::error: return "error";
        case AnswerKind::missing: return "missing";
    }
    return "missing";
}

std::string Answer::describe() const {
    std::string s(to_string_view(kind));
    if (!errorClass.empty()) s += "(" + errorClass + ")";
    if (!detail.empty()) s += " [" + detail.substr(0, 160) + "]";
    return s;
}

Answer ourAnswer(const Case& c, compat::AvroVersion avro) {
    std::vector<SchemaData> existing;
    for (const auto& e : c.existing) existing.push_back(SchemaData{SchemaType::AVRO, e, {}});
    SchemaData candidate{SchemaType::AVRO, c.candidate, {}};
    compat::CheckOptions o;
    o.avro = avro;
    return fromResult(avroCheck().checkCompatible(std::span<const SchemaData>(existing), candidate, strategyFor(c), o));
}

Answer ourCanRead(const std::string& reader, const std::string& writer, compat::AvroVersion avro) {
    compat::CheckOptions o;
    o.avro = avro;
    SchemaData w{SchemaType::AVRO, writer, {}};
    SchemaData r{SchemaType::AVRO, reader, {}};
    return fromResult(avroCheck().checkCompatible(w, r, CompatibilityStrategy::BACKWARD, o));
}

std::pair<int, Answer> parseAnswerLine(const std::string& line) {
    std::vector<std::string> cols;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) cols.push_back(line.substr(start, tab - start));
    cols.push_back(line.substr(start));
    if (cols.size() < 2) return {-1, {}};
    int id = -1;
    try {
        id = std::stoi(cols[0]);
    } catch (const std::exception&) {
        return {-1, {}};
    }
    auto col = [&](std::size_t i) { return i < cols.size() ? cols[i] : std::string(); };
    const std::string& k = cols[1];
    if (k == "compatible") return {id, {AnswerKind::compatible, "", ""}};
    if (k == "incompatible") return {id, {AnswerKind::incompatible, "", col(2)}};
    if (k == "parse-error") return {id, {AnswerKind::parseError, "", col(2)}};
    if (k == "error") return {id, {AnswerKind::error, col(2), col(3)}};
    return {-1, {}};
}

namespace {

bool writeHarnessInput(const std::vector<Case>& cases, const std::string& path) {
    std::ofstream out(path);
    for (const Case& c : cases) {
        out << c.id << '\t' << to_string_view(c.strategy) << '\t' << (c.all ? "all" : "latest") << '\t' << c.existing.size();
        for (const auto& e : c.existing) out << '\t' << e;
        out << '\t' << c.candidate << '\n';
    }
    return static_cast<bool>(out);
}

}  // namespace

std::map<int, Answer> runJavaHarness(const std::string& java, const std::string& classpath, const std::string& work,
                                     const std::vector<Case>& cases, std::string& error) {
    const std::string in = work + "/java-cases.tsv", out = work + "/java-answers.tsv";
    std::map<int, Answer> answers;
    if (!writeHarnessInput(cases, in)) {
        error = "cannot write " + in;
        return answers;
    }
    std::remove(out.c_str());
    std::string cmd = shellQuote(java) + " -cp " + shellQuote(classpath) + " AvroValidatorHarness " + shellQuote(in) + " " + shellQuote(out);
    if (int rc = runCommand(cmd); rc != 0) {
        error = "the Java harness exited " + std::to_string(rc) + ": " + cmd;
        return answers;
    }
    std::vector<std::string> lines = readLines(out);
    // The 1.8.2 comparison is only meaningful against Avro 1.8.2 (Pulsar 2.4-2.5).
    if (lines.empty() || lines.front() != "#avro\t1.8.2") {
        error = "the harness ran Avro '" + (lines.empty() ? std::string() : lines.front()) + "', expected 1.8.2 (Debian bookworm libavro-java)";
        return answers;
    }
    for (const auto& line : lines) {
        auto [id, ans] = parseAnswerLine(line);
        if (id >= 0) answers[id] = ans;
    }
    return answers;
}

int runCommand(const std::string& command) {
    int status = std::system(command.c_str());
    if (status == -1) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> readLines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) lines.push_back(line);
    }
    return lines;
}

std::map<std::string, std::string> parseFlags(int argc, char** argv) {
    std::map<std::string, std::string> flags;
    for (int i = 1; i + 1 < argc; i += 2) flags[argv[i]] = argv[i + 1];
    return flags;
}

std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace cnx::differential
