#pragma once
// What a generated case involves, read from its schemas (not from the
// generator's mutation tags), so that a difference between two answers can be
// put in one of the classes reference §6.3 names as version or approach
// differences.

#include <string>
#include <vector>

namespace cnx::differential {

struct Features {
    bool aliases = false;                // a type or field alias anywhere (applied from Avro 1.9)
    bool enumFixedNamespaceMoved = false;  // an enum/fixed keeps its short name but changes namespace (1.11.1 AVRO-3133)
    bool unionPromotion = false;         // a type that promotes into a union branch the union lacks exactly
    bool recursion = false;              // a named type referenced inside its own definition
    bool recordRenamed = false;          // a record's name differs between the schemas
    bool enumSymbolsDiffer = false;      // an enum (same full name) has different symbol sets
    bool anyUnion = false;               // any union
};

/// Features of a set of single-line JSON definitions (those that do not parse as JSON are ignored).
Features featuresOf(const std::vector<std::string>& schemas);

}  // namespace cnx::differential
