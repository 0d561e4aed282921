#pragma once
// The inputs of the compatibility-check benchmarks (issue 3 "Speed"): Avro
// schema texts for records of 5 to 10,000 fields, 50-level nesting and
// evolving histories of 1 to 1,000 versions. One generator, so the C++
// benchmark and the Avro Java harness time exactly the same texts: the C++
// binary writes them to a directory (manifest + one file per schema) that
// both sides read.

#include <optional>
#include <string>
#include <vector>

namespace cnx::bench {

/// One benchmark case: check `candidate` against `existing` (oldest first)
/// with `strategy` (a Pulsar strategy name), as the broker's registry would.
struct CompatCase {
    std::string name;                   // e.g. "record_fields_1000/FULL"
    std::string strategy;               // BACKWARD, FULL or FULL_TRANSITIVE
    std::vector<std::string> existing;  // schema texts, oldest first
    std::string candidate;              // schema text
    std::string group;                  // "fields", "nesting" or "versions" (for the report)
    std::size_t size = 0;               // fields, nesting levels or versions
};

/// Every case, in report order. Deterministic: no randomness.
std::vector<CompatCase> generateCompatCases();

/// Writes `cases` to `dir`: `manifest.txt` (one line per case: name, strategy,
/// group, size, then the existing file names oldest first, then the candidate
/// file name; tab-separated) and the schema files. Returns an error text on failure.
std::optional<std::string> writeCompatCases(const std::vector<CompatCase>& cases, const std::string& dir);

/// Reads what writeCompatCases wrote; nullopt with `error` set on failure.
std::optional<std::vector<CompatCase>> readCompatCases(const std::string& dir, std::string* error);

}  // namespace cnx::bench
