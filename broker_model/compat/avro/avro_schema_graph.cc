#include "broker_model/compat/avro/avro_schema_graph.h"

#include <algorithm>

namespace cnx::compat::avro {


namespace {

bool declaresAliases(const Schema& s) {
    for (const Node& n : s.nodes()) {
        if (!n.aliases.empty()) return true;
        for (const Field& f : n.fields) {
            if (!f.aliases.empty()) return true;
        }
    }
    return false;
}



// The compact tables' sizes, counted before they fill: allocated once.
CompactSchema::Sizes tableSizes(const Schema& s) {
    CompactSchema::Sizes sizes;
    sizes.nodes = s.nodes().size();
    for (const Node& n : s.nodes()) {
        sizes.fields += n.fields.size();
        sizes.branches += n.branches.size();
        if (n.type == Type::record) sizes.slots += CompactSchema::tableSize(static_cast<std::uint32_t>(n.fields.size()));
        if (isNamed(n.type)) sizes.nameBytes += n.name.full.size();
        if (n.type == Type::enumeration) {
            sizes.symbols += n.symbols.size();
            for (const std::string& sym : n.symbols) sizes.nameBytes += sym.size();
        }
        if (n.type == Type::record) {
            for (const Field& f : n.fields) sizes.nameBytes += f.name.size();
        }
    }
    return sizes;
}

// Cursors into the tables, which fill in node id order.
struct Cursors {
    std::uint32_t slot = 0, field = 0, branch = 0, symbol = 0, nameAt = 0;
};

void addName(CompactSchema& c, Cursors& at, std::string_view text) {
    std::copy(text.begin(), text.end(), c.names.data() + at.nameAt);
    at.nameAt += static_cast<std::uint32_t>(text.size());
}

// A record's fields, with their default flags, and its field-name hash table.
void layOutRecord(const Schema& s, const Node& n, CompactSchema::CNode& cn, CompactSchema& c, Cursors& at) {
    cn.a = at.field;
    cn.b = static_cast<std::uint32_t>(n.fields.size());
    cn.c = at.slot;
    std::uint32_t size = CompactSchema::tableSize(cn.b);
    for (std::uint32_t i = 0; i < cn.b; ++i) {
        const Field& f = n.fields[i];
        CompactSchema::CField& cf = c.fields[at.field++];
        cf.type = f.type;
        cf.hash = CompactSchema::hashName(f.name);
        cf.nameOff = at.nameAt;
        cf.nameLen = static_cast<std::uint32_t>(f.name.size());
        addName(c, at, f.name);
        if (f.defaultValue) {
            cf.flags |= CompactSchema::kHasDefault;
            const Node& t = s.nodes()[f.type];
            bool nullable = t.type == Type::null || (t.type == Type::union_ && !t.branches.empty() &&
                                                     s.nodes()[t.branches[0]].type == Type::null);
            if (nullable && f.defaultValue->is_null()) cf.flags |= CompactSchema::kNullDefaultOnNullable;
        }
        std::uint32_t h = cf.hash & (size - 1);
        while (c.slots[at.slot + h] != 0) h = (h + 1) & (size - 1);
        c.slots[at.slot + h] = i + 1;
    }
    at.slot += size;
}

// Node `n` into the tables.
void layOutNode(const Schema& s, const Node& n, CompactSchema::CNode& cn, CompactSchema& c, Cursors& at) {
    cn.type = n.type;
    if (isNamed(n.type)) {
        cn.nameOff = at.nameAt;
        cn.nameLen = static_cast<std::uint32_t>(n.name.full.size());
        addName(c, at, n.name.full);
    }
    if (n.type == Type::fixed) cn.a = static_cast<std::uint32_t>(n.size);  // an int: the parser checked
    if (n.type == Type::enumeration) {
        cn.a = at.symbol;
        cn.b = static_cast<std::uint32_t>(n.symbols.size());
        for (const std::string& sym : n.symbols) {
            c.symbols[at.symbol++] = {at.nameAt, static_cast<std::uint32_t>(sym.size())};
            addName(c, at, sym);
        }
    }
    if (n.type == Type::array || n.type == Type::map) cn.a = n.items;
    if (n.type == Type::union_) {
        cn.a = at.branch;
        cn.b = static_cast<std::uint32_t>(n.branches.size());
        std::copy(n.branches.begin(), n.branches.end(), c.branches.data() + at.branch);
        at.branch += cn.b;
        auto records = std::count_if(n.branches.begin(), n.branches.end(),
                                     [&s](NodeId b) { return s.nodes()[b].type == Type::record; });
        if (records >= 2) c.severalRecordBranches = true;
    }
    if (n.type == Type::record) layOutRecord(s, n, cn, c, at);
}

// Fills in s.compact.
void buildCompact(Schema& s, const GraphSummary& g) {
    CompactSchema& c = s.compact;
    c.allocate(tableSizes(s));
    Cursors at;
    for (NodeId id = 0; id < s.nodes().size(); ++id) layOutNode(s, s.nodes()[id], c.nodes[id], c, at);
    if (!s.recursive) {
        c.maxDepth = g.maxDepth;
        c.maxUnionDepth = g.maxUnionDepth;
    }
    c.ready = true;
}

}  // namespace

void summarize(Schema& s, const GraphSummary& g) {
    s.recursive = g.cycle;
    s.hasAliases = declaresAliases(s);
    buildCompact(s, g);
}

}  // namespace cnx::compat::avro
