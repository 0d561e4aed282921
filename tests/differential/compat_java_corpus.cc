// The compatibility corpus of issue 40 (items 22, 23): Avro Java's own verdicts on
// schemas whose top level is a union or a primitive (the shapes of Avro's
// TestSchemaCompatibility table, which the generated records of
// avro_java_differential never have), put to the real `cnxsim compat` binary.
//
//  * --broker-version 3.0.11 (before #24103): every answer equals Avro Java 1.8.2's
//    (compatible / incompatible).
//  * --broker-version 3.0.12 (#24103): a new schema whose top level is a union is
//    invalid input (exit 2, `Avro schema typed [UNION] is not supported`): the reason
//    the corpus stopped agreeing with the newest broker. Every other answer still
//    equals Java's, those whose stored history holds a union included: a stored
//    schema is not validated again (§6.7).
//
// Both runs take --avro 1.8, the Avro release the Java harness runs (Debian's
// libavro-java 1.8.2), so that the broker release is the only difference.
//
// Usage: compat_java_corpus --java <java> --classpath <cp> --work <dir> --cnxsim <cnxsim>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "tests/differential/answers.h"
#include "tests/differential/schema_generator.h"

using namespace cnx::differential;

namespace {

const std::string kRecord = R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})";

// Top-level unions, then schemas that are not unions.
const std::vector<std::string> kUnions = {
    R"(["null","string"])", R"(["string","null"])", R"(["int","long"])", R"(["null","int","string"])",
    R"(["long"])",          R"(["null",)" + kRecord + "]",
};
const std::vector<std::string> kOthers = {R"("string")", R"("int")", R"("long")", R"("null")", kRecord};

bool isUnion(const std::string& schema) { return schema.front() == '['; }

// Every ordered pair with a union on at least one side, strategies in turn; then a
// few histories of two, checked against all (transitive) and against the latest. A
// history's new schema differs from its stored ones: an equal one would be reused
// without a check (§4.3), which Avro Java's validator alone does not model.
std::vector<Case> corpus() {
    std::vector<std::string> all = kUnions;
    all.insert(all.end(), kOthers.begin(), kOthers.end());
    std::vector<Case> cases;
    const Strategy strategies[] = {Strategy::BACKWARD, Strategy::FORWARD, Strategy::FULL};
    for (const auto& existing : all) {
        for (const auto& candidate : all) {
            if (!isUnion(existing) && !isUnion(candidate)) continue;
            Case c;
            c.id = static_cast<int>(cases.size());
            c.strategy = strategies[cases.size() % 3];
            c.existing = {existing};
            c.candidate = candidate;
            cases.push_back(std::move(c));
        }
    }
    const std::vector<std::vector<std::string>> histories = {
        {R"(["null","string"])", R"("string")", R"(["null","string","long"])"},
        {R"("int")", R"(["int","long"])", R"("long")"},
        {R"(["null","int","string"])", R"(["null","string"])", R"("string")"},
        {R"("string")", R"(["null","string"])", R"(["null","int","string"])"},
    };
    for (const auto& h : histories) {
        for (bool transitive : {false, true}) {
            for (Strategy s : strategies) {
                Case c;
                c.id = static_cast<int>(cases.size());
                c.strategy = s;
                c.all = transitive;
                c.existing = {h[0], h[1]};
                c.candidate = h[2];
                cases.push_back(std::move(c));
            }
        }
    }
    return cases;
}

std::string strategyWord(const Case& c) {
    return std::string(to_string_view(c.strategy)) + (c.all ? "_TRANSITIVE" : "");
}

class Files {
public:
    explicit Files(std::string dir) : dir_(std::move(dir)) { std::filesystem::create_directories(dir_); }
    // One .avsc per distinct schema text.
    std::string pathOf(const std::string& schema) {
        auto it = paths_.find(schema);
        if (it != paths_.end()) return it->second;
        std::string path = dir_ + "/s" + std::to_string(paths_.size()) + ".avsc";
        std::ofstream(path) << schema;
        return paths_[schema] = path;
    }

private:
    std::string dir_;
    std::map<std::string, std::string> paths_;
};

struct CnxsimAnswer {
    int status = -1;
    std::string output;
};

CnxsimAnswer runCompat(const std::string& cnxsim, const std::string& release, const Case& c, Files& files,
                       const std::string& work) {
    std::string cmd = shellQuote(cnxsim) + " compat --broker-version " + release + " --avro 1.8 --strategy " + strategyWord(c);
    for (const auto& e : c.existing) cmd += " --existing " + shellQuote(files.pathOf(e));
    const std::string out = work + "/cnxsim-output.txt";
    cmd += " --new " + shellQuote(files.pathOf(c.candidate)) + " > " + shellQuote(out) + " 2>&1";
    CnxsimAnswer a;
    a.status = runCommand(cmd);
    for (const auto& line : readLines(out)) a.output += line + "\n";
    return a;
}

// cnxsim compat's exit status as a verdict: 0 compatible, 1 incompatible, 2 invalid input, 3 the checker threw.
AnswerKind kindOf(int status) {
    switch (status) {
        case 0: return AnswerKind::compatible;
        case 1: return AnswerKind::incompatible;
        case 2: return AnswerKind::parseError;
        case 3: return AnswerKind::error;
        default: return AnswerKind::missing;
    }
}

void printCase(const Case& c) {
    std::cerr << "  strategy " << strategyWord(c) << "\n";
    for (const auto& e : c.existing) std::cerr << "  existing " << e << "\n";
    std::cerr << "  new      " << c.candidate << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    auto flags = parseFlags(argc, argv);
    const std::string java = flags["--java"], classpath = flags["--classpath"], work = flags["--work"],
                      cnxsim = flags["--cnxsim"];
    if (java.empty() || classpath.empty() || work.empty() || cnxsim.empty()) {
        std::cerr << "usage: compat_java_corpus --java <java> --classpath <cp> --work <dir> --cnxsim <cnxsim>\n";
        return 2;
    }
    std::vector<Case> cases = corpus();
    std::string error;
    auto javaAnswers = runJavaHarness(java, classpath, work, cases, error);
    if (!error.empty() || javaAnswers.size() != cases.size()) {
        std::cerr << "FAIL: " << (error.empty() ? "the Java harness did not answer every case" : error) << "\n";
        return 1;
    }
    Files files(work + "/corpus");
    int failures = 0, agreements = 0, refusedUnions = 0, storedUnions = 0;
    std::map<AnswerKind, int> javaKinds;
    for (const Case& c : cases) {
        const Answer& j = javaAnswers.at(c.id);
        ++javaKinds[j.kind];
        bool newUnion = isUnion(c.candidate), storedUnion = false;
        for (const auto& e : c.existing) storedUnion = storedUnion || isUnion(e);
        auto before = runCompat(cnxsim, "3.0.11", c, files, work);
        auto after = runCompat(cnxsim, "3.0.12", c, files, work);
        bool ok = kindOf(before.status) == j.kind;
        if (newUnion) {
            ok = ok && after.status == 2 && after.output.find("Avro schema typed [UNION] is not supported") != std::string::npos;
            refusedUnions += after.status == 2 ? 1 : 0;
        } else {
            ok = ok && kindOf(after.status) == j.kind;
            storedUnions += storedUnion && kindOf(after.status) == j.kind ? 1 : 0;
        }
        if (ok) {
            ++agreements;
            continue;
        }
        if (++failures <= 12) {
            std::cerr << "FAIL [case " << c.id << "] java " << j.describe() << " / cnxsim 3.0.11 exit " << before.status
                      << ", 3.0.12 exit " << after.status << "\n";
            printCase(c);
            std::cerr << after.output;
        }
    }
    std::cout << "compat_java_corpus: " << cases.size() << " cases; Avro Java 1.8.2: " << javaKinds[AnswerKind::compatible]
              << " compatible, " << javaKinds[AnswerKind::incompatible] << " incompatible; cnxsim compat agrees on "
              << agreements << "\n  on 3.0.12 (#24103): " << refusedUnions << " new top-level unions refused, "
              << storedUnions << " answers over a stored union equal Java's\n";
    // Not vacuous: both verdicts, and both sides of #24103.
    if (javaKinds[AnswerKind::compatible] < 20 || javaKinds[AnswerKind::incompatible] < 20 || refusedUnions < 20 ||
        storedUnions < 10) {
        std::cerr << "FAIL: the corpus is too one-sided\n";
        ++failures;
    }
    if (failures > 0) {
        std::cout << failures << " failure(s)\n";
        return 1;
    }
    std::cout << "compat_java_corpus: passed\n";
    return 0;
}
