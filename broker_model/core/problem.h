#pragma once
// One reason a reader cannot read a writer, as a compatibility checker finds
// it (reference §6): a machine-readable kind, a path into the reader schema
// and a sentence. Checkers produce them; refusals (broker_error.h) and traces
// carry them up so that reports can say why without re-running a checker.

#include <string>

namespace cnx {

struct Problem {
    std::string kind;    // machine-readable: type_mismatch, name_mismatch, reader_field_missing_default_value, ...
    std::string path;    // JSON-pointer-like path in the reader schema, e.g. "/fields/2/type"; empty: the whole schema
    std::string detail;  // human-readable sentence
    std::string reader;  // reader fragment (compact JSON), if any
    std::string writer;  // writer fragment (compact JSON), if any

    /// The path as printed: "/" for the whole schema.
    std::string shownPath() const { return path.empty() ? "/" : path; }
    /// "PATH: detail", the short form traces and reports print (no fragments).
    std::string summary() const { return shownPath() + ": " + detail; }
};

}  // namespace cnx
