// Differential test 2 of issue 3: our AVRO checker (Avro 1.11 behaviour)
// against python3-avro's avro.compatibility (Debian python3-avro 1.11.1), an
// implementation of Avro's SchemaCompatibility approach, on "can reader read
// writer" for the generated pairs. Reference §6.3 says the resolving grammar
// differs from that approach in whole classes (record names never compared,
// enum symbols not checked, union branch chosen by first match);
// python_compatibility.py also answers with each of those rules (and the way
// the grammar applies aliases, Schema.applyAliases) switched to the grammar's, and every difference must vanish under the smallest such set
// of switches, which names its class. An unexplained difference fails.
//
// Usage: avro_python_differential --python <python3> --script <python_compatibility.py> --work <dir> [--seed N] [--cases N]

#include <bitset>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "tests/differential/answers.h"
#include "tests/differential/schema_generator.h"

using namespace cnx;
using namespace cnx::differential;

namespace {

struct Args {
    std::string python, script, work;
    std::uint64_t seed = 20240611;
    int cases = 5000;
};

Args parseArgs(int argc, char** argv) {
    auto flags = parseFlags(argc, argv);
    Args a;
    a.python = flags["--python"];
    a.script = flags["--script"];
    a.work = flags["--work"];
    if (flags.count("--seed")) a.seed = std::stoull(flags["--seed"]);
    if (flags.count("--cases")) a.cases = std::stoi(flags["--cases"]);
    return a;
}

struct Pair {
    int id;
    std::string reader, writer;
    const Case* from;
};

// Both directions between the new schema and the latest existing one, and
// the new schema against the oldest of a history.
std::vector<Pair> pairsOf(const std::vector<Case>& cases) {
    std::vector<Pair> out;
    for (const Case& c : cases) {
        int base = static_cast<int>(out.size());
        out.push_back({base, c.candidate, c.existing.back(), &c});
        out.push_back({base + 1, c.existing.back(), c.candidate, &c});
        if (c.existing.size() > 1) out.push_back({base + 2, c.candidate, c.existing.front(), &c});
    }
    return out;
}

struct PythonAnswer {
    std::string kind;      // ok, parse-error, error
    std::string verdicts;  // 8 chars for ok
    std::string detail;
};

std::map<int, PythonAnswer> runPython(const Args& a, const std::vector<Pair>& pairs, std::string& problem) {
    const std::string in = a.work + "/python-pairs.tsv", out = a.work + "/python-answers.tsv";
    {
        std::ofstream f(in);
        for (const Pair& p : pairs) f << p.id << '\t' << p.reader << '\t' << p.writer << '\n';
    }
    std::remove(out.c_str());
    std::string cmd = shellQuote(a.python) + " " + shellQuote(a.script) + " " + shellQuote(in) + " " + shellQuote(out);
    std::map<int, PythonAnswer> answers;
    if (int rc = runCommand(cmd); rc != 0) {
        problem = "python exited " + std::to_string(rc) + ": " + cmd;
        return answers;
    }
    for (const auto& line : readLines(out)) {
        auto t1 = line.find('\t');
        auto t2 = line.find('\t', t1 + 1);
        if (t1 == std::string::npos || t2 == std::string::npos) continue;
        PythonAnswer p{line.substr(t1 + 1, t2 - t1 - 1), "", line.substr(t2 + 1)};
        if (p.kind == "ok") p.verdicts = p.detail;
        answers[std::stoi(line.substr(0, t1))] = p;
    }
    return answers;
}

constexpr int kBits = 4;

// The §6.3 classes, one per bit of python_compatibility.py's switches.
std::string className(int mask) {
    static const char* kNames[] = {"record names never compared by the grammar", "enum symbols not checked by the grammar",
                                   "union branch chosen by first match",
                                   "aliases applied by full name (Schema.applyAliases)"};
    std::string s;
    for (int b = 0; b < kBits; ++b) {
        if (mask & (1 << b)) s += (s.empty() ? "" : " + ") + std::string(kNames[b]);
    }
    return s;
}

// Smallest set of switches under which python agrees with `ours` (-1: none).
int explainingMask(const std::string& verdicts, char ours) {
    if (verdicts.size() != (1u << kBits)) return -1;
    for (int size = 1; size <= kBits; ++size) {
        for (int mask = 1; mask < (1 << kBits); ++mask) {
            if (static_cast<int>(std::bitset<kBits>(static_cast<unsigned>(mask)).count()) == size && verdicts[static_cast<std::size_t>(mask)] == ours) {
                return mask;
            }
        }
    }
    return -1;
}

struct Tally {
    int pairs = 0, compared = 0, agreements = 0, differences = 0, compatible = 0, incompatible = 0;
    int oursThrew = 0, bothParseErrors = 0, pythonErrors = 0;
    std::map<std::string, int> pythonErrorKinds;
    std::map<std::string, int> perClass;
};

void printFailure(std::ostream& os, const std::string& what, const Pair& p) {
    os << "FAIL [pair " << p.id << ", case " << p.from->id << "] " << what << "\n  reader " << p.reader << "\n  writer " << p.writer << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    Args a = parseArgs(argc, argv);
    if (a.python.empty() || a.script.empty() || a.work.empty()) {
        std::cerr << "usage: avro_python_differential --python <python3> --script <py> --work <dir> [--seed N] [--cases N]\n";
        return 2;
    }
    std::cout << "avro_python_differential: seed " << a.seed << ", " << a.cases << " cases\n";
    std::vector<Case> cases = generateCases(a.seed, a.cases);
    std::vector<Pair> pairs = pairsOf(cases);
    std::string problem;
    auto python = runPython(a, pairs, problem);
    int failures = 0, shown = 0;
    std::ofstream details(a.work + "/failures.txt");
    auto fail = [&](const std::string& what, const Pair& p) {
        ++failures;
        printFailure(details, what, p);
        if (shown++ < 12) printFailure(std::cerr, what, p);
    };
    if (!problem.empty()) {
        std::cerr << "FAIL [seed " << a.seed << "] " << problem << "\n";
        return 1;
    }
    Tally t;
    for (const Pair& p : pairs) {
        ++t.pairs;
        auto it = python.find(p.id);
        if (it == python.end()) {
            fail("python gave no answer", p);
            continue;
        }
        const PythonAnswer& py = it->second;
        Answer ours = ourCanRead(p.reader, p.writer, compat::AvroVersion::v1_11_4);
        if (ours.kind == AnswerKind::error) {  // §6.3: the broker's validator throws; python has no such outcome
            ++t.oursThrew;
            continue;
        }
        if (py.kind == "error" && ours.kind != AnswerKind::parseError) {  // python3-avro raised instead of answering
            ++t.pythonErrors;
            ++t.pythonErrorKinds[py.detail.substr(0, py.detail.find(':'))];
            continue;
        }
        if (ours.kind == AnswerKind::parseError || py.kind != "ok") {
            if (ours.kind == AnswerKind::parseError && py.kind == "parse-error") ++t.bothParseErrors;
            else fail("parse outcome differs: ours " + ours.describe() + " / python " + py.kind + " " + py.detail, p);
            continue;
        }
        ++t.compared;
        char o = ours.kind == AnswerKind::compatible ? 'c' : 'i';
        (o == 'c' ? t.compatible : t.incompatible)++;
        if (py.verdicts[0] == o) {
            ++t.agreements;
            continue;
        }
        ++t.differences;
        int mask = explainingMask(py.verdicts, o);
        if (mask < 0) fail(std::string("unexplained difference: ours ") + ours.describe() + " / python " + py.verdicts, p);
        else ++t.perClass[className(mask)];
    }
    std::cout << "python3-avro vs ours (1.11.4): pairs " << t.pairs << ", compared " << t.compared << " (ours compatible " << t.compatible
              << ", incompatible " << t.incompatible << "), agreements " << t.agreements << ", differences " << t.differences << "\n"
              << "  not compared: our validator throws (bad default / recursion, §6.3) " << t.oursThrew << ", both parsers reject "
              << t.bothParseErrors << ", python3-avro raised " << t.pythonErrors;
    for (const auto& [k, n] : t.pythonErrorKinds) std::cout << " (" << k << ": " << n << ")";
    std::cout << "\n  explained differences per §6.3 class:\n";
    for (const auto& [k, n] : t.perClass) std::cout << "    " << k << ": " << n << "\n";
    if (t.pythonErrors * 100 > t.pairs) {
        ++failures;
        std::cerr << "FAIL: python3-avro raised on more than 1% of pairs\n";
    }
    // Not vacuous: both verdicts often, and each §6.3 class seen.
    if (t.compatible < t.compared / 5 || t.incompatible < t.compared / 5) {
        ++failures;
        std::cerr << "FAIL: verdicts too one-sided\n";
    }
    for (int bit : {1, 2, 4, 8}) {
        int n = 0;
        for (const auto& [k, c] : t.perClass) n += k.find(className(bit)) != std::string::npos ? c : 0;
        if (n < 5) {
            ++failures;
            std::cerr << "FAIL: class '" << className(bit) << "' seen " << n << " times (< 5): the generator no longer exercises it\n";
        }
    }
    if (failures > 0) {
        std::cout << failures << " failure(s) (seed " << a.seed << "); every failing pair is in " << a.work << "/failures.txt\n";
        return 1;
    }
    std::cout << "avro_python_differential: passed\n";
    return 0;
}
