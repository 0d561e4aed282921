#include "broker_model/compat/avro/avro_schema_graph.h"

#include <algorithm>

namespace cnx::compat::avro {


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

namespace {

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

}  // namespace

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

}  // namespace cnx::compat::avro
