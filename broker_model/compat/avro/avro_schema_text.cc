// Jackson JsonNode semantics, Schema.equals and Schema.toString / toJson.
#include <algorithm>
#include <cmath>
#include <set>

#include "broker_model/compat/avro/avro_schema.h"
#include "broker_model/compat/avro/json_text.h"

namespace cnx::compat::avro {

// ---- Jackson JsonNode semantics ----

std::string jacksonCompact(const Json& j) {
    JsonWriter w(false);
    w.value(j);
    return w.text();
}

bool jacksonEquals(const Json& a, const Json& b) {
    bool aInt = a.is_number_integer(), bInt = b.is_number_integer();
    if (aInt || bInt) {
        if (!(aInt && bInt)) return false;
        auto negative = [](const Json& j) { return !j.is_number_unsigned() && j.get<std::int64_t>() < 0; };
        if (negative(a) != negative(b)) return false;
        if (negative(a)) return a.get<std::int64_t>() == b.get<std::int64_t>();
        return a.get<std::uint64_t>() == b.get<std::uint64_t>();
    }
    if (a.is_number_float() && b.is_number_float()) {
        double x = a.get<double>(), y = b.get<double>();
        return (std::isnan(x) && std::isnan(y)) || x == y;  // Double.compare == 0 (±0.0 differ in Java; UNCONFIRMED)
    }
    if (a.type() != b.type()) return false;
    if (a.is_object()) {
        if (a.size() != b.size()) return false;
        for (const auto& [k, v] : a.items()) {
            auto it = b.find(k);
            if (it == b.end() || !jacksonEquals(v, *it)) return false;
        }
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (!jacksonEquals(a[i], b[i])) return false;
        }
        return true;
    }
    return a == b;
}

// ---- Schema.equals (§4.5) ----

namespace {

bool propsEqual(const Props& a, const Props& b) {  // map equality, order-insensitive
    if (a.size() != b.size()) return false;
    for (const auto& entry : a) {
        // A named element, not a structured binding: clang 14 cannot capture bindings (C++20 P1091 gap).
        auto it = std::find_if(b.begin(), b.end(), [&entry](const auto& p) { return p.first == entry.first; });
        if (it == b.end() || !jacksonEquals(entry.second, it->second)) return false;
    }
    return true;
}

bool defaultsEqual(const std::optional<Json>& a, const std::optional<Json>& b) {  // Field.defaultValueEquals
    if (!a || !b) return !a && !b;
    return jacksonEquals(*a, *b);
}

class Equality {
public:
    Equality(const Schema& a, const Schema& b) : a_(a), b_(b) {}

    bool eq(NodeId x, NodeId y) {
        const Node& n = a_.at(x);
        const Node& m = b_.at(y);
        if (n.type != m.type || !propsEqual(n.props, m.props)) return false;
        switch (n.type) {
            case Type::record: return n.name == m.name && recordFieldsEqual(x, y);
            case Type::enumeration: return n.name == m.name && n.symbols == m.symbols;
            case Type::fixed: return n.name == m.name && n.size == m.size;
            case Type::array:
            case Type::map: return eq(n.items, m.items);
            case Type::union_: return branchesEqual(n, m);
            case Type::string:
            case Type::bytes:
            case Type::int_:
            case Type::long_:
            case Type::float_:
            case Type::double_:
            case Type::boolean:
            case Type::null: return true;
        }
        return false;
    }

private:
    bool branchesEqual(const Node& n, const Node& m) {
        if (n.branches.size() != m.branches.size()) return false;
        for (std::size_t i = 0; i < n.branches.size(); ++i) {
            if (!eq(n.branches[i], m.branches[i])) return false;
        }
        return true;
    }

    // RecordSchema.equals: a pair already being compared counts as equal (SEEN_EQUALS).
    bool recordFieldsEqual(NodeId x, NodeId y) {
        if (!seen_.insert({x, y}).second) return true;
        const Node& n = a_.at(x);
        const Node& m = b_.at(y);
        if (n.fields.size() != m.fields.size()) return false;
        for (std::size_t i = 0; i < n.fields.size(); ++i) {
            const Field& f = n.fields[i];
            const Field& g = m.fields[i];
            if (f.name != g.name || !eq(f.type, g.type) || !defaultsEqual(f.defaultValue, g.defaultValue) || f.order != g.order ||
                !propsEqual(f.props, g.props)) {
                return false;
            }
        }
        return true;
    }

    const Schema& a_;
    const Schema& b_;
    std::set<std::pair<NodeId, NodeId>> seen_;
};

}  // namespace

bool schemaEquals(const Schema& a, const Schema& b) { return Equality(a, b).eq(a.root, b.root); }


// ---- Schema.toString / toJson ----

namespace {

std::string_view orderName(FieldOrder o) {
    switch (o) {
        case FieldOrder::ascending: return "ascending";
        case FieldOrder::descending: return "descending";
        case FieldOrder::ignore: return "ignore";
    }
    return "ascending";
}

bool isTypeName(std::string_view n) {
    for (Type t : {Type::record, Type::enumeration, Type::array, Type::map, Type::union_, Type::fixed, Type::string, Type::bytes,
                   Type::int_, Type::long_, Type::float_, Type::double_, Type::boolean, Type::null}) {
        if (to_string_view(t) == n) return true;
    }
    return false;
}

// Name.getQualified(defaultSpace)
std::string qualified(const Name& n, const std::string& defaultSpace) {
    bool writeFull = n.space.empty() || n.space != defaultSpace || isTypeName(n.name);
    return writeFull ? n.full : n.name;
}

class SchemaWriter {
public:
    SchemaWriter(const Schema& s, bool pretty) : s_(s), w_(pretty) {}

    std::string run(NodeId id) {
        write(id);
        return w_.text();
    }

private:
    void write(NodeId id) {
        const Node& n = s_.at(id);
        if (isNamed(n.type) && writeNameRef(id)) return;
        switch (n.type) {
            case Type::record: return writeRecord(n);
            case Type::enumeration: return writeEnum(n);
            case Type::fixed: return writeFixed(n);
            case Type::array:
            case Type::map: return writeContainer(n);
            case Type::union_: return writeUnion(n);
            case Type::string:
            case Type::bytes:
            case Type::int_:
            case Type::long_:
            case Type::float_:
            case Type::double_:
            case Type::boolean:
            case Type::null: return writePrimitive(n);
        }
    }

    bool writeNameRef(NodeId id) {
        const Name& name = s_.at(id).name;
        auto it = written_.find(name.full);
        if (it != written_.end() && it->second == id) {
            w_.string(qualified(name, space_));
            return true;
        }
        written_.emplace(name.full, id);
        return false;
    }

    void writeName(const Name& n) {
        w_.stringField("name", n.name);
        if (!n.space.empty()) {
            if (n.space != space_) w_.stringField("namespace", n.space);
        } else if (!space_.empty()) {
            w_.stringField("namespace", "");
        }
    }

    void writeProps(const Props& props) {
        for (const auto& [k, v] : props) {
            w_.fieldName(k);
            w_.value(v);
        }
    }

    void writeAliases(const Node& n) {
        if (n.aliases.empty()) return;
        w_.fieldName("aliases");
        w_.startArray();
        for (const auto& a : n.aliases) w_.string(qualified(a, n.name.space));
        w_.endArray();
    }

    void writePrimitive(const Node& n) {
        if (n.props.empty()) return w_.string(to_string_view(n.type));
        w_.startObject();
        w_.stringField("type", to_string_view(n.type));
        writeProps(n.props);
        w_.endObject();
    }

    void writeContainer(const Node& n) {
        bool array = n.type == Type::array;
        w_.startObject();
        w_.stringField("type", array ? "array" : "map");
        w_.fieldName(array ? "items" : "values");
        write(n.items);
        writeProps(n.props);
        w_.endObject();
    }

    void writeUnion(const Node& n) {
        w_.startArray();
        for (NodeId b : n.branches) write(b);
        w_.endArray();
    }

    void writeFixed(const Node& n) {
        w_.startObject();
        w_.stringField("type", "fixed");
        writeName(n.name);
        if (!n.doc.empty()) w_.stringField("doc", n.doc);
        w_.fieldName("size");
        w_.number(n.size);
        writeProps(n.props);
        writeAliases(n);
        w_.endObject();
    }

    void writeEnum(const Node& n) {
        w_.startObject();
        w_.stringField("type", "enum");
        writeName(n.name);
        if (!n.doc.empty()) w_.stringField("doc", n.doc);
        w_.fieldName("symbols");
        w_.startArray();
        for (const auto& sym : n.symbols) w_.string(sym);
        w_.endArray();
        if (n.enumDefault) w_.stringField("default", *n.enumDefault);
        writeProps(n.props);
        writeAliases(n);
        w_.endObject();
    }

    void writeRecord(const Node& n) {
        std::string saved = space_;
        w_.startObject();
        w_.stringField("type", n.isError ? "error" : "record");
        writeName(n.name);
        space_ = n.name.space;
        if (!n.doc.empty()) w_.stringField("doc", n.doc);
        w_.fieldName("fields");
        w_.startArray();
        for (const Field& f : n.fields) writeField(f);
        w_.endArray();
        writeProps(n.props);
        writeAliases(n);
        w_.endObject();
        space_ = saved;
    }

    void writeField(const Field& f) {
        w_.startObject();
        w_.stringField("name", f.name);
        w_.fieldName("type");
        write(f.type);
        if (!f.doc.empty()) w_.stringField("doc", f.doc);
        if (f.defaultValue) {
            w_.fieldName("default");
            w_.value(*f.defaultValue);
        }
        if (f.order != FieldOrder::ascending) w_.stringField("order", orderName(f.order));
        if (!f.aliases.empty()) {
            w_.fieldName("aliases");
            w_.startArray();
            for (const auto& a : f.aliases) w_.string(a);
            w_.endArray();
        }
        writeProps(f.props);
        w_.endObject();
    }

    const Schema& s_;
    JsonWriter w_;
    std::string space_;
    std::unordered_map<std::string, NodeId> written_;
};

}  // namespace

std::string toJsonText(const Schema& s, NodeId id, bool pretty) { return SchemaWriter(s, pretty).run(id); }

}  // namespace cnx::compat::avro
