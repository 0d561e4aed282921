#pragma once
// Internal to the Avro parser (avro_parse.cc) and its tests: the quick path
// of parse() (issue 14 "Speed", cold Avro).
//
// Most definitions a broker sees are plain: a record of fields whose types
// are primitives, unions, arrays, maps, enums, fixed and nested records, written
// without escapes, comments or aliases. For those, quickParse() reads the text
// once and builds only what a compatible check reads, the compact tables
// (CompactSchema) and the graph summaries, with the node ids the full parser
// would give. The full node model is deferred: Schema::nodes() builds it with
// the full parser the first time anything asks (an incompatible verdict, its
// messages, toString, equality, a default to encode).
//
// The subset is chosen so that the quick path never has to decide an error:
// on anything outside it, and on anything that would make the full parser
// throw, it declines (returns null) and the full parser decides, as before.
// What it declines: a leading comment or a first value that is not an object
// or array; escapes, control characters or non-ASCII bytes in any string;
// numbers with more than 19 digits before the point or an exponent of more
// than two digits; nesting deeper than kQuickMaxNesting; anything
// after the value but whitespace; duplicate keys in a schema or field object;
// "aliases" anywhere; key orders one pass cannot follow ("type", "name" or
// "namespace" after a record's "fields"; "fields", "items" or "values"
// before "type"); non-text "name" or "namespace"; a text default on a
// float or double field; and every error (undefined or redefined names,
// invalid names, a missing type, fields, symbols or size, duplicates in a
// union, record or enum, an enum default that is not a symbol, nested unions,
// a bad "order").

#include <memory>
#include <string_view>

#include "broker_model/compat/avro/avro_schema.h"
#include "broker_model/compat/json/json_nesting.h"

namespace cnx::compat::avro {

/// Deepest JSON nesting the quick path reads: the JSON reader's own limit
/// (JsonTape; Jackson 2.15+), so that the deferred full parse is one that
/// parse() would have run anyway, on the same stack (the checker runs a deep
/// definition's check, and so its first need of the nodes, on its large stack).
inline constexpr std::size_t kQuickMaxNesting = kMaxJsonNesting;

/// The schema with only its compact tables built (nodes deferred), or null when
/// the definition is outside the quick path's subset or nests deeper than
/// `maxNesting` (at most kQuickMaxNesting). On success *nesting (when given) is
/// the text's JSON nesting, compat::jsonNesting(definition); when declined, the
/// deepest level read (above maxNesting when it declined for depth).
std::shared_ptr<Schema> quickParse(std::string_view definition, const ParseOptions& options, std::size_t* nesting = nullptr,
                                   std::size_t maxNesting = kQuickMaxNesting);

/// How many quickly parsed schemas, when their full model was built, turned
/// out to disagree with the full parser (a cnxsim bug): each was counted and
/// went on with the full parser's nodes instead of throwing. Process-wide and
/// only ever added to by the model, never read by it: `cnxsim run` prints it
/// when it is not 0 (and with -v always), bench_admission in its summary.
std::uint64_t quickParseDisagreements();

/// parse() without the quick path: the full parser alone, every node built.
ParseResult parseFull(std::string_view definition, const ParseOptions& options);

}  // namespace cnx::compat::avro
