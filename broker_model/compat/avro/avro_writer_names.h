#pragma once
// Internal to avro_resolve.cc (split out by concern, included there only):
// the writer schema as Schema.applyAliases(writer, reader) would rename it.

#include "broker_model/compat/avro/avro_resolve_rules.h"

namespace cnx::compat::avro::resolve {

// ---- the writer as Schema.applyAliases(writer, reader) would rename it ----

class WriterNames {
public:
    WriterNames(const Schema& w, const Schema& r, bool apply) : w_(w) {
        // Without a reader alias nothing is renamed: skip the O(n) passes below.
        if (!apply || !r.hasAliases || schemaEquals(w, r)) return;
        collect(r);
        if (aliases_.empty() && fieldAliases_.empty()) return;
        rename();
    }

    const std::string& full(NodeId id) const { return renamed(id) ? renamed_.at(id).full : w_.at(id).name.full; }
    const std::string& shortName(NodeId id) const { return renamed(id) ? renamed_.at(id).name : w_.at(id).name.name; }

    const std::string& fieldName(NodeId rec, std::uint32_t i) const {
        auto it = fields_.find(rec);
        return it == fields_.end() ? w_.at(rec).fields[i].name : it->second.names[i];
    }

    // hasField, trying writer field `at` first: fields mostly keep their positions.
    bool hasFieldAt(NodeId rec, std::uint32_t at, const std::string& name) const {
        if (at < w_.at(rec).fields.size() && fieldName(rec, at) == name) return true;
        return hasField(rec, name);
    }

    bool hasField(NodeId rec, const std::string& name) const {
        auto it = fields_.find(rec);
        if (it == fields_.end()) return w_.at(rec).field(name) != nullptr;
        return it->second.index.count(name) != 0;
    }

    // Avro getFullName(): named types by name, others by type name.
    std::string fullOf(NodeId id) const {
        const Node& n = w_.at(id);
        return isNamed(n.type) ? full(id) : std::string(to_string_view(n.type));
    }

private:
    struct RenamedFields {
        std::vector<std::string> names;
        std::unordered_map<std::string, std::uint32_t> index;
    };

    bool renamed(NodeId id) const { return renamed_.count(id) != 0; }

    void collect(const Schema& r) {  // Schema.getAliases over the reader
        std::vector<char> seen(r.nodes().size(), 0);
        std::vector<NodeId> stack{r.root};
        while (!stack.empty()) {
            NodeId id = stack.back();
            stack.pop_back();
            if (seen[id]) continue;
            seen[id] = 1;
            const Node& n = r.at(id);
            for (const Name& a : n.aliases) aliases_[a.full] = n.name;
            if (n.type == Type::record) collectFields(n, stack);
            if (n.type == Type::array || n.type == Type::map) stack.push_back(n.items);
            for (NodeId b : n.branches) stack.push_back(b);
        }
    }

    void collectFields(const Node& n, std::vector<NodeId>& stack) {
        for (const Field& f : n.fields) {
            for (const auto& a : f.aliases) fieldAliases_[n.name.full][a] = f.name;
            stack.push_back(f.type);
        }
        auto it = fieldAliases_.find(n.name.full);
        if (it == fieldAliases_.end()) return;
        auto copy = it->second;
        for (const Name& a : n.aliases) fieldAliases_[a.full] = copy;
    }

    void rename() {
        for (NodeId id = 0; id < w_.nodes().size(); ++id) {
            const Node& n = w_.at(id);
            if (!isNamed(n.type)) continue;
            auto it = aliases_.find(n.name.full);
            if (it != aliases_.end()) renamed_[id] = it->second;
            if (n.type == Type::record) renameFields(id);
        }
    }

    void renameFields(NodeId id) {
        const Node& n = w_.at(id);
        auto fa = fieldAliases_.find(full(id));
        if (fa == fieldAliases_.end()) return;
        RenamedFields rf;
        for (std::uint32_t i = 0; i < n.fields.size(); ++i) {
            auto a = fa->second.find(n.fields[i].name);
            rf.names.push_back(a == fa->second.end() ? n.fields[i].name : a->second);
            auto [pos, inserted] = rf.index.emplace(rf.names.back(), i);
            if (!inserted) duplicateField(id, rf, i, pos->second);
        }
        fields_[id] = std::move(rf);
    }

    [[noreturn]] void duplicateField(NodeId id, const RenamedFields& rf, std::uint32_t i, std::uint32_t j) const {
        const Node& n = w_.at(id);
        auto desc = [&](std::uint32_t k) {
            std::string t(to_string_view(w_.at(n.fields[k].type).type));
            std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
            return rf.names[k] + " type:" + t + " pos:" + std::to_string(k);
        };
        throw Thrown{{std::string(exception_class::kAvroRuntime),
                      "Duplicate field " + rf.names[i] + " in record " + full(id) + ": " + desc(i) + " and " + desc(j) + "."}};
    }

    const Schema& w_;
    std::unordered_map<std::string, Name> aliases_;
    std::unordered_map<std::string, std::unordered_map<std::string, std::string>> fieldAliases_;
    std::unordered_map<NodeId, Name> renamed_;
    std::unordered_map<NodeId, RenamedFields> fields_;
};

}  // namespace cnx::compat::avro::resolve
