#pragma once
// The schemas the differential search draws from (internal to sim/explore;
// doc/explore.md lists them). Each is written as the scenario format's flow
// mapping, taken from the bundled suite where it has one (scenarios/, the
// source file is named beside each entry in corpus.cc) and otherwise written
// the way Pulsar's clients generate them.

#include <span>
#include <string_view>

namespace cnx::sim::explore::detail {

struct CorpusSchema {
    std::string_view alias;       // the name a session declares it under
    std::string_view definition;  // the flow mapping; empty: a primitive type named bare (STRING, INT32, ...)
    std::string_view needs;       // an alias this one names (a KEY_VALUE component), or empty
};

/// A family: schemas that evolve one record, or belong together (so a session
/// that draws mostly from one family meets the compatibility checks).
struct CorpusFamily {
    std::string_view name;
    std::span<const CorpusSchema> schemas;
};

std::span<const CorpusFamily> corpusFamilies();

/// The schema of `alias` in any family; nullptr when there is none.
const CorpusSchema* corpusSchema(std::string_view alias);

}  // namespace cnx::sim::explore::detail
