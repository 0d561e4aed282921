#pragma once
// Internal to avro_resolve.cc (split out by concern, included there only):
// the Avro version switches of resolution and the grammar actions the Resolver builds.

#include <array>
#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "broker_model/compat/avro/avro_resolve.h"

namespace cnx::compat::avro::resolve {

// ---- version switches (§6.3; one place) ----

struct Rules {
    bool applyAliases;          // Resolver.resolve applies Schema.applyAliases (1.9+; 1.8.2 ignored aliases)
    bool shortNames;            // enum/fixed names compared unqualified (1.11.1+, AVRO-3133)
    bool enumDefaults;          // enum "default" exists (1.9+)
    bool visitedHasErrors;      // Symbol.hasErrors keeps a visited set (1.9+); 1.8.2 recursed forever through unions
    bool equivUnionIsSimple;    // equivalent writer/reader unions generate no resolution at all (1.9+)
    bool equivComparesFieldNames;  // unionEquiv compares record field names (read in the 1.11.1+ Resolver; UNCONFIRMED for 1.9–1.11.0)
    bool missingCheckFirst;     // 1.8.2 resolveRecords reports a missing field before resolving any field
    bool missingNamesLastField; // Resolver's message names the *last* missing field; 1.8.2 the first
    bool nullDefaultShortcut;   // GenericData.getDefaultValue skips encoding null for null / [null,...] (1.9+)
    bool unionPromotesToFloat;  // a reader-union branch is chosen by int->float / long->float (1.9+);
                                // 1.8.2 bestBranch: int->long|double, long->double, float->double only
};

inline Rules rulesFor(AvroVersion v) {
    switch (v) {
        case AvroVersion::v1_8_2: return {false, false, false, false, false, false, true, false, false, false};
        case AvroVersion::v1_9_1:
        case AvroVersion::v1_10_2: return {true, false, true, true, true, false, false, true, true, true};
        case AvroVersion::v1_11_3:
        case AvroVersion::v1_11_4:
        case AvroVersion::v1_12_0: return {true, true, true, true, true, true, false, true, true, true};
    }
    return {true, true, true, true, true, true, false, true, true, true};
}

constexpr int kMaxDepth = 20000;  // beyond this our model declares a Java StackOverflowError

struct Thrown {
    JavaException e;
};

[[noreturn]] inline void stackOverflow() { throw Thrown{{std::string(kStackOverflowError), ""}}; }

enum class ErrorType { incompatibleTypes, namesDontMatch, sizesDontMatch, missingRequiredField, noMatchingBranch };

inline std::string_view problemKind(ErrorType e) {
    switch (e) {
        case ErrorType::incompatibleTypes: return "type_mismatch";
        case ErrorType::namesDontMatch: return "name_mismatch";
        case ErrorType::sizesDontMatch: return "fixed_size_mismatch";
        case ErrorType::missingRequiredField: return "reader_field_missing_default_value";
        case ErrorType::noMatchingBranch: return "missing_union_branch";
    }
    return "type_mismatch";
}

enum class Kind { doNothing, error, promote, container, enumAdjust, skip, record, writerUnion, readerUnion };

using ActionId = std::uint32_t;
constexpr ActionId kNone = 0xFFFFFFFFu;

struct Action {
    Kind kind = Kind::doNothing;
    NodeId w = 0, r = 0;
    ErrorType error = ErrorType::incompatibleTypes;
    std::string message;             // Avro's ErrorAction text
    std::uint32_t missingField = 0;  // reader field index for missingRequiredField
    std::vector<ActionId> children;  // record: per writer field; union: per writer branch; container/readerUnion: one
    std::vector<std::uint32_t> readerField;  // record: reader field index per writer field (skip: unused)
    std::vector<std::uint32_t> defaults;  // record: reader fields filled from defaults
    int firstMatch = -1;
    bool unionEquiv = false;
    ActionId shadow = kNone;  // record whose pair later resolved to an error
};

}  // namespace cnx::compat::avro::resolve
