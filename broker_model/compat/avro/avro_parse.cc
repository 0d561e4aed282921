// Schema.Parser: the JSON tree of a definition to the Schema graph.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

#include "broker_model/compat/avro/avro_schema.h"
#include "broker_model/compat/avro/avro_schema_graph.h"
#include "broker_model/compat/avro/json_text.h"
#include "broker_model/compat/json/json_nesting.h"

// Implementation note: the parser is recursive descent over the JSON tree and
// mirrors Avro Java's throw points. It unwinds with a private C++ exception
// that never leaves this file: parse() turns it into a value (ParseResult).

namespace cnx::compat::avro {

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

}  // namespace cnx::compat::avro
