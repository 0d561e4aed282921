#pragma once
// Answers to one compatibility question, from our checker or from a reference
// implementation, in one comparable shape.

#include <map>
#include <string>
#include <vector>

#include "broker_model/compat/compatibility_check.h"
#include "tests/differential/schema_generator.h"

namespace cnx::differential {

enum class AnswerKind { compatible, incompatible, parseError, error, missing };
std::string_view to_string_view(AnswerKind k);

struct Answer {
    AnswerKind kind = AnswerKind::missing;
    std::string errorClass;  // for error: the Java exception class
    std::string detail;      // message or cause, for reports only

    bool answered() const { return kind == AnswerKind::compatible || kind == AnswerKind::incompatible || kind == AnswerKind::parseError; }
    std::string describe() const;
};

/// Our AVRO checker on `c` with the Avro behaviour `avro` (§6.3 strategy table).
Answer ourAnswer(const Case& c, compat::AvroVersion avro);

/// Our checker on "can `reader` read data written with `writer`" (BACKWARD on a pair).
Answer ourCanRead(const std::string& reader, const std::string& writer, compat::AvroVersion avro);

/// Parses one harness output line "<id>\t<kind>[\t...]"; id -1 when malformed.
std::pair<int, Answer> parseAnswerLine(const std::string& line);

/// Puts `cases` to the Avro Java harness (java/AvroValidatorHarness.java, on `classpath`)
/// through files in `work`; its answers by case id. The harness must run Avro 1.8.2
/// (Pulsar 2.4-2.5's, Debian bookworm's libavro-java); otherwise, or when it cannot
/// run, `error` says why and nothing is answered.
std::map<int, Answer> runJavaHarness(const std::string& java, const std::string& classpath, const std::string& work,
                                     const std::vector<Case>& cases, std::string& error);

/// Runs `command` through the shell; returns its exit status (-1 if it could not run).
int runCommand(const std::string& command);

/// Reads a whole file into lines.
std::vector<std::string> readLines(const std::string& path);

/// `--name value` pairs of a driver's command line.
std::map<std::string, std::string> parseFlags(int argc, char** argv);

/// `s` quoted for /bin/sh.
std::string shellQuote(const std::string& s);

}  // namespace cnx::differential
