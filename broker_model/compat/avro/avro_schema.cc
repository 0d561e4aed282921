#include "broker_model/compat/avro/avro_schema.h"

#include <memory>
#include <mutex>
#include <type_traits>

#include "broker_model/compat/avro/avro_quick_parse.h"
#include "broker_model/runtime/large_stack.h"


// The parser is in avro_parse.cc, the graph summaries in avro_schema_graph.cc,
// Jackson node semantics, Schema.equals and Schema.toString in avro_schema_text.cc.

namespace cnx::compat::avro {

std::string_view to_string_view(Type t) {
    switch (t) {
        case Type::record: return "record";
        case Type::enumeration: return "enum";
        case Type::array: return "array";
        case Type::map: return "map";
        case Type::union_: return "union";
        case Type::fixed: return "fixed";
        case Type::string: return "string";
        case Type::bytes: return "bytes";
        case Type::int_: return "int";
        case Type::long_: return "long";
        case Type::float_: return "float";
        case Type::double_: return "double";
        case Type::boolean: return "boolean";
        case Type::null: return "null";
    }
    return "?";
}

bool isPrimitive(Type t) {
    switch (t) {
        case Type::string:
        case Type::bytes:
        case Type::int_:
        case Type::long_:
        case Type::float_:
        case Type::double_:
        case Type::boolean:
        case Type::null: return true;
        case Type::record:
        case Type::enumeration:
        case Type::array:
        case Type::map:
        case Type::union_:
        case Type::fixed: return false;
    }
    return false;
}

const Field* Node::field(std::string_view n) const {
    const auto& slots = fieldIndex.slots;
    if (slots.empty()) return nullptr;
    const std::size_t mask = slots.size() - 1;
    for (std::size_t h = CompactSchema::hashName(n) & mask; slots[h] != 0; h = (h + 1) & mask) {
        const Field& f = fields[slots[h] - 1];
        if (f.name == n) return &f;
    }
    return nullptr;
}

void CompactSchema::allocate(const Sizes& sizes) {
    std::size_t total = 0;
    auto place = [&total](auto& table, std::size_t count) {
        using T = std::remove_reference_t<decltype(table[0])>;
        static_assert(std::is_trivially_destructible_v<T>);
        total = (total + alignof(T) - 1) / alignof(T) * alignof(T);
        std::size_t offset = total;
        total += count * sizeof(T);
        table.size_ = static_cast<std::uint32_t>(count);
        return offset;
    };
    const std::size_t at[] = {place(nodes, sizes.nodes),     place(fields, sizes.fields),   place(branches, sizes.branches),
                              place(slots, sizes.slots),     place(symbols, sizes.symbols), place(names, sizes.nameBytes),
                              place(definition, sizes.definitionBytes)};
    storage_.reset(total == 0 ? nullptr : new std::byte[total]);  // each table is constructed below
    std::byte* base = storage_.get();
    auto construct = [base](auto& table, std::size_t offset, bool valueInit) {
        using T = std::remove_reference_t<decltype(table[0])>;
        table.data_ = base == nullptr ? nullptr : reinterpret_cast<T*>(base + offset);
        if (table.data_ == nullptr) return;
        if (valueInit) std::uninitialized_value_construct_n(table.data_, table.size_);
        else std::uninitialized_default_construct_n(table.data_, table.size_);
    };
    construct(nodes, at[0], true);
    construct(fields, at[1], true);
    construct(branches, at[2], true);
    construct(slots, at[3], true);
    construct(symbols, at[4], true);
    // The texts are left as they are: the parsers write every byte of them.
    construct(names, at[5], false);
    construct(definition, at[6], false);
}

ParseOptions parseOptionsFor(const CheckOptions& options) {
    // §4.5: the `$`-tolerant name validator exists only in Pulsar 4.2 (Avro 1.12 line).
    return {options.avro, options.avroNamesAllowDollar && options.avro == AvroVersion::v1_12_0, options.fastPaths};
}

bool ParseResult::isSchemaParseException() const {
    return failure && failure->cls == exception_class::kAvroSchemaParse;
}


namespace {

// Four independent multiply-rotate lanes over 8-byte words (xxHash64's round),
// so the hash of a definition costs a fraction of libstdc++'s one-lane
// Murmur (which dominated the lookup of small definitions).
std::uint64_t hashText(std::string_view t) {
    constexpr std::uint64_t k1 = 0x9E3779B185EBCA87ULL, k2 = 0xC2B2AE3D27D4EB4FULL, k3 = 0x165667B19E3779F9ULL;
    auto load = [](const char* p) {
        std::uint64_t v;
        std::memcpy(&v, p, sizeof v);
        return v;
    };
    auto round = [&](std::uint64_t acc, std::uint64_t v) {
        acc += v * k2;
        acc = (acc << 31) | (acc >> 33);
        return acc * k1;
    };
    const char* p = t.data();
    std::size_t n = t.size();
    std::uint64_t a = k1 + k2, b = k2, c = 0, d = 0 - k1;
    while (n >= 32) {
        a = round(a, load(p));
        b = round(b, load(p + 8));
        c = round(c, load(p + 16));
        d = round(d, load(p + 24));
        p += 32;
        n -= 32;
    }
    std::uint64_t h = ((a << 1) | (a >> 63)) + ((b << 7) | (b >> 57)) + ((c << 12) | (c >> 52)) + ((d << 18) | (d >> 46));
    h += t.size() * k3;
    while (n >= 8) {
        h = round(h, load(p));
        p += 8;
        n -= 8;
    }
    while (n > 0) {
        h = (h ^ (static_cast<unsigned char>(*p++) * k3)) * k1;
        --n;
    }
    h ^= h >> 33;
    h *= k2;
    h ^= h >> 29;
    h *= k3;
    return h ^ (h >> 32);
}

// Long definitions are hashed on a sample (length, head, tail and 64 strided
// 8-byte windows), so a lookup costs O(1) hashing plus one memcmp on a hit;
// texts of a history differ near their ends, which the tail covers.
std::size_t hashKey(char options, std::string_view t) {
    constexpr std::size_t kSmall = 1024, kEdge = 256, kSamples = 64, kWindow = 8;
    std::size_t h = std::hash<std::size_t>{}(t.size() * 131 + static_cast<unsigned char>(options));
    auto mix = [&h](std::string_view part) { h ^= hashText(part) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    if (t.size() <= kSmall) {
        mix(t);
        return h;
    }
    mix(t.substr(0, kEdge));
    mix(t.substr(t.size() - kEdge));
    std::size_t step = (t.size() - kWindow) / kSamples;
    for (std::size_t i = 0; i < kSamples; ++i) mix(t.substr(i * step, kWindow));
    return h;
}

// The fast-paths bit keeps the two apart: with fast paths off, no quickly
// parsed schema (nodes deferred) is ever handed out, even from the cache.
char optionsByte(const ParseOptions& o) {
    return static_cast<char>(static_cast<int>(o.version) * 4 + (o.namesAllowDollar ? 2 : 0) + (enabled(o.fastPaths) ? 1 : 0));
}

// The parse cache's key: parser switches + definition text, with its hash,
// computed once per look-up (the find and an insertion after a miss share it).
// Lookups use a view, so a hit neither copies nor allocates.
struct CacheKeyView {
    char options;
    std::string_view text;
    std::size_t hash;
};

CacheKeyView keyOf(std::string_view definition, const ParseOptions& options) {
    char o = optionsByte(options);
    return {o, definition, hashKey(o, definition)};
}

// A stored key. Its text is a view of the entry's schema's definition when
// the schema keeps one (a quick parse), else a copy of its own.
struct CacheKey {
    char options;
    std::size_t hash;
    std::string owned;
    std::string_view borrowed;
    bool isBorrowed;
    std::string_view text() const { return isBorrowed ? borrowed : std::string_view(owned); }
    operator CacheKeyView() const { return {options, text(), hash}; }
};

struct CacheKeyHash {
    using is_transparent = void;
    std::size_t operator()(const CacheKeyView& k) const { return k.hash; }
    std::size_t operator()(const CacheKey& k) const { return k.hash; }
};

struct CacheKeyEqual {
    using is_transparent = void;
    bool operator()(const CacheKeyView& a, const CacheKeyView& b) const { return a.options == b.options && a.text == b.text; }
    bool operator()(const CacheKey& a, const CacheKeyView& b) const { return (*this)(CacheKeyView(a), b); }
    bool operator()(const CacheKeyView& a, const CacheKey& b) const { return (*this)(a, CacheKeyView(b)); }
    bool operator()(const CacheKey& a, const CacheKey& b) const { return (*this)(CacheKeyView(a), CacheKeyView(b)); }
};

// One entry per (definition, options): the parse and, once asked for, the
// definition's JSON nesting (compat::jsonNesting), which the checker reads
// before every check to pick the stack it runs on.
constexpr std::size_t kNestingUnknown = static_cast<std::size_t>(-1);
struct CacheEntry {
    ParseResult result;
    std::size_t nesting = kNestingUnknown;
};

std::mutex& cacheMutex() {
    static std::mutex mu;
    return mu;
}

std::unordered_map<CacheKey, CacheEntry, CacheKeyHash, CacheKeyEqual>& cache() {
    static std::unordered_map<CacheKey, CacheEntry, CacheKeyHash, CacheKeyEqual> entries;
    return entries;
}

// Puts a parse into the cache (kept if another thread put one there first).
void remember(const CacheKeyView& key, const ParseResult& r) {
    constexpr std::size_t kMaxEntries = 1 << 16;
    std::lock_guard<std::mutex> lock(cacheMutex());
    if (cache().size() >= kMaxEntries) cache().clear();
    // The schema's own copy of the text, when it keeps one, is the key's text.
    std::string_view kept = r.schema ? r.schema->definition() : std::string_view();
    bool borrow = !kept.empty() && kept == key.text;
    CacheKey stored{key.options, key.hash, borrow ? std::string() : std::string(key.text), borrow ? kept : std::string_view(), borrow};
    cache().emplace(std::move(stored), CacheEntry{r, r.nesting ? *r.nesting : kNestingUnknown});
}

// The cache's entry for `key` with its nesting, or nullopt. An entry that
// parseCached made without measuring the nesting gets it now, by one scan
// (outside the lock), kept for every later look-up.
std::optional<CheckInput> cachedInput(const CacheKeyView& key) {
    CheckInput in;
    {
        std::lock_guard<std::mutex> lock(cacheMutex());
        auto it = cache().find(key);
        if (it == cache().end()) return std::nullopt;
        in.result = it->second.result;
        if (it->second.nesting != kNestingUnknown) {
            in.nesting = it->second.nesting;
            return in;
        }
    }
    in.nesting = jsonNesting(key.text);
    std::lock_guard<std::mutex> lock(cacheMutex());
    auto it = cache().find(key);
    if (it != cache().end()) it->second.nesting = in.nesting;
    return in;
}

}  // namespace

ParseResult parseCached(std::string_view definition, const ParseOptions& options) {
    CacheKeyView key = keyOf(definition, options);
    {
        std::lock_guard<std::mutex> lock(cacheMutex());
        auto it = cache().find(key);
        if (it != cache().end()) return it->second.result;
    }
    ParseResult r = parse(definition, options);
    remember(key, r);
    return r;
}

CheckInput lookUpForCheck(std::string_view definition, const ParseOptions& options) {
    CacheKeyView key = keyOf(definition, options);
    if (auto in = cachedInput(key)) return *in;
    // On the caller's stack: the quick path reads at most kShallowNesting levels
    // here; a deeper definition is parsed on the checker's stack, by parseCached.
    CheckInput in;
    std::size_t nesting = 0;
    if (!enabled(options.fastPaths)) {  // the full parser's, on the stack the nesting picks
        in.nesting = jsonNesting(definition);
        return in;
    }
    if (auto quick = quickParse(definition, options, &nesting, kShallowNesting)) {
        in.result.schema = std::move(quick);
        in.result.nesting = nesting;
        in.nesting = nesting;
        remember(key, in.result);
        return in;
    }
    // Declined: the full parser's, on the stack the nesting picks. A decline for
    // depth already says the check needs the deep stack; no scan then.
    in.nesting = nesting > kShallowNesting ? nesting : jsonNesting(definition);
    return in;
}

void clearParseCache() {
    std::lock_guard<std::mutex> lock(cacheMutex());
    // A cleared map keeps its buckets, and the next clear costs their number:
    // a large table is dropped, a small one kept (as a running broker keeps it).
    if (cache().bucket_count() > 1024) cache() = {};
    else cache().clear();
}

std::optional<std::size_t> cachedJsonNesting(std::string_view definition, const ParseOptions& options) {
    if (auto in = cachedInput(keyOf(definition, options))) return in->nesting;
    return std::nullopt;
}

}  // namespace cnx::compat::avro
