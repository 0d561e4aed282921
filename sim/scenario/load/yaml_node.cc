#include "sim/scenario/load/yaml_node.h"

#include <charconv>
#include <string_view>
#include <unordered_map>

#include "sim/scenario/did_you_mean.h"

namespace cnx::sim::load {

SourcePos Ctx::pos(const YamlRef& n) const {
    const YAML::Mark m = n.Mark();
    if (m.line < 0 || m.column < 0) return {file, 1, 1};
    return {file, m.line + 1, m.column + 1};
}

bool Ctx::spend(const SourcePos& at) {
    if (exhausted) return false;
    if (budget > 0) {
        --budget;
        return true;
    }
    exhausted = true;
    error(at, "the document expands to more than " + std::to_string(kNodeBudget) +
                  " nodes (through YAML aliases?); giving up");
    return false;
}

std::string_view kindOf(const YamlRef& n) {
    switch (n.kind()) {
        case YamlKind::map: return "a mapping";
        case YamlKind::sequence: return "a sequence";
        case YamlKind::scalar: return "a scalar";
        case YamlKind::null: return "null";
    }
    return "nothing";
}

void wrongType(Ctx& ctx, const Value& v, std::string_view expected) {
    ctx.error(v.pos, v.what + ": expected " + std::string(expected) + ", got " + std::string(kindOf(v.node)));
}

std::string posText(const SourcePos& p) { return std::to_string(p.line) + ":" + std::to_string(p.column); }

namespace {

Value itemValue(Ctx& ctx, const YamlRef& item, const Value& parent) {
    SourcePos p = item.IsNull() ? parent.pos : ctx.pos(item);
    return {item, p, parent.what};
}

std::optional<bool> parseBool(std::string_view s) {
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    return std::nullopt;
}

}  // namespace

std::optional<Entries> entriesOf(Ctx& ctx, const Value& v) {
    if (!v.node.IsMap()) {
        wrongType(ctx, v, "a mapping");
        return std::nullopt;
    }
    Entries out;
    out.reserve(v.node.size());
    // `out` holds the first of each key: a key already there is a duplicate.
    // A scan for the few keys of most mappings, an index (on the keys' text in
    // the tree, which does not move) past that.
    constexpr std::size_t kScanned = 16;
    std::unordered_map<std::string_view, std::size_t> index;
    auto firstOf = [&](std::string_view key) -> const Entry* {
        if (out.size() <= kScanned) {
            for (const Entry& e : out) {
                if (e.key == key) return &e;
            }
            return nullptr;
        }
        if (index.empty()) {
            for (std::size_t i = 0; i < out.size(); ++i) index.emplace(out[i].keyNode.Scalar(), i);
        }
        auto it = index.find(key);
        return it == index.end() ? nullptr : &out[it->second];
    };
    for (const auto& kv : v.node.pairs()) {
        SourcePos keyPos = kv.first.IsNull() ? v.pos : ctx.pos(kv.first);
        if (!ctx.spend(keyPos)) return std::nullopt;
        if (!kv.first.IsScalar()) {
            ctx.error(keyPos, v.what + ": keys must be scalars, got " + std::string(kindOf(kv.first)));
            continue;
        }
        const std::string& key = kv.first.Scalar();
        if (const Entry* first = firstOf(key)) {
            ctx.error(keyPos, "duplicate key " + inQuotes(key) + " (first at " + std::to_string(first->keyPos.line) +
                                  ":" + std::to_string(first->keyPos.column) + ")");
            continue;
        }
        SourcePos valuePos = kv.second.IsNull() ? keyPos : ctx.pos(kv.second);
        out.push_back({key, keyPos, {kv.second, valuePos, key}, kv.first});
        if (!index.empty()) index.emplace(key, out.size() - 1);
    }
    return out;
}

const Entry* findEntry(const Entries& entries, std::string_view key) {
    for (const Entry& e : entries) {
        if (e.key == key) return &e;
    }
    return nullptr;
}

bool rejectUnknown(Ctx& ctx, const Entries& entries, Names allowed, std::string_view where) {
    bool clean = true;
    for (const Entry& e : entries) {
        if (contains(allowed, e.key)) continue;
        ctx.error(e.keyPos,
                  "unknown key " + inQuotes(e.key) + " in " + std::string(where) + didYouMeanSuffix(e.key, allowed));
        clean = false;
    }
    return clean;
}

bool require(Ctx& ctx, const Entries& entries, std::string_view key, const SourcePos& at, std::string_view where) {
    if (findEntry(entries, key)) return true;
    ctx.error(at, "missing required key " + inQuotes(key) + " in " + std::string(where));
    return false;
}

std::optional<std::string> scalarOf(Ctx& ctx, const Value& v) {
    if (!v.node.IsScalar()) {
        wrongType(ctx, v, "a scalar");
        return std::nullopt;
    }
    return v.node.Scalar();
}

std::optional<std::string> nonEmptyScalarOf(Ctx& ctx, const Value& v) {
    auto s = scalarOf(ctx, v);
    if (s && s->empty()) {
        ctx.error(v.pos, v.what + ": must not be empty");
        return std::nullopt;
    }
    return s;
}

std::optional<std::int64_t> parseInteger(std::string_view text) {
    std::int64_t n = 0;
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return n;
}

std::optional<std::int64_t> integerOf(Ctx& ctx, const Value& v, std::int64_t min, std::int64_t max) {
    if (!v.node.IsScalar()) {
        wrongType(ctx, v, "an integer");
        return std::nullopt;
    }
    auto n = parseInteger(v.node.Scalar());
    if (!n) {
        ctx.error(v.pos, v.what + ": expected an integer, got " + inQuotes(v.node.Scalar()));
        return std::nullopt;
    }
    if (*n < min || *n > max) {
        ctx.error(v.pos, v.what + ": expected an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                             ", got " + std::to_string(*n));
        return std::nullopt;
    }
    return n;
}

std::optional<bool> boolOf(Ctx& ctx, const Value& v) {
    if (!v.node.IsScalar()) {
        wrongType(ctx, v, "a boolean");
        return std::nullopt;
    }
    auto b = parseBool(v.node.Scalar());
    if (!b) ctx.error(v.pos, v.what + ": expected a boolean (true or false), got " + inQuotes(v.node.Scalar()));
    return b;
}

std::optional<std::string> enumOf(Ctx& ctx, const Value& v, Names names, std::string_view noun) {
    auto s = scalarOf(ctx, v);
    if (!s) return std::nullopt;
    if (contains(names, *s)) return s;
    std::string suffix = didYouMeanSuffix(*s, names);
    if (suffix.empty() && names.size() <= 8) suffix = " (expected " + joined(names) + ")";
    ctx.error(v.pos, "unknown " + std::string(noun) + " " + inQuotes(*s) + suffix);
    return std::nullopt;
}

std::optional<std::vector<std::string>> scalarListOf(Ctx& ctx, const Value& v) {
    if (v.node.IsScalar()) return std::vector<std::string>{v.node.Scalar()};
    if (!v.node.IsSequence()) {
        wrongType(ctx, v, "a sequence");
        return std::nullopt;
    }
    std::vector<std::string> out;
    bool ok = true;
    for (const auto& item : v.node.items()) {
        Value iv = itemValue(ctx, item, v);
        if (!ctx.spend(iv.pos)) return std::nullopt;
        auto s = scalarOf(ctx, iv);
        if (s) out.push_back(*s);
        ok = ok && s.has_value();
    }
    if (!ok) return std::nullopt;
    return out;
}

std::optional<std::vector<Value>> sequenceOf(Ctx& ctx, const Value& v) {
    if (!v.node.IsSequence()) {
        wrongType(ctx, v, "a sequence");
        return std::nullopt;
    }
    std::vector<Value> out;
    for (const auto& item : v.node.items()) {
        out.push_back(itemValue(ctx, item, v));
        if (!ctx.spend(out.back().pos)) return std::nullopt;
    }
    return out;
}

}  // namespace cnx::sim::load
