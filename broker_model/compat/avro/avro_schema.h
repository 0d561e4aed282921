#pragma once
// The Avro schema model and parser (reference §6.3, §6.7): what Avro Java's
// `Schema.Parser` (default-value validation off, as Pulsar configures it)
// builds from a definition, including its failures with Avro's exception class
// and message. Named types are shared nodes, so recursive schemas are graphs.
//
// Sources read (apache/avro lang/java/avro .../Schema.java, 1.11.x era):
// Schema.parse(JsonNode, Names), Name, Names.put ("Can't redefine: "),
// validateName, RecordSchema.setFields ("Duplicate field ..."), EnumSchema,
// UnionSchema ("Duplicate in union:", "Nested union: "), NamedSchema
// ("Schemas may not be named after primitives: "), Field.equals, toJson.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker_model/compat/compatibility_check.h"

namespace cnx::compat::avro {

using Json = nlohmann::ordered_json;  // Jackson keeps key order; so do we

enum class Type { record, enumeration, array, map, union_, fixed, string, bytes, int_, long_, float_, double_, boolean, null };

/// Avro's lower-case type name ("record", "int", ...), as `Schema.Type.getName()`.
std::string_view to_string_view(Type t);
inline bool isNamed(Type t) { return t == Type::record || t == Type::enumeration || t == Type::fixed; }
bool isPrimitive(Type t);

/// Avro `Schema.Name`: `full` is "space.name" or "name".
struct Name {
    std::string name;
    std::string space;  // empty = null namespace
    std::string full;
    bool operator==(const Name& o) const { return full == o.full; }
};

using NodeId = std::uint32_t;
using Props = std::vector<std::pair<std::string, Json>>;  // insertion order, as JsonProperties

enum class FieldOrder { ascending, descending, ignore };

struct Field {
    std::string name;
    NodeId type = 0;
    std::string doc;
    std::optional<Json> defaultValue;  // stored as parsed, never validated (§6.3)
    FieldOrder order = FieldOrder::ascending;
    std::vector<std::string> aliases;
    Props props;
};

/// Transparent string hash, so lookups by string_view do not allocate.
struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// A record's field names to positions: open addressing with linear probing
/// over CompactSchema::hashName, CompactSchema::tableSize(field count) slots,
/// each the field's index + 1 (0 = empty). One allocation per record.
struct FieldIndex {
    std::vector<std::uint32_t> slots;
};

struct Node {
    Type type = Type::null;
    Name name;                 // named types only
    std::string doc;
    bool isError = false;      // "type":"error" records
    std::vector<Field> fields;
    FieldIndex fieldIndex;
    std::vector<std::string> symbols;
    std::optional<std::string> enumDefault;  // Avro >= 1.9 only
    std::int64_t size = 0;
    std::vector<NodeId> branches;  // union
    NodeId items = 0;              // array items / map values
    std::vector<Name> aliases;
    Props props;

    const Field* field(std::string_view n) const;
};

/// A fixed-size array in a CompactSchema's one block of storage.
template <class T>
class CompactTable {
public:
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const T* data() const { return data_; }
    const T* begin() const { return data_; }
    const T* end() const { return data_ + size_; }
    const T& operator[](std::size_t i) const { return data_[i]; }
    /// For the parsers, while they lay the tables out.
    T* data() { return data_; }
    T& operator[](std::size_t i) { return data_[i]; }
    bool operator==(const CompactTable& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

private:
    friend struct CompactSchema;
    T* data_ = nullptr;
    std::uint32_t size_ = 0;
};

/// Dense, cache-friendly tables over a parsed schema for the resolver's fast
/// pass (avro_resolve.cc): one 24-byte entry per node, one 20-byte entry per
/// record field, field names in one pool with a hash each and an open-addressing
/// name table per record. Built once by parse(); depends only on this schema.
/// Every table lives in one block, allocated once by allocate().
struct CompactSchema {
    struct CNode {
        Type type = Type::null;
        std::uint32_t a = 0;  // record: first field in `fields`; union: first branch in `branches`; array/map: items;
                              // fixed: its size (an int, as parsed); enum: first symbol in `symbols`
        std::uint32_t b = 0;  // record: field count; union: branch count; enum: symbol count
        std::uint32_t c = 0;  // record: first slot of its name table in `slots` (size = tableSize(b))
        std::uint32_t nameOff = 0, nameLen = 0;  // named types: the full name in `names`
        bool operator==(const CNode&) const = default;
    };
    enum FieldFlag : std::uint8_t {
        kHasDefault = 1,
        // default null and the type null or a union whose first branch is null:
        // encoding the default cannot fail, and 1.9+ skips it (nullDefaultShortcut)
        kNullDefaultOnNullable = 2,
    };
    struct CField {
        NodeId type = 0;
        std::uint32_t hash = 0;
        std::uint32_t nameOff = 0;
        std::uint32_t nameLen = 0;
        std::uint8_t flags = 0;
        bool operator==(const CField&) const = default;
    };
    struct CText {  // a string in `names`
        std::uint32_t off = 0, len = 0;
        bool operator==(const CText&) const = default;
    };
    CompactTable<CNode> nodes;
    CompactTable<CField> fields;
    CompactTable<NodeId> branches;
    CompactTable<std::uint32_t> slots;  // record-relative field index + 1; 0 = empty
    CompactTable<CText> symbols;        // enum symbols, in order
    CompactTable<char> names;           // name pool: per node in id order, a named type's full name, then its field names or symbols
    CompactTable<char> definition;      // the quick path's: the text it read, for the full model when needed (not compared)
    bool ready = false;
    bool severalRecordBranches = false;  // some union has two or more record branches
    std::uint32_t maxDepth = 0;          // edges on the longest path from any node (non-recursive schemas only)
    std::uint32_t maxUnionDepth = 0;     // most union-to-branch edges on one path (non-recursive schemas only)

    /// The tables' sizes, which the parsers count before they lay the tables out.
    struct Sizes {
        std::size_t nodes = 0, fields = 0, branches = 0, slots = 0, symbols = 0, nameBytes = 0, definitionBytes = 0;
    };
    /// For the parsers: allocates every table at its size in one block, each
    /// entry value-initialized (so every slot is empty) but for the bytes of
    /// `names` and `definition`, which the parser must write, every one. Once per schema.
    void allocate(const Sizes& sizes);

    static std::uint32_t hashName(std::string_view s) {
        std::uint32_t h = 2166136261u;  // FNV-1a
        for (unsigned char ch : s) h = (h ^ ch) * 16777619u;
        return h;
    }
    static std::uint32_t tableSize(std::uint32_t fieldCount) {
        std::uint32_t n = 2;
        while (n < 2 * fieldCount) n <<= 1;
        return n;
    }
    std::string_view name(const CField& f) const { return {names.data() + f.nameOff, f.nameLen}; }
    std::string_view text(const CText& t) const { return {names.data() + t.off, t.len}; }
    /// A named type's full name ("space.name" or "name").
    std::string_view fullName(NodeId id) const { return {names.data() + nodes[id].nameOff, nodes[id].nameLen}; }
    /// A named type's name without its namespace.
    std::string_view shortName(NodeId id) const {
        std::string_view full = fullName(id);
        auto dot = full.rfind('.');
        return dot == std::string_view::npos ? full : full.substr(dot + 1);
    }
    /// The same tables and summaries (the definition's copy aside).
    bool operator==(const CompactSchema& o) const {
        return nodes == o.nodes && fields == o.fields && branches == o.branches && slots == o.slots && symbols == o.symbols &&
               names == o.names && ready == o.ready && severalRecordBranches == o.severalRecordBranches && maxDepth == o.maxDepth &&
               maxUnionDepth == o.maxUnionDepth;
    }

private:
    std::unique_ptr<std::byte[]> storage_;
};

/// Parser behaviour switches, derived from CheckOptions.
struct ParseOptions {
    AvroVersion version = AvroVersion::v1_12_0;
    bool namesAllowDollar = false;  // Pulsar 4.2 COMPATIBLE_NAME_VALIDATOR (§4.5)
    FastPaths fastPaths = FastPaths::on;  // off: the full parser and nlohmann only (core/fast_paths.h)
};

/// A parsed schema: a graph of nodes. Immutable once built; safe to share
/// between threads.
///
/// Two models of one graph, with the same node ids: `compact` (always there)
/// and the full node model (`nodes()`, `at()`). A definition in the common
/// subset that the quick path of parse() reads (avro_quick_parse.h) gets only
/// the compact tables at first; its full model is built from the definition,
/// by the full parser, the first time anything asks for it. The fast
/// compatibility pass reads the compact tables only, so a compatible check of
/// such schemas never builds it.
class Schema {
public:
    NodeId root = 0;
    // Summaries the parser fills in, so the resolver can skip whole passes:
    // (conservative defaults for a Schema built by hand.)
    bool recursive = true;    // a named type reachable from itself (the node graph has a cycle)
    bool hasAliases = true;   // some named type or record field declares aliases
    CompactSchema compact;    // filled in by parse(); `ready` false for a Schema built by hand

    Schema() = default;
    Schema(const Schema&) = delete;
    Schema& operator=(const Schema&) = delete;

    /// The full node model, `root` among them; built on the first call when the parse deferred it.
    const std::vector<Node>& nodes() const { return built_.load(std::memory_order_acquire) ? nodes_ : buildNodes(); }
    const Node& at(NodeId id) const { return nodes()[id]; }
    const Node& rootNode() const { return at(root); }
    /// A node's type, without building the full model.
    Type typeOf(NodeId id) const { return compact.ready ? compact.nodes[id].type : at(id).type; }
    /// How many nodes the graph has, without building the full model.
    std::size_t nodeCount() const { return compact.ready ? compact.nodes.size() : nodes().size(); }
    /// True until something has needed the full model of a quickly parsed schema (for tests and benchmarks).
    bool nodesDeferred() const { return !built_.load(std::memory_order_acquire); }

    /// The definition a quickly parsed schema was read from (immutable); empty for the others.
    std::string_view definition() const { return {compact.definition.data(), compact.definition.size()}; }

    /// For the full parser, while it builds the model.
    std::vector<Node>& editNodes() { return nodes_; }
    /// For the quick parser: the full model is to be built from compact.definition when first needed.
    void deferNodes(const ParseOptions& options);

private:
    const std::vector<Node>& buildNodes() const;

    mutable std::vector<Node> nodes_;
    mutable std::atomic<bool> built_{true};
    ParseOptions options_;    // deferred only
};

/// A Java exception as the broker would see it: class and message.
struct JavaException {
    std::string cls;
    std::string message;
    /// `Throwable.toString()`: "<class>: <message>".
    std::string toString() const { return cls + ": " + message; }
};

inline constexpr std::string_view kAvroTypeException = "org.apache.avro.AvroTypeException";
inline constexpr std::string_view kStackOverflowError = "java.lang.StackOverflowError";
inline constexpr std::string_view kNullPointerException = "java.lang.NullPointerException";

ParseOptions parseOptionsFor(const CheckOptions& options);

/// Either a schema or the exception Avro's parser throws.
struct ParseResult {
    std::shared_ptr<const Schema> schema;
    std::optional<JavaException> failure;
    std::optional<std::size_t> nesting;  // compat::jsonNesting of the text, when the parse measured it (the quick path does)
    bool ok() const { return schema != nullptr; }
    /// True when the failure is a `SchemaParseException` (the only one Pulsar catches).
    bool isSchemaParseException() const;
};

/// Parses without caching.
ParseResult parse(std::string_view definition, const ParseOptions& options);

/// Parses through a process-wide cache keyed by (definition, options). The
/// returned schema is shared and immutable. Safe to call from several threads.
ParseResult parseCached(std::string_view definition, const ParseOptions& options);

/// compat::jsonNesting(definition) when parseCached has the definition (with
/// these options) in its cache, else nullopt. Looks up only; never parses.
std::optional<std::size_t> cachedJsonNesting(std::string_view definition, const ParseOptions& options);

/// A definition as the checker first needs it, in one cache look-up: its parse
/// and compat::jsonNesting(definition), which picks the stack the check runs on.
/// On a miss the quick path parses it (measuring the nesting) and the cache
/// keeps the schema, if it nests no deeper than kShallowNesting (this runs on
/// the caller's stack). Otherwise, and when the quick path declines, `result`
/// is empty (neither a schema nor a failure) and the nesting comes from a scan,
/// or is only known to exceed kShallowNesting: the caller parses with
/// parseCached, on the stack the nesting calls for.
struct CheckInput {
    ParseResult result;
    std::size_t nesting = 0;  // exact up to kShallowNesting; above it, a lower bound
    bool parsed() const { return result.schema != nullptr || result.failure.has_value(); }
};
CheckInput lookUpForCheck(std::string_view definition, const ParseOptions& options);

/// Empties the parse cache (benchmarks of the first sight of a definition; tests).
void clearParseCache();

/// `Schema.equals` (§4.5).
bool schemaEquals(const Schema& a, const Schema& b);

/// `Schema.toString(pretty)`: Jackson's compact or default-pretty-printer output.
std::string toJsonText(const Schema& s, NodeId id, bool pretty);
inline std::string toJsonText(const Schema& s, bool pretty) { return toJsonText(s, s.root, pretty); }

/// Jackson's `JsonNode.toString()` of a JSON value (compact).
std::string jacksonCompact(const Json& j);

/// Jackson's `JsonNode.equals`: objects order-insensitive; integers and
/// floating-point numbers never equal each other.
bool jacksonEquals(const Json& a, const Json& b);

}  // namespace cnx::compat::avro
