#pragma once
// Internal to avro_resolve.cc (split out by concern, included there only):
// whether a reader field default encodes (ResolvingGrammarGenerator.encode).

#include "broker_model/compat/avro/avro_resolve_rules.h"

namespace cnx::compat::avro::resolve {

// ---- ResolvingGrammarGenerator.encode: the default must encode (§6.3) ----

class DefaultEncoder {
public:
    explicit DefaultEncoder(const Schema& s) : s_(s) {}

    void encode(NodeId t, const Json& v, int depth = 0) {
        if (depth > kMaxDepth) stackOverflow();
        const Node& n = s_.at(t);
        switch (n.type) {
            case Type::record: return encodeRecord(n, v, depth);
            case Type::enumeration: return encodeEnum(n, v);
            case Type::array: return encodeArray(n, v, depth);
            case Type::map: return encodeMap(n, v, depth);
            case Type::union_: return encode(n.branches.at(0), v, depth + 1);
            case Type::fixed: return require(v.is_string(), "Non-string default value for fixed: ", v);
            case Type::string: return require(v.is_string(), "Non-string default value for string: ", v);
            case Type::bytes: return require(v.is_string(), "Non-string default value for bytes: ", v);
            case Type::int_: return require(v.is_number(), "Non-numeric default value for int: ", v);
            case Type::long_: return require(v.is_number(), "Non-numeric default value for long: ", v);
            case Type::float_: return require(v.is_number(), "Non-numeric default value for float: ", v);
            case Type::double_: return require(v.is_number(), "Non-numeric default value for double: ", v);
            case Type::boolean: return require(v.is_boolean(), "Non-boolean default for boolean: ", v);
            case Type::null: return require(v.is_null(), "Non-null default value for null type: ", v);
        }
    }

private:
    static void require(bool ok, std::string_view what, const Json& v) {
        if (!ok) throw Thrown{{std::string(kAvroTypeException), std::string(what) + jacksonCompact(v)}};
    }

    void encodeRecord(const Node& n, const Json& v, int depth) {
        for (const Field& f : n.fields) {
            const Json* value = nullptr;
            if (v.is_object()) {
                auto it = v.find(f.name);
                if (it != v.end()) value = &*it;
            }
            if (value == nullptr && f.defaultValue) value = &*f.defaultValue;
            if (value == nullptr) throw Thrown{{std::string(kAvroTypeException), "No default value for: " + f.name}};
            encode(f.type, *value, depth + 1);
        }
    }

    static void encodeEnum(const Node& n, const Json& v) {
        // getEnumOrdinal(textValue()) unboxes a missing ordinal: NullPointerException (message UNCONFIRMED).
        bool known = v.is_string() && std::find(n.symbols.begin(), n.symbols.end(), v.get<std::string>()) != n.symbols.end();
        if (!known) throw Thrown{{std::string(kNullPointerException), ""}};
    }

    void encodeArray(const Node& n, const Json& v, int depth) {  // Jackson iterates array elements or object values
        if (!v.is_array() && !v.is_object()) return;
        for (const auto& item : v) encode(n.items, item, depth + 1);
    }

    void encodeMap(const Node& n, const Json& v, int depth) {  // fieldNames() of an object only
        if (!v.is_object()) return;
        for (const auto& [k, item] : v.items()) encode(n.items, item, depth + 1);
    }

    const Schema& s_;
};

}  // namespace cnx::compat::avro::resolve
