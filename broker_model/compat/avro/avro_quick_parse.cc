// The quick path of parse(): see avro_quick_parse.h for the subset it reads.
//
// One recursive descent over the text does the JSON and the Avro grammar at
// once. It mirrors the full parser (avro_parse.cc) step for step wherever a
// node is made, so that node ids agree: a record's node before its fields'
// types, an array, map or union node after what it contains, one shared node
// per primitive named by a bare string. Nodes are laid out into the compact
// tables in id order at the end, as avro_schema_graph.cc's buildCompact lays
// out the full model. Every function returns false to decline. The JSON layer
// under the grammar is in avro_quick_parse_internal.h.

#include "broker_model/compat/avro/avro_quick_parse.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "broker_model/compat/avro/avro_parse_rules.h"
#include "broker_model/compat/avro/avro_quick_parse_internal.h"

namespace cnx::compat::avro {

namespace {

using namespace parse_rules;
using namespace quick_parse;

// The Avro grammar over JsonReader.
class QuickParser : private JsonReader {
public:
    using JsonReader::nesting;

    QuickParser(std::string_view text, const ParseOptions& o, std::size_t maxNesting, Scratch& s)
        : JsonReader(text, std::min(maxNesting, kQuickMaxNesting), s), dollar_(o.namesAllowDollar),
          enumDefaults_(versionAtLeast(o.version, AvroVersion::v1_9_1)) {}

    bool run(Schema& out) {
        ws();
        if (p_ == end_ || (*p_ != '{' && *p_ != '[')) return false;
        NodeId root = kNoNode;
        if (!schema(&root, 0)) return false;
        // Jackson reads the first value; from Avro 1.11.3 anything but
        // whitespace after it is an error, before that it is ignored.
        for (; p_ != end_; ++p_) {
            char c = *p_;
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
        }
        return layOut(root, out);
    }

private:
    // ---- nodes and names (as the full parser's add / track / Names) ----

    NodeId node(Type t, std::uint32_t depth, std::uint32_t unionDepth) {
        QNode& n = s_.nodes.emplace_back();
        n.type = t;
        n.depth = depth;
        n.unionDepth = unionDepth;
        return static_cast<NodeId>(s_.nodes.size() - 1);
    }

    NodeId sharedPrimitive(Type t) {
        NodeId& made = primitives_[static_cast<std::size_t>(t)];
        if (made == 0) made = node(t, 0, 0) + 1;
        return made - 1;
    }

    std::string_view fullNameOf(NodeId id) const { return std::string_view(s_.pool).substr(s_.nodes[id].nameOff, s_.nodes[id].nameLen); }

    NodeId defined(std::string_view full) const {
        if (s_.named.size() <= kScanNames) {
            for (NodeId id : s_.named) {
                if (fullNameOf(id) == full) return id;
            }
            return kNoNode;
        }
        auto it = s_.byName.find(std::string(full));
        return it == s_.byName.end() ? kNoNode : it->second;
    }

    // Names.put of a new named node; false where the full parser throws.
    bool define(NodeId id) {
        std::string_view full = fullNameOf(id);
        if (primitiveType(full)) return false;  // "Schemas may not be named after primitives"
        if (defined(full) != kNoNode) return false;  // "Can't redefine"
        s_.named.push_back(id);
        if (s_.named.size() == kScanNames + 1) {
            for (NodeId d : s_.named) s_.byName.emplace(std::string(fullNameOf(d)), d);
        } else if (s_.named.size() > kScanNames + 1) {
            s_.byName.emplace(std::string(full), id);
        }
        return true;
    }

    // makeName(name, space) into the pool for node `id`; *newSpace is the name's namespace.
    bool makeName(NodeId id, std::string_view name, std::string_view space, std::string_view* newSpace) {
        auto dot = name.rfind('.');
        std::string_view local = name;
        if (dot != std::string_view::npos) {
            space = name.substr(0, dot);
            local = name.substr(dot + 1);
        }
        if (checkName(local, dollar_) != NameCheck::ok) return false;
        QNode& n = s_.nodes[id];
        n.nameOff = static_cast<std::uint32_t>(s_.pool.size());
        if (!space.empty()) s_.pool.append(space).append(1, '.');
        s_.pool.append(local);
        n.nameLen = static_cast<std::uint32_t>(s_.pool.size() - n.nameOff);
        nameBytes_ += n.nameLen;
        *newSpace = space;
        return true;
    }

    // Parser::findName(fullName(ref, space)).
    NodeId find(std::string_view ref, std::string_view space) {
        auto dot = ref.rfind('.');
        std::string_view local = ref;
        if (dot != std::string_view::npos) {
            space = ref.substr(0, dot);
            local = ref.substr(dot + 1);
        }
        if (checkName(local, dollar_) != NameCheck::ok) return kNoNode;  // the full parser throws: decline
        std::string& full = s_.ref;
        full.assign(space);
        if (!space.empty()) full += '.';
        full += local;
        NodeId id = defined(full);
        if (id != kNoNode && s_.nodes[id].open) recursive_ = true;  // closes a cycle
        return id;
    }

    // Names.get(String) of a bare name: a primitive, or a named type in the current namespace, then the null one.
    bool reference(std::string_view ref, NodeId* out) {
        if (auto p = primitiveType(ref)) {
            *out = sharedPrimitive(*p);
            return true;
        }
        NodeId id = find(ref, space_);
        if (id == kNoNode) id = find(ref, "");
        *out = id;
        return id != kNoNode;
    }

    // ---- the Avro grammar ----

    // Parser::parse: a schema where one is expected.
    bool schema(NodeId* out, std::size_t depth) {
        if (p_ == end_) return false;
        if (*p_ == '"') {
            std::string_view ref;
            return str(&ref) && reference(ref, out);
        }
        if (*p_ == '{') return object(out, depth + 1);
        if (*p_ == '[') return unionOf(out, depth + 1);
        return false;
    }

    // What parseObject reads of an object's members, in any order.
    struct ObjectMembers {
        std::string_view type, name, ns;
        bool haveType = false, haveName = false, haveNs = false;
        bool structural = false;  // the type's own part (fields, items, values) has been read
        std::int64_t size = 0;
        bool sizeIsInt = false;
        const char* symbols = nullptr;  // where the "symbols" value starts
        std::string_view textDefault;   // a text "default" (an enum's, from Avro 1.9)
        bool haveTextDefault = false;
        NodeId id = kNoNode;  // a record, array or map: its node, made where its structural part is read
    };

    // Parser::parseObject (aliases declined): the members, then the schema their type makes.
    bool object(NodeId* out, std::size_t depth) {
        if (!enter(depth)) return false;
        ++p_;
        ObjectMembers o;
        if (!members([&](Key c) { return objectMember(c, o, depth); })) return false;
        return o.haveType && objectOf(o, out);
    }

    // One member of a schema object, the value after its key.
    bool objectMember(Key c, ObjectMembers& o, std::size_t depth) {
        switch (c) {
            case kType:
                if (o.structural || !str(&o.type)) return false;
                o.haveType = true;
                return true;
            case kName:
                if (o.structural || !str(&o.name)) return false;
                o.haveName = true;
                return true;
            case kNamespace:
                if (o.structural || !str(&o.ns)) return false;
                o.haveNs = true;
                return true;
            case kAliases: return false;
            case kFields:
            case kItems:
            case kValues: return structuralMember(c, o, depth);
            case kSymbols:
                o.symbols = p_;
                return skip(depth);
            case kDefault:
                if (!at('"')) return skip(depth);
                o.haveTextDefault = true;
                return str(&o.textDefault);
            case kSize:
                if (at('-') || (p_ != end_ && *p_ >= '0' && *p_ <= '9')) {
                    bool fits = false;
                    if (!integer(&o.size, &fits)) return false;
                    o.sizeIsInt = fits && o.size >= INT32_MIN && o.size <= INT32_MAX;
                    return true;
                }
                return skip(depth);
            default: return skip(depth);
        }
    }

    // "fields", "items" or "values": the type's own part when the type (read
    // before it) has one by that key, read and made into the node; else a prop.
    bool structuralMember(Key c, ObjectMembers& o, std::size_t depth) {
        if (!o.haveType) return false;
        if (c == kFields && (is(o.type, "record") || is(o.type, "error"))) {
            if (!o.haveName || !record(o.name, o.haveNs ? o.ns : space_, &o.id, depth)) return false;
            o.structural = true;
            return true;
        }
        if ((c == kItems && is(o.type, "array")) || (c == kValues && is(o.type, "map"))) {
            NodeId items = kNoNode;
            if (!schema(&items, depth)) return false;
            o.id = node(c == kItems ? Type::array : Type::map, s_.nodes[items].depth + 1, s_.nodes[items].unionDepth);
            s_.nodes[o.id].a = items;
            o.structural = true;
            return true;
        }
        return skip(depth);
    }

    // The schema an object's members make, by its type.
    bool objectOf(const ObjectMembers& o, NodeId* out) {
        if (auto p = primitiveType(o.type)) {
            *out = node(*p, 0, 0);
            return true;
        }
        if (is(o.type, "record") || is(o.type, "error") || is(o.type, "array") || is(o.type, "map")) {
            *out = o.id;
            return o.structural;
        }
        if (is(o.type, "fixed")) {
            if (!o.haveName || !o.sizeIsInt) return false;
            NodeId id = node(Type::fixed, 0, 0);
            s_.nodes[id].a = static_cast<std::uint32_t>(static_cast<std::int32_t>(o.size));
            std::string_view unused;
            if (!makeName(id, o.name, o.haveNs ? o.ns : space_, &unused) || !define(id)) return false;
            *out = id;
            return true;
        }
        if (is(o.type, "enum")) {
            if (!o.haveName || o.symbols == nullptr) return false;
            *out = enumeration(o.name, o.haveNs ? o.ns : space_, o.symbols,
                               o.haveTextDefault && enumDefaults_ ? &o.textDefault : nullptr);
            return *out != kNoNode;
        }
        // A named type used as {"type": "Name"}: the current namespace only.
        *out = find(o.type, space_);
        return *out != kNoNode;
    }

    // Parser::parseEnum, at the end of its object: `symbols` is where the
    // "symbols" value starts (valid JSON: it was read once).
    NodeId enumeration(std::string_view name, std::string_view space, const char* symbols, const std::string_view* enumDefault) {
        const char* resume = p_;
        p_ = symbols;
        const std::size_t base = s_.symbols.size();
        if (!at('[')) return kNoNode;  // "Enum has no symbols"
        ++p_;
        bool read = elements([&] {
            std::string_view sym;
            if (!str(&sym) || checkName(sym, dollar_) != NameCheck::ok) return false;  // "Null name", or an invalid one
            s_.symbols.push_back(sym);
            nameBytes_ += sym.size();
            return true;
        });
        if (!read) return kNoNode;
        p_ = resume;
        // "Duplicate enum symbol", and a default not among the symbols.
        auto& sorted = s_.sortedSymbols;
        sorted.assign(s_.symbols.begin() + static_cast<std::ptrdiff_t>(base), s_.symbols.end());
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return kNoNode;
        if (enumDefault != nullptr && !std::binary_search(sorted.begin(), sorted.end(), *enumDefault)) return kNoNode;
        NodeId id = node(Type::enumeration, 0, 0);
        s_.nodes[id].a = static_cast<std::uint32_t>(base);
        s_.nodes[id].count = static_cast<std::uint32_t>(s_.symbols.size() - base);
        std::string_view unused;
        if (!makeName(id, name, space, &unused) || !define(id)) return kNoNode;
        return id;
    }

    // Parser::parseRecord, at the "fields" value: the node, named and
    // defined, then each field; the namespace is the record's meanwhile.
    bool record(std::string_view name, std::string_view space, NodeId* out, std::size_t depth) {
        NodeId id = node(Type::record, 0, 0);
        std::string_view newSpace;
        if (!makeName(id, name, space, &newSpace) || !define(id)) return false;
        s_.nodes[id].open = true;
        std::string_view saved = std::exchange(space_, newSpace);
        if (!at('[') || !enter(depth + 1)) return false;  // "Record has no fields" / too deep
        ++p_;
        std::size_t base = s_.fieldStack.size();
        if (!elements([&] { return field(depth + 1); })) return false;
        space_ = saved;
        std::uint32_t d = 0, u = 0;
        for (std::size_t i = base; i < s_.fieldStack.size(); ++i) {
            const QNode& t = s_.nodes[s_.fieldStack[i].type];
            d = std::max(d, t.depth + 1);
            u = std::max(u, t.unionDepth);
        }
        QNode& n = s_.nodes[id];
        n.depth = d;
        n.unionDepth = u;
        n.open = false;
        n.a = static_cast<std::uint32_t>(s_.fields.size());
        n.count = static_cast<std::uint32_t>(s_.fieldStack.size() - base);
        slots_ += CompactSchema::tableSize(n.count);
        s_.fields.insert(s_.fields.end(), s_.fieldStack.begin() + static_cast<std::ptrdiff_t>(base), s_.fieldStack.end());
        s_.fieldStack.resize(base);
        *out = id;
        return true;
    }

    // Parser::parseField; `depth` is that of the fields array.
    bool field(std::size_t depth) {
        const std::size_t level = depth + 1;  // the field object's
        if (int plain = plainField(level)) return plain > 0;
        if (!at('{') || !enter(level)) return false;
        ++p_;
        QField f;
        bool haveName = false, haveType = false, haveDefault = false, defaultNull = false, defaultText = false;
        auto each = [&](Key c) {
            switch (c) {
                case kName:
                    haveName = true;
                    return str(&f.name);
                case kType:
                    haveType = true;
                    return fieldType(&f.type, level);
                case kDefault:
                    haveDefault = true;
                    defaultNull = at('n');
                    defaultText = at('"');
                    return skip(level);
                case kOrder: {
                    std::string_view o;
                    return str(&o) && isOrder(o);
                }
                case kAliases: return false;
                default: return skip(level);
            }
        };
        // Most fields start {"name":…,"type":…: those two keys are matched as
        // whole words, and what follows is read as members() reads it.
        bool read = false;
        if (startsWith("\"name\":")) {
            p_ += 7;
            ws();
            haveName = true;
            if (!str(&f.name)) return false;
            KeysSeen seen{bit(kName), s_.keys.size()};
            if (startsWith(",\"type\":")) {
                p_ += 8;
                ws();
                haveType = true;
                seen.known |= bit(kType);
                if (!fieldType(&f.type, level)) return false;
            }
            read = moreMembers(seen, each);
        } else {
            read = members(each);
        }
        if (!read) return false;
        if (!haveName || !haveType || checkName(f.name, dollar_) != NameCheck::ok) return false;
        const QNode& t = s_.nodes[f.type];
        if (haveDefault) {
            // Double.valueOf of a text default: it can throw, so the full parser decides.
            if (defaultText && (t.type == Type::float_ || t.type == Type::double_)) return false;
            f.flags |= CompactSchema::kHasDefault;
            bool nullable = t.type == Type::null ||
                            (t.type == Type::union_ && t.count > 0 && s_.nodes[s_.branches[t.a]].type == Type::null);
            if (nullable && defaultNull) f.flags |= CompactSchema::kNullDefaultOnNullable;
        }
        s_.fieldStack.push_back(f);
        nameBytes_ += f.name.size();
        return true;
    }

    // The commonest field, as Avro's own toString and most generators print
    // it: {"name":"<name>","type":"<type name>"}, without whitespace. Matched
    // here byte for byte and read as field() would read it (the same checks,
    // in effect, and the same node); 0 when the text has another shape (other
    // keys, whitespace, a type that is not a name, an escape), with nothing
    // read, for field() to read key by key. 1 read, -1 declined.
    int plainField(std::size_t level) {
        const char* p = p_;
        if (end_ - p < 9 || !is(std::string_view(p, 9), "{\"name\":\"")) return 0;
        const char* name = p + 9;
        const char* q = skipPlain(name, end_);
        if (end_ - q < 10 || !is(std::string_view(q, 10), "\",\"type\":\"")) return 0;
        const char* type = q + 10;
        const char* e = skipPlain(type, end_);
        if (end_ - e < 2 || e[0] != '"' || e[1] != '}') return 0;
        if (!enter(level)) return -1;
        QField f;
        f.name = std::string_view(name, static_cast<std::size_t>(q - name));
        if (!reference(std::string_view(type, static_cast<std::size_t>(e - type)), &f.type)) return -1;
        if (checkName(f.name, dollar_) != NameCheck::ok) return -1;
        p_ = e + 2;
        s_.fieldStack.push_back(f);
        nameBytes_ += f.name.size();
        return 1;
    }

    // A field's "type" value; `level` is the field object's.
    bool fieldType(NodeId* type, std::size_t level) {
        if (at('"')) {
            std::string_view ref;
            return str(&ref) && reference(ref, type);
        }
        return (at('{') || at('[')) && schema(type, level);
    }

    // Field.Order.valueOf(text.toUpperCase()) succeeds.
    static bool isOrder(std::string_view o) {
        auto same = [o](std::string_view upper) {
            if (o.size() != upper.size()) return false;
            for (std::size_t i = 0; i < o.size(); ++i) {
                char c = o[i];
                if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
                if (c != upper[i]) return false;
            }
            return true;
        };
        return same("ASCENDING") || same("DESCENDING") || same("IGNORE");
    }

    // Parser::parseUnion.
    bool unionOf(NodeId* out, std::size_t depth) {
        if (!enter(depth)) return false;
        ++p_;
        ws();
        std::size_t base = s_.branchStack.size();
        bool read = elements([&] {
            NodeId b = kNoNode;
            if (!schema(&b, depth)) return false;
            s_.branchStack.push_back(b);
            return true;
        });
        if (!read) return false;
        std::uint32_t d = 0, u = 0, records = 0;
        const std::size_t n = s_.branchStack.size() - base;
        for (std::size_t i = base; i < s_.branchStack.size(); ++i) {
            const QNode& b = s_.nodes[s_.branchStack[i]];
            if (b.type == Type::union_) return false;  // "Nested union"
            d = std::max(d, b.depth + 1);
            u = std::max(u, b.unionDepth + 1);
            if (b.type == Type::record) ++records;
            // "Duplicate in union": named types by full name, the others by
            // type name. Two unnamed branches have the same name exactly when
            // they have the same type, so only a pair with a named side
            // compares names (a record may be named "map", say).
            for (std::size_t j = base; j < i; ++j) {
                Type other = s_.nodes[s_.branchStack[j]].type;
                if (!isNamed(b.type) && !isNamed(other)) {
                    if (other == b.type) return false;
                } else if (branchName(s_.branchStack[j]) == branchName(s_.branchStack[i])) {
                    return false;
                }
            }
            if (n > kScanNames) return false;  // a very wide union: the full parser's set is quicker than this scan
        }
        if (records >= 2) severalRecordBranches_ = true;
        NodeId id = node(Type::union_, d, u);
        s_.nodes[id].a = static_cast<std::uint32_t>(s_.branches.size());
        s_.nodes[id].count = static_cast<std::uint32_t>(n);
        s_.branches.insert(s_.branches.end(), s_.branchStack.begin() + static_cast<std::ptrdiff_t>(base), s_.branchStack.end());
        s_.branchStack.resize(base);
        *out = id;
        return true;
    }

    std::string_view branchName(NodeId b) const {
        Type t = s_.nodes[b].type;
        return isNamed(t) ? fullNameOf(b) : to_string_view(t);
    }

    // ---- the compact tables, in id order (as buildCompact) ----

    bool layOut(NodeId root, Schema& out) {
        CompactSchema& c = out.compact;
        c.allocate(tableSizes());
        std::memcpy(c.definition.data(), text_.data(), text_.size());
        Cursors at;
        const std::size_t count = s_.nodes.size();
        for (NodeId id = 0; id < count; ++id) {
            if (!layOutNode(id, c, at)) return false;
        }
        c.severalRecordBranches = severalRecordBranches_;
        if (!recursive_) {
            c.maxDepth = s_.nodes[root].depth;
            c.maxUnionDepth = s_.nodes[root].unionDepth;
        }
        c.ready = true;
        out.root = root;
        out.recursive = recursive_;
        out.hasAliases = false;  // aliases are declined
        return true;
    }

    // The tables' sizes, known before they fill: allocated once.
    CompactSchema::Sizes tableSizes() const {
        CompactSchema::Sizes sizes;
        sizes.nodes = s_.nodes.size();
        sizes.fields = s_.fields.size();
        sizes.branches = s_.branches.size();
        sizes.symbols = s_.symbols.size();
        sizes.slots = slots_;          // counted as the records were read
        sizes.nameBytes = nameBytes_;  // and the names: of named types, fields and symbols
        sizes.definitionBytes = text_.size();
        return sizes;
    }

    // Cursors into the tables, which fill in node id order.
    struct Cursors {
        std::uint32_t slot = 0, field = 0, branch = 0, symbol = 0, nameAt = 0;
    };

    static void addName(CompactSchema& c, Cursors& at, std::string_view text) {
        copyShort(c.names.data() + at.nameAt, text.data(), text.size());
        at.nameAt += static_cast<std::uint32_t>(text.size());
    }

    // Node `id` into the tables; false on a duplicate field name.
    bool layOutNode(NodeId id, CompactSchema& c, Cursors& at) {
        const QNode& n = s_.nodes[id];
        CompactSchema::CNode& cn = c.nodes[id];
        cn.type = n.type;
        if (isNamed(n.type)) {
            cn.nameOff = at.nameAt;
            cn.nameLen = n.nameLen;
            addName(c, at, fullNameOf(id));
        }
        switch (n.type) {
            case Type::fixed:
            case Type::array:
            case Type::map: cn.a = n.a; break;
            case Type::enumeration:
                cn.a = at.symbol;
                cn.b = n.count;
                for (std::uint32_t i = 0; i < n.count; ++i) {
                    std::string_view sym = s_.symbols[n.a + i];
                    c.symbols[at.symbol++] = {at.nameAt, static_cast<std::uint32_t>(sym.size())};
                    addName(c, at, sym);
                }
                break;
            case Type::union_:
                cn.a = at.branch;
                cn.b = n.count;
                std::copy_n(s_.branches.begin() + n.a, n.count, c.branches.data() + at.branch);
                at.branch += n.count;
                break;
            case Type::record: return layOutRecord(n, cn, c, at);
            default: break;
        }
        return true;
    }

    // A record's fields and their hash table; false on a duplicate field name.
    bool layOutRecord(const QNode& n, CompactSchema::CNode& cn, CompactSchema& c, Cursors& at) {
        cn.a = at.field;
        cn.b = n.count;
        cn.c = at.slot;
        const std::uint32_t mask = CompactSchema::tableSize(n.count) - 1;
        for (std::uint32_t i = 0; i < n.count; ++i) {
            const QField& f = s_.fields[n.a + i];
            CompactSchema::CField& cf = c.fields[at.field++];
            cf.type = f.type;
            cf.hash = CompactSchema::hashName(f.name);
            cf.nameOff = at.nameAt;
            cf.nameLen = static_cast<std::uint32_t>(f.name.size());
            cf.flags = f.flags;
            addName(c, at, f.name);
            std::uint32_t h = cf.hash & mask;
            for (; c.slots[at.slot + h] != 0; h = (h + 1) & mask) {
                if (s_.fields[n.a + c.slots[at.slot + h] - 1].name == f.name) return false;  // "Duplicate field"
            }
            c.slots[at.slot + h] = i + 1;
        }
        at.slot += mask + 1;
        return true;
    }

    bool dollar_;
    bool enumDefaults_;  // Avro >= 1.9: an enum's text "default" must be one of its symbols
    std::string_view space_;  // the current namespace: always a view of the text
    bool recursive_ = false;
    bool severalRecordBranches_ = false;
    std::size_t nameBytes_ = 0;  // the compact name pool's size: full names of named types, field names, symbols
    std::size_t slots_ = 0;      // the records' field hash tables, in all
    std::array<NodeId, static_cast<std::size_t>(Type::null) + 1> primitives_{};  // per Type: its shared node + 1
};

}  // namespace

std::shared_ptr<Schema> quickParse(std::string_view definition, const ParseOptions& options, std::size_t* nesting,
                                   std::size_t maxNesting) {
    thread_local Scratch scratch;
    scratch.clear();
    auto schema = std::make_shared<Schema>();
    QuickParser parser(definition, options, maxNesting, scratch);
    bool taken = parser.run(*schema);
    if (nesting != nullptr) *nesting = parser.nesting();
    if (!taken) return nullptr;
    schema->deferNodes(options);
    return schema;
}

}  // namespace cnx::compat::avro
