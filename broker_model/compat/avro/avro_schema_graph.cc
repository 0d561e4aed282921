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



// Fills in s.compact.
void buildCompact(Schema& s, const GraphSummary& g) {
    CompactSchema& c = s.compact;
    c.nodes.resize(s.nodes().size());
    std::size_t fieldCount = 0, branchCount = 0, slotCount = 0;
    for (const Node& n : s.nodes()) {
        fieldCount += n.fields.size();
        branchCount += n.branches.size();
        if (n.type == Type::record) slotCount += CompactSchema::tableSize(static_cast<std::uint32_t>(n.fields.size()));
    }
    c.fields.reserve(fieldCount);
    c.branches.reserve(branchCount);
    c.slots.assign(slotCount, 0);
    std::uint32_t slot = 0;
    for (NodeId id = 0; id < s.nodes().size(); ++id) {
        const Node& n = s.nodes()[id];
        CompactSchema::CNode& cn = c.nodes[id];
        cn.type = n.type;
        if (isNamed(n.type)) {
            cn.nameOff = static_cast<std::uint32_t>(c.names.size());
            cn.nameLen = static_cast<std::uint32_t>(n.name.full.size());
            c.names += n.name.full;
        }
        if (n.type == Type::fixed) cn.a = static_cast<std::uint32_t>(n.size);  // an int: the parser checked
        if (n.type == Type::enumeration) {
            cn.a = static_cast<std::uint32_t>(c.symbols.size());
            cn.b = static_cast<std::uint32_t>(n.symbols.size());
            for (const std::string& sym : n.symbols) {
                c.symbols.push_back({static_cast<std::uint32_t>(c.names.size()), static_cast<std::uint32_t>(sym.size())});
                c.names += sym;
            }
        }
        if (n.type == Type::array || n.type == Type::map) cn.a = n.items;
        if (n.type == Type::union_) {
            cn.a = static_cast<std::uint32_t>(c.branches.size());
            cn.b = static_cast<std::uint32_t>(n.branches.size());
            c.branches.insert(c.branches.end(), n.branches.begin(), n.branches.end());
            auto records = std::count_if(n.branches.begin(), n.branches.end(),
                                         [&s](NodeId b) { return s.nodes()[b].type == Type::record; });
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
                const Node& t = s.nodes()[f.type];
                bool nullable = t.type == Type::null || (t.type == Type::union_ && !t.branches.empty() &&
                                                         s.nodes()[t.branches[0]].type == Type::null);
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
