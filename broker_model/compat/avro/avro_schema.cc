#include "broker_model/compat/avro/avro_schema.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "broker_model/compat/avro/json_text.h"
#include "broker_model/compat/json/json_nesting.h"

// Implementation note: the parser is recursive descent over the JSON tree and
// mirrors Avro Java's throw points. It unwinds with a private C++ exception
// that never leaves this file: parse() turns it into a value (ParseResult).

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

bool isNamed(Type t) { return t == Type::record || t == Type::enumeration || t == Type::fixed; }

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
    auto it = fieldIndex.find(n);
    return it == fieldIndex.end() ? nullptr : &fields[it->second];
}

ParseOptions parseOptionsFor(const CheckOptions& options) {
    // §4.5: the `$`-tolerant name validator exists only in Pulsar 4.2 (Avro 1.12 line).
    return {options.avro, options.avroNamesAllowDollar && options.avro == AvroVersion::v1_12_0};
}

bool ParseResult::isSchemaParseException() const {
    return failure && failure->cls == exception_class::kAvroSchemaParse;
}

namespace {


struct Thrown {
    JavaException e;
};

[[noreturn]] void throwParse(std::string msg) { throw Thrown{{std::string(exception_class::kAvroSchemaParse), std::move(msg)}}; }
[[noreturn]] void throwAs(std::string_view cls, std::string msg) { throw Thrown{{std::string(cls), std::move(msg)}}; }

bool versionAtLeast(AvroVersion v, AvroVersion min) { return static_cast<int>(v) >= static_cast<int>(min); }

std::optional<Type> primitiveType(std::string_view s) {
    static constexpr std::array<std::pair<std::string_view, Type>, 8> kPrimitives{{
        {"string", Type::string},
        {"bytes", Type::bytes},
        {"int", Type::int_},
        {"long", Type::long_},
        {"float", Type::float_},
        {"double", Type::double_},
        {"boolean", Type::boolean},
        {"null", Type::null},
    }};
    for (const auto& [n, t] : kPrimitives) {
        if (n == s) return t;
    }
    return std::nullopt;
}

bool isAsciiLetter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Java Character.isLetter / isLetterOrDigit, approximated: every non-ASCII
// UTF-8 byte counts as a letter (UNCONFIRMED for non-letter code points).
bool isNameStart(unsigned char c, bool dollar) { return isAsciiLetter(c) || c == '_' || c >= 0x80 || (dollar && c == '$'); }
bool isNamePart(unsigned char c, bool dollar) { return isNameStart(c, dollar) || (c >= '0' && c <= '9'); }

// Schema.validateName (1.8–1.11) / NameValidator.UTF_VALIDATOR (1.12).
const std::string& validateName(const std::string& name, bool dollar) {
    if (name.empty()) throwParse("Empty name");
    if (!isNameStart(static_cast<unsigned char>(name[0]), dollar)) throwParse("Illegal initial character: " + name);
    for (std::size_t i = 1; i < name.size(); ++i) {
        if (!isNamePart(static_cast<unsigned char>(name[i]), dollar)) throwParse("Illegal character in: " + name);
    }
    return name;
}

// Jackson `textValue()`: the string of a text node, else null.
std::optional<std::string> textValue(const Json* j) {
    if (j == nullptr || !j->is_string()) return std::nullopt;
    return j->get<std::string>();
}

const Json* member(const Json& j, std::string_view key) {
    if (!j.is_object()) return nullptr;
    auto it = j.find(std::string(key));
    return it == j.end() ? nullptr : &*it;
}

std::string listToString(const std::vector<std::string>& v) {  // java.util.List.toString
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) out += ", ";
        out += v[i];
    }
    return out + "]";
}

std::string upperTypeName(Type t) {  // Schema.Type enum constant name
    std::string s(to_string_view(t));
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// Java Double.valueOf for the textual float/double default conversion.
std::optional<double> javaDoubleValueOf(std::string text) {
    auto b = text.find_first_not_of(" \t\n\r\f\v");
    if (b == std::string::npos) return std::nullopt;
    text = text.substr(b, text.find_last_not_of(" \t\n\r\f\v") - b + 1);
    std::string body = text;
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) body = body.substr(1);
    if (body == "NaN") return std::nan("");
    if (body == "Infinity") return text[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    if (body.empty() || !(std::isdigit(static_cast<unsigned char>(body[0])) || body[0] == '.')) return std::nullopt;
    char last = text.back();
    if (last == 'd' || last == 'D' || last == 'f' || last == 'F') text.pop_back();
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (end == nullptr || *end != '\0') return std::nullopt;
    return d;
}

class Parser {
public:
    Parser(Schema& s, const ParseOptions& o) : s_(s), opt_(o) {}

    NodeId parse(const Json* j) {
        if (j == nullptr) throwParse("Cannot parse <null> schema");
        if (j->is_string()) return parseReference(j->get<std::string>(), *j);
        if (j->is_object()) return parseObject(*j);
        if (j->is_array()) return parseUnion(*j);
        throwParse("Schema not yet supported: " + jacksonCompact(*j));
    }

private:
    bool dollar() const { return opt_.namesAllowDollar; }
    bool avro19() const { return versionAtLeast(opt_.version, AvroVersion::v1_9_1); }

    Name makeName(const std::string& n, std::string space) {
        Name out;
        auto dot = n.rfind('.');
        if (dot == std::string::npos) {
            out.name = validateName(n, dollar());
        } else {
            space = n.substr(0, dot);
            out.name = validateName(n.substr(dot + 1), dollar());
        }
        out.space = space;
        out.full = space.empty() ? out.name : space + "." + out.name;
        return out;
    }

    NodeId add(Node n) {
        s_.nodes.push_back(std::move(n));
        return static_cast<NodeId>(s_.nodes.size() - 1);
    }

    NodeId newPrimitive(Type t) {
        Node n;
        n.type = t;
        return add(std::move(n));
    }

    NodeId newNamed(Type t, Name name, std::string doc) {
        if (primitiveType(name.full)) throwAs(kAvroTypeException, "Schemas may not be named after primitives: " + name.full);
        Node n;
        n.type = t;
        n.name = std::move(name);
        n.doc = std::move(doc);
        return add(std::move(n));
    }

    void defineName(NodeId id) {  // Names.put
        const Name& n = s_.nodes[id].name;
        if (!names_.emplace(n.full, id).second) throwParse("Can't redefine: " + n.full);
    }

    // Names.get(String): primitives first, then the current namespace, then the null one.
    std::optional<NodeId> lookup(const std::string& ref) {
        if (auto p = primitiveType(ref)) return newPrimitive(*p);
        Name n = makeName(ref, space_);
        auto it = names_.find(n.full);
        if (it == names_.end()) it = names_.find(makeName(ref, "").full);
        if (it == names_.end()) return std::nullopt;
        return it->second;
    }

    NodeId parseReference(const std::string& ref, const Json& j) {
        auto id = lookup(ref);
        if (!id) throwParse("Undefined name: " + jacksonCompact(j));
        return *id;
    }

    std::string requiredText(const Json& j, std::string_view key, std::string_view error) {
        auto t = textValue(member(j, key));
        if (!t) throwParse(std::string(error) + ": " + jacksonCompact(j));
        return *t;
    }

    NodeId parseObject(const Json& j) {
        std::string type = requiredText(j, "type", "No type");
        std::string saved = space_;
        bool isError = type == "error", isRecord = type == "record", isEnum = type == "enum", isFixed = type == "fixed";
        Name name;
        std::string doc;
        if (isRecord || isError || isEnum || isFixed) {
            auto space = textValue(member(j, "namespace"));
            doc = textValue(member(j, "doc")).value_or("");
            name = makeName(requiredText(j, "name", "No name in schema"), space ? *space : saved);
            space_ = name.space;
        }
        NodeId id;
        if (auto p = primitiveType(type)) {
            id = newPrimitive(*p);
        } else if (isRecord || isError) {
            id = parseRecord(j, name, doc, isError);
        } else if (isEnum) {
            id = parseEnum(j, name, doc);
        } else if (type == "array" || type == "map") {
            id = parseContainer(j, type == "array");
        } else if (isFixed) {
            id = parseFixed(j, name, doc);
        } else {
            // A named type used as {"type": "Name"}: current namespace only, props ignored.
            auto it = names_.find(makeName(type, space_).full);
            if (it != names_.end()) return it->second;
            throwParse("Type not supported: " + type);
        }
        addProps(s_.nodes[id].props, j, isEnum && avro19() ? kEnumReserved : kSchemaReserved);
        space_ = saved;
        if (isNamed(s_.nodes[id].type)) addTypeAliases(id, j);
        return id;
    }

    NodeId parseRecord(const Json& j, const Name& name, const std::string& doc, bool isError) {
        NodeId id = newNamed(Type::record, name, doc);
        s_.nodes[id].isError = isError;
        defineName(id);
        const Json* fieldsNode = member(j, "fields");
        if (fieldsNode == nullptr || !fieldsNode->is_array()) throwParse("Record has no fields: " + jacksonCompact(j));
        std::vector<Field> fields;
        fields.reserve(fieldsNode->size());
        for (const Json& f : *fieldsNode) fields.push_back(parseField(f));
        setFields(id, std::move(fields));
        return id;
    }

    Field parseField(const Json& f) {
        Field field;
        field.name = requiredText(f, "name", "No field name");
        field.doc = textValue(member(f, "doc")).value_or("");
        const Json* typeNode = member(f, "type");
        if (typeNode == nullptr) throwParse("No field type: " + jacksonCompact(f));
        if (typeNode->is_string() && !lookup(typeNode->get<std::string>())) {
            throwParse(jacksonCompact(*typeNode) + " is not a defined name. The type of the \"" + field.name +
                       "\" field must be a defined name or a {\"type\": ...} expression.");
        }
        field.type = parse(typeNode);
        field.order = parseOrder(member(f, "order"));
        field.defaultValue = parseDefault(member(f, "default"), s_.nodes[field.type].type);
        validateName(field.name, dollar());
        addProps(field.props, f, kFieldReserved);
        field.aliases = parseAliases(f);
        return field;
    }

    FieldOrder parseOrder(const Json* o) {
        if (o == nullptr) return FieldOrder::ascending;
        auto t = textValue(o);
        if (!t) throwAs(kNullPointerException, "");  // orderNode.textValue().toUpperCase() on a non-text node
        std::string u = *t;
        for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (u == "ASCENDING") return FieldOrder::ascending;
        if (u == "DESCENDING") return FieldOrder::descending;
        if (u == "IGNORE") return FieldOrder::ignore;
        throwAs("java.lang.IllegalArgumentException", "No enum constant org.apache.avro.Schema.Field.Order." + u);
    }

    // Defaults are kept as parsed (validation off, §6.3), except that a textual
    // default of a float/double field becomes a double (Double.valueOf).
    std::optional<Json> parseDefault(const Json* d, Type fieldType) {
        if (d == nullptr) return std::nullopt;
        if ((fieldType == Type::float_ || fieldType == Type::double_) && d->is_string()) {
            auto text = d->get<std::string>();
            auto v = javaDoubleValueOf(text);
            if (!v) throwAs("java.lang.NumberFormatException", text.empty() ? "empty String" : "For input string: \"" + text + "\"");
            return Json(*v);
        }
        return *d;
    }

    void setFields(NodeId id, std::vector<Field> fields) {  // RecordSchema.setFields
        Node& n = s_.nodes[id];
        n.fieldIndex.reserve(fields.size() * 2);
        for (std::uint32_t i = 0; i < fields.size(); ++i) {
            auto [it, inserted] = n.fieldIndex.emplace(fields[i].name, i);
            if (!inserted) {
                const Field& old = fields[it->second];
                throwAs(exception_class::kAvroRuntime,
                        "Duplicate field " + fields[i].name + " in record " + n.name.full + ": " + fieldToString(fields[i], i) +
                            " and " + fieldToString(old, it->second) + ".");
            }
        }
        n.fields = std::move(fields);
    }

    std::string fieldToString(const Field& f, std::uint32_t pos) const {
        return f.name + " type:" + upperTypeName(s_.nodes[f.type].type) + " pos:" + std::to_string(pos);
    }

    NodeId parseEnum(const Json& j, const Name& name, const std::string& doc) {
        const Json* symbolsNode = member(j, "symbols");
        if (symbolsNode == nullptr || !symbolsNode->is_array()) throwParse("Enum has no symbols: " + jacksonCompact(j));
        std::optional<std::string> enumDefault = avro19() ? textValue(member(j, "default")) : std::nullopt;
        NodeId id = newNamed(Type::enumeration, name, doc);
        std::vector<std::string> symbols;
        std::set<std::string> seen;
        for (const Json& sym : *symbolsNode) {
            auto t = textValue(&sym);
            if (!t) throwParse("Null name");
            if (!seen.insert(validateName(*t, dollar())).second) throwParse("Duplicate enum symbol: " + *t);
            symbols.push_back(*t);
        }
        if (enumDefault && !seen.count(*enumDefault)) {
            throwParse("The Enum Default: " + *enumDefault + " is not in the enum symbol set: " + listToString(symbols));
        }
        s_.nodes[id].symbols = std::move(symbols);
        s_.nodes[id].enumDefault = enumDefault;
        defineName(id);
        return id;
    }

    NodeId parseContainer(const Json& j, bool isArray) {
        const Json* inner = member(j, isArray ? "items" : "values");
        if (inner == nullptr) {
            throwParse(std::string(isArray ? "Array has no items type: " : "Map has no values type: ") + jacksonCompact(j));
        }
        NodeId items = parse(inner);
        Node n;
        n.type = isArray ? Type::array : Type::map;
        n.items = items;
        return add(std::move(n));
    }

    NodeId parseFixed(const Json& j, const Name& name, const std::string& doc) {
        const Json* sizeNode = member(j, "size");
        bool isInt = sizeNode != nullptr && sizeNode->is_number_integer() && sizeNode->get<std::int64_t>() >= INT32_MIN &&
                     sizeNode->get<std::int64_t>() <= INT32_MAX;
        if (!isInt) throwParse("Invalid or no size: " + jacksonCompact(j));
        NodeId id = newNamed(Type::fixed, name, doc);
        s_.nodes[id].size = sizeNode->get<std::int64_t>();
        defineName(id);
        return id;
    }

    NodeId parseUnion(const Json& j) {
        std::vector<NodeId> branches;
        branches.reserve(j.size());
        for (const Json& b : j) branches.push_back(parse(&b));
        Node n;
        n.type = Type::union_;
        n.branches = branches;
        NodeId id = add(std::move(n));
        std::set<std::string> seen;
        for (NodeId b : branches) {
            const Node& bn = s_.nodes[b];
            if (bn.type == Type::union_) throwAs(exception_class::kAvroRuntime, "Nested union: " + toJsonText(s_, id, false));
            std::string full = isNamed(bn.type) ? bn.name.full : std::string(to_string_view(bn.type));
            if (!seen.insert(full).second) throwAs(exception_class::kAvroRuntime, "Duplicate in union:" + full);
        }
        return id;
    }

    std::vector<std::string> parseAliases(const Json& j) {
        const Json* a = member(j, "aliases");
        std::vector<std::string> out;
        if (a == nullptr) return out;
        if (!a->is_array()) throwParse("aliases not an array: " + jacksonCompact(j));
        for (const Json& alias : *a) {
            if (!alias.is_string()) throwParse("alias not a string: " + jacksonCompact(alias));
            auto s = alias.get<std::string>();
            if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);  // LinkedHashSet
        }
        return out;
    }

    void addTypeAliases(NodeId id, const Json& j) {
        for (const auto& alias : parseAliases(j)) {
            Name n = makeName(alias, s_.nodes[id].name.space);
            auto& list = s_.nodes[id].aliases;
            if (std::find(list.begin(), list.end(), n) == list.end()) list.push_back(n);
        }
    }

    using Reserved = std::array<std::string_view, 11>;
    static constexpr Reserved kSchemaReserved{"doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type", "aliases", ""};
    static constexpr Reserved kEnumReserved{"doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type", "aliases", "default"};
    static constexpr Reserved kFieldReserved{"default", "doc", "name", "order", "type", "aliases", "", "", "", "", ""};

    static void addProps(Props& props, const Json& j, const Reserved& reserved) {
        for (const auto& [k, v] : j.items()) {
            if (k.empty() || std::find(reserved.begin(), reserved.end(), k) == reserved.end()) props.emplace_back(k, v);
        }
    }

    Schema& s_;
    const ParseOptions& opt_;
    std::unordered_map<std::string, NodeId> names_;
    std::string space_;
};

// ---- top-level JSON: Jackson reads the first value; the rest is "dangling" ----

// Returns the end offset of the first JSON value in `text` (after leading
// whitespace and comments); npos when
// the value never closes.
struct ValueExtent {
    std::size_t begin = 0;
    std::size_t end = std::string_view::npos;
};

std::size_t skipSpaceAndComments(std::string_view t, std::size_t i) {
    while (i < t.size()) {
        if (std::isspace(static_cast<unsigned char>(t[i]))) {
            ++i;
        } else if (t.compare(i, 2, "//") == 0) {
            auto nl = t.find('\n', i);
            i = nl == std::string_view::npos ? t.size() : nl + 1;
        } else if (t.compare(i, 2, "/*") == 0) {
            auto close = t.find("*/", i + 2);
            i = close == std::string_view::npos ? t.size() : close + 2;
        } else {
            break;
        }
    }
    return i;
}

std::size_t skipString(std::string_view t, std::size_t i) {  // t[i] == '"'
    for (++i; i < t.size(); ++i) {
        if (t[i] == '\\') ++i;
        else if (t[i] == '"') return i + 1;
    }
    return std::string_view::npos;
}

ValueExtent firstValue(std::string_view t) {
    ValueExtent v;
    std::size_t i = v.begin = skipSpaceAndComments(t, 0);
    if (i >= t.size()) return v;
    if (t[i] != '{' && t[i] != '[') {
        if (t[i] == '"') {
            v.end = skipString(t, i);
            return v;
        }
        while (i < t.size() && !std::isspace(static_cast<unsigned char>(t[i])) && std::string_view(",:]}{[\"/").find(t[i]) == std::string_view::npos) ++i;
        v.end = i;
        return v;
    }
    int depth = 0;
    while (i < t.size()) {
        char c = t[i];
        if (c == '"') {
            i = skipString(t, i);
            if (i == std::string_view::npos) return v;
            continue;
        }
        if (c == '/' && (t.compare(i, 2, "//") == 0 || t.compare(i, 2, "/*") == 0)) {
            i = skipSpaceAndComments(t, i);
            continue;
        }
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') {
            if (--depth == 0) {
                v.end = i + 1;
                return v;
            }
        }
        ++i;
    }
    return v;
}

std::string trimmed(std::string_view s) {
    auto b = s.find_first_not_of(" \t\n\r\f\v");
    if (b == std::string_view::npos) return {};
    return std::string(s.substr(b, s.find_last_not_of(" \t\n\r\f\v") - b + 1));
}

// Jackson's JsonParseException text cannot be reproduced exactly: the class is
// right, the sentence is nlohmann's (UNCONFIRMED wording).
JavaException jsonSyntaxError(const std::string& what) {
    return {std::string(exception_class::kAvroSchemaParse), "com.fasterxml.jackson.core.JsonParseException: " + what};
}

JavaException jacksonTooDeep() {
    return {std::string(exception_class::kAvroSchemaParse), jacksonNestingMessage()};
}

std::optional<JavaException> readJson(std::string_view text, const ParseOptions& opt, std::optional<Json>& out) {
    ValueExtent v = firstValue(text);
    if (v.begin >= text.size()) return std::nullopt;  // no content: readTree returns null
    std::string_view valueText = v.end == std::string_view::npos ? text.substr(v.begin) : text.substr(v.begin, v.end - v.begin);
    // Jackson 2.15+ StreamReadConstraints (UNCONFIRMED per Avro version: older
    // Jacksons have no limit and overflow the stack somewhere deeper).
    if (jsonNestsDeeperThan(valueText, kMaxJsonNesting, /*comments=*/true)) return jacksonTooDeep();
    try {
        out = Json::parse(valueText, nullptr, true, true);
    } catch (const Json::exception& e) {
        return jsonSyntaxError(e.what());
    }
    // Dangling-content check: present in the 1.11.x parser read; assumed from 1.11.3 (UNCONFIRMED for 1.9/1.10).
    if (versionAtLeast(opt.version, AvroVersion::v1_11_3) && v.end != std::string_view::npos) {
        std::string rest = trimmed(text.substr(v.end));
        if (!rest.empty()) return JavaException{std::string(exception_class::kAvroSchemaParse), "dangling content after end of schema: " + rest};
    }
    return std::nullopt;
}

}  // namespace

namespace {

// Iterative three-colour DFS over the node graph: true iff a cycle is reachable from the root.
bool hasCycle(const Schema& s) {
    std::vector<char> colour(s.nodes.size(), 0);
    std::vector<std::pair<NodeId, std::size_t>> stack;  // node, next edge
    auto edge = [&s](NodeId id, std::size_t i, NodeId& out) {
        const Node& n = s.at(id);
        if (i < n.fields.size()) return out = n.fields[i].type, true;
        i -= n.fields.size();
        if (i < n.branches.size()) return out = n.branches[i], true;
        if (i == n.branches.size() && (n.type == Type::array || n.type == Type::map)) return out = n.items, true;
        return false;
    };
    colour[s.root] = 1;
    stack.emplace_back(s.root, 0);
    while (!stack.empty()) {
        auto& [id, next] = stack.back();
        NodeId child = 0;
        if (!edge(id, next++, child)) {
            colour[id] = 2;
            stack.pop_back();
            continue;
        }
        if (colour[child] == 1) return true;
        if (colour[child] == 0) {
            colour[child] = 1;
            stack.emplace_back(child, 0);
        }
    }
    return false;
}

bool declaresAliases(const Schema& s) {
    for (const Node& n : s.nodes) {
        if (!n.aliases.empty()) return true;
        for (const Field& f : n.fields) {
            if (!f.aliases.empty()) return true;
        }
    }
    return false;
}

// Edges on the longest path of the node graph (field types, items, branches),
// or with `unionEdgesOnly` the most edges leaving union nodes on any path;
// the graph must be acyclic. Iterative: chains of named references can be long.
std::uint32_t longestPath(const Schema& s, bool unionEdgesOnly = false) {
    std::vector<std::uint32_t> depth(s.nodes.size(), 0);
    std::vector<char> done(s.nodes.size(), 0);
    std::vector<std::pair<NodeId, bool>> stack;  // node, children pushed
    auto children = [&s](NodeId id, auto&& f) {
        const Node& n = s.nodes[id];
        for (const Field& fd : n.fields) f(fd.type);
        for (NodeId b : n.branches) f(b);
        if (n.type == Type::array || n.type == Type::map) f(n.items);
    };
    std::uint32_t best = 0;
    for (NodeId start = 0; start < s.nodes.size(); ++start) {
        if (done[start]) continue;
        stack.emplace_back(start, false);
        while (!stack.empty()) {
            auto [id, expanded] = stack.back();
            if (done[id]) {
                stack.pop_back();
                continue;
            }
            if (!expanded) {
                stack.back().second = true;
                children(id, [&](NodeId c) {
                    if (!done[c]) stack.emplace_back(c, false);
                });
                continue;
            }
            stack.pop_back();
            std::uint32_t d = 0;
            std::uint32_t edge = !unionEdgesOnly || s.nodes[id].type == Type::union_ ? 1 : 0;
            children(id, [&](NodeId c) { d = std::max(d, depth[c] + edge); });
            depth[id] = d;
            done[id] = 1;
            best = std::max(best, d);
        }
    }
    return best;
}

void buildCompact(Schema& s) {
    CompactSchema& c = s.compact;
    c.nodes.resize(s.nodes.size());
    std::size_t fieldCount = 0, branchCount = 0, slotCount = 0;
    for (const Node& n : s.nodes) {
        fieldCount += n.fields.size();
        branchCount += n.branches.size();
        if (n.type == Type::record) slotCount += CompactSchema::tableSize(static_cast<std::uint32_t>(n.fields.size()));
    }
    c.fields.reserve(fieldCount);
    c.branches.reserve(branchCount);
    c.slots.assign(slotCount, 0);
    std::uint32_t slot = 0;
    for (NodeId id = 0; id < s.nodes.size(); ++id) {
        const Node& n = s.nodes[id];
        CompactSchema::CNode& cn = c.nodes[id];
        cn.type = n.type;
        if (n.type == Type::array || n.type == Type::map) cn.a = n.items;
        if (n.type == Type::union_) {
            cn.a = static_cast<std::uint32_t>(c.branches.size());
            cn.b = static_cast<std::uint32_t>(n.branches.size());
            c.branches.insert(c.branches.end(), n.branches.begin(), n.branches.end());
            auto records = std::count_if(n.branches.begin(), n.branches.end(),
                                         [&s](NodeId b) { return s.nodes[b].type == Type::record; });
            if (records >= 2) c.severalRecordBranches = true;
        }
        if (n.type != Type::record) continue;
        cn.a = static_cast<std::uint32_t>(c.fields.size());
        cn.b = static_cast<std::uint32_t>(n.fields.size());
        cn.c = slot;
        std::uint32_t size = CompactSchema::tableSize(cn.b);
        for (std::uint32_t i = 0; i < cn.b; ++i) {
            const Field& f = n.fields[i];
            CompactSchema::CField cf;
            cf.type = f.type;
            cf.hash = CompactSchema::hashName(f.name);
            cf.nameOff = static_cast<std::uint32_t>(c.names.size());
            cf.nameLen = static_cast<std::uint32_t>(f.name.size());
            c.names += f.name;
            if (f.defaultValue) {
                cf.flags |= CompactSchema::kHasDefault;
                const Node& t = s.nodes[f.type];
                bool nullable = t.type == Type::null || (t.type == Type::union_ && !t.branches.empty() &&
                                                         s.nodes[t.branches[0]].type == Type::null);
                if (nullable && f.defaultValue->is_null()) cf.flags |= CompactSchema::kNullDefaultOnNullable;
            }
            std::uint32_t h = cf.hash & (size - 1);
            while (c.slots[slot + h] != 0) h = (h + 1) & (size - 1);
            c.slots[slot + h] = i + 1;
            c.fields.push_back(cf);
        }
        slot += size;
    }
    if (!s.recursive) {
        c.maxDepth = longestPath(s);
        c.maxUnionDepth = longestPath(s, true);
    }
    c.ready = true;
}

}  // namespace

ParseResult parse(std::string_view definition, const ParseOptions& options) {
    ParseResult r;
    std::optional<Json> json;
    if (auto err = readJson(definition, options, json)) {
        r.failure = std::move(err);
        return r;
    }
    auto schema = std::make_shared<Schema>();
    schema->nodes.reserve(definition.size() / 24 + 4);  // rough node count: avoids re-moving nodes while growing
    try {
        Parser p(*schema, options);
        schema->root = p.parse(json ? &*json : nullptr);
    } catch (const Thrown& t) {
        r.failure = t.e;
        return r;
    }
    schema->recursive = hasCycle(*schema);
    schema->hasAliases = declaresAliases(*schema);
    buildCompact(*schema);
    r.schema = std::move(schema);
    return r;
}

namespace {

// The parse cache's key: parser switches + definition text. Lookups use a
// view, so a hit neither copies nor allocates.
struct CacheKeyView {
    char options;
    std::string_view text;
};

struct CacheKey {
    char options;
    std::string text;
    operator CacheKeyView() const { return {options, text}; }
};

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
struct CacheKeyHash {
    using is_transparent = void;
    std::size_t operator()(const CacheKeyView& k) const {
        std::string_view t = k.text;
        constexpr std::size_t kSmall = 1024, kEdge = 256, kSamples = 64, kWindow = 8;
        std::size_t h = std::hash<std::size_t>{}(t.size() * 131 + static_cast<unsigned char>(k.options));
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
    std::size_t operator()(const CacheKey& k) const { return (*this)(CacheKeyView(k)); }
};

struct CacheKeyEqual {
    using is_transparent = void;
    bool operator()(const CacheKeyView& a, const CacheKeyView& b) const { return a.options == b.options && a.text == b.text; }
    bool operator()(const CacheKey& a, const CacheKeyView& b) const { return (*this)(CacheKeyView(a), b); }
    bool operator()(const CacheKeyView& a, const CacheKey& b) const { return (*this)(a, CacheKeyView(b)); }
    bool operator()(const CacheKey& a, const CacheKey& b) const { return (*this)(CacheKeyView(a), CacheKeyView(b)); }
};

char optionsByte(const ParseOptions& o) { return static_cast<char>(static_cast<int>(o.version) * 2 + (o.namesAllowDollar ? 1 : 0)); }

}  // namespace

ParseResult parseCached(std::string_view definition, const ParseOptions& options) {
    static std::mutex mu;
    static std::unordered_map<CacheKey, ParseResult, CacheKeyHash, CacheKeyEqual> cache;
    constexpr std::size_t kMaxEntries = 1 << 16;
    CacheKeyView key{optionsByte(options), definition};
    {
        std::lock_guard<std::mutex> lock(mu);
        auto it = cache.find(key);
        if (it != cache.end()) return it->second;
    }
    ParseResult r = parse(definition, options);
    std::lock_guard<std::mutex> lock(mu);
    if (cache.size() >= kMaxEntries) cache.clear();
    cache.emplace(CacheKey{key.options, std::string(definition)}, r);
    return r;
}

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
