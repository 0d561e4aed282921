#include "broker_model/compat/avro/avro_schema_graph.h"

#include <algorithm>

namespace cnx::compat::avro {


namespace {

// One iterative DFS over the node graph (field types, branches, items): from
// the root, whether a cycle is reachable (three colours: an edge to a node on
// the stack closes one); when none is, from every node, the edges on the
// longest path and the most union-to-branch edges on one path. Scratch
// vectors are reused per thread.
struct GraphSummary {
    bool cycle = false;
    std::uint32_t maxDepth = 0;
    std::uint32_t maxUnionDepth = 0;
};

GraphSummary summarizeGraph(const Schema& s) {
    struct Frame {
        NodeId id;
        std::uint32_t next;  // next edge
    };
    thread_local std::vector<std::uint32_t> depth, unionDepth;
    thread_local std::vector<char> colour;  // 0 unseen, 1 on the stack, 2 done
    thread_local std::vector<Frame> stack;
    const std::size_t n = s.nodes.size();
    depth.assign(n, 0);
    unionDepth.assign(n, 0);
    colour.assign(n, 0);
    stack.clear();
    auto edge = [&s](NodeId id, std::uint32_t i, NodeId& out) {
        const Node& nd = s.nodes[id];
        if (i < nd.fields.size()) return out = nd.fields[i].type, true;
        i -= static_cast<std::uint32_t>(nd.fields.size());
        if (i < nd.branches.size()) return out = nd.branches[i], true;
        if (i == nd.branches.size() && (nd.type == Type::array || nd.type == Type::map)) return out = nd.items, true;
        return false;
    };
    GraphSummary g;
    auto walk = [&](NodeId start) {  // false when a cycle was met
        colour[start] = 1;
        stack.push_back({start, 0});
        while (!stack.empty()) {
            Frame& f = stack.back();
            NodeId child = 0;
            if (edge(f.id, f.next++, child)) {
                if (colour[child] == 1) return false;
                if (colour[child] == 0) {
                    colour[child] = 1;
                    stack.push_back({child, 0});
                }
                continue;
            }
            NodeId id = f.id;
            stack.pop_back();
            colour[id] = 2;
            std::uint32_t d = 0, u = 0, e = 0, unionEdge = s.nodes[id].type == Type::union_ ? 1 : 0;
            while (edge(id, e++, child)) {
                d = std::max(d, depth[child] + 1);
                u = std::max(u, unionDepth[child] + unionEdge);
            }
            depth[id] = d;
            unionDepth[id] = u;
            g.maxDepth = std::max(g.maxDepth, d);
            g.maxUnionDepth = std::max(g.maxUnionDepth, u);
        }
        return true;
    };
    if (n == 0) return g;
    if (!walk(s.root)) {
        g.cycle = true;
        return g;
    }
    for (NodeId start = 0; start < n; ++start) {  // nodes the root does not reach (parse() makes none)
        if (colour[start] != 0) continue;
        if (!walk(start)) {
            stack.clear();  // a cycle away from the root: not "recursive"; its depths are not used
        }
    }
    return g;
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



// Fills in s.compact.
void buildCompact(Schema& s, const GraphSummary& g) {
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
        c.maxDepth = g.maxDepth;
        c.maxUnionDepth = g.maxUnionDepth;
    }
    c.ready = true;
}

}  // namespace

void summarize(Schema& s) {
    GraphSummary g = summarizeGraph(s);
    s.recursive = g.cycle;
    s.hasAliases = declaresAliases(s);
    buildCompact(s, g);
}

}  // namespace cnx::compat::avro
