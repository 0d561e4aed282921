// The scenario document and its top-level sections.
#include <map>

#include "sim/scenario/load/format.h"
#include "sim/scenario/load/names.h"

namespace cnx::sim::load {

void DocumentLoader::load(const Value& root) {
    s_.pos = root.pos;
    if (root.node.IsNull()) {
        if (ctx_.setupFile) return;  // nothing to set up
        if (ctx_.schemasFile) {
            ctx_.error(root.pos, "empty schemas file: it needs 'schemas'");
            return;
        }
        ctx_.error(root.pos, "empty document: a scenario needs at least 'name' and 'steps'");
        return;
    }
    auto top = entriesOf(ctx_, root);
    if (!top) return;
    // Problems here do not stop the reading: every section is still checked.
    if (ctx_.schemasFile) {
        loadSchemasFile(*top);
        return;
    }
    if (ctx_.setupFile) {
        rejectUnknown(ctx_, *top, kSetupKeys, "the setup file");
        readFields(*this, kSetupFields, *top, s_);
        return;
    }
    rejectUnknown(ctx_, *top, kScenarioKeys, "the scenario");
    requireFields(ctx_, kScenarioFields, *top, root.pos, "the scenario");
    readFields(*this, kScenarioFields, *top, s_);
}

void DocumentLoader::loadFaults(const Value& v) {
    if (v.node.IsNull()) return;
    auto items = sequenceOf(ctx_, v);
    if (!items) return;
    for (const Value& item : *items) {
        auto text = scalarOf(ctx_, item);
        if (text) s_.faults.push_back({*text, item.pos});
    }
}

void DocumentLoader::loadBroker(const Value& v) {
    if (v.node.IsNull()) return;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return;
    rejectUnknown(ctx_, *entries, kBrokerKeys, "broker");
    readFields(*this, kBrokerFields, *entries, s_);
}

void DocumentLoader::loadBrokerVersions(const Value& v) {
    std::vector<Value> versions{v};
    if (v.node.IsSequence()) versions = sequenceOf(ctx_, v).value_or(std::vector<Value>{});
    std::map<std::string, SourcePos> seen;
    for (const Value& item : versions) {
        auto version = brokerVersionOf(ctx_, item);
        if (!version) continue;
        if (auto [it, fresh] = seen.emplace(*version, item.pos); !fresh) {
            ctx_.error(item.pos, "broker version " + inQuotes(*version) + " is listed twice (first at " +
                                     posText(it->second) + ")");
            continue;
        }
        s_.brokerVersions.push_back(*version);
    }
}

namespace {

// A list of names read with `nameOf`; a name listed twice is an error.
template <class NameOf>
bool bindNameList(DocumentLoader& loader, const Entry& e, std::vector<std::string>& out, const char* noun, NameOf nameOf) {
    auto& ctx = loader.ctx();
    auto items = sequenceOf(ctx, e.value);
    if (!items) return false;
    std::map<std::string, SourcePos> seen;
    bool ok = true;
    for (const Value& item : *items) {
        auto text = scalarOf(ctx, item);
        auto name = text ? nameOf(ctx, *text, item.pos) : std::nullopt;
        if (!name) {
            ok = false;
            continue;
        }
        if (auto [it, fresh] = seen.emplace(*name, item.pos); !fresh) {
            ctx.error(item.pos, std::string(noun) + " " + inQuotes(*name) + " is listed twice (first at " +
                                    posText(it->second) + ")");
            ok = false;
            continue;
        }
        out.push_back(*name);
    }
    return ok;
}

}  // namespace

// `broker: { tenants: [acme] }`: tenants that exist (metadata explicit).
bool bindBrokerTenants(DocumentLoader& loader, const ValueSpec&, const Entry& e, Scenario& s) {
    s.explicitMetadata = true;
    return bindNameList(loader, e, s.existingTenants, "tenant", tenantOf);
}

// `broker: { namespaces: [acme/orders] }`: namespaces that exist, and their tenants.
bool bindBrokerNamespaces(DocumentLoader& loader, const ValueSpec&, const Entry& e, Scenario& s) {
    s.explicitMetadata = true;
    return bindNameList(loader, e, s.existingNamespaces, "namespace", namespaceOf);
}

void DocumentLoader::loadNamespaces(const Value& v) {
    if (v.node.IsNull()) return;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return;
    for (const Entry& e : *entries) {
        auto name = namespaceOf(ctx_, e.key, e.keyPos);
        auto policies = settingsMapOf(ctx_, e.value, SettingScope::namespacePolicy);
        if (name && policies) s_.namespaces.push_back({*name, std::move(*policies), e.keyPos});
    }
}

void DocumentLoader::loadTopics(const Value& v) {
    if (v.node.IsNull()) return;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return;
    std::map<std::string, SourcePos> seen;
    for (const Entry& e : *entries) {
        auto decl = topicDecl(e);
        if (!decl) continue;
        if (auto [it, fresh] = seen.emplace(decl->name, e.keyPos); !fresh) {
            ctx_.error(e.keyPos, "topic " + inQuotes(decl->name) + " is declared twice (first at " +
                                     posText(it->second) + ")");
            continue;
        }
        s_.topics.push_back(std::move(*decl));
    }
}

std::optional<TopicDecl> DocumentLoader::topicDecl(const Entry& e) {
    auto name = topicOf(ctx_, {e.keyNode, e.keyPos, "topic"});
    TopicDecl decl{name.value_or(""), 0, {}, e.keyPos};
    if (e.value.node.IsNull()) return name ? std::optional(decl) : std::nullopt;
    auto fields = entriesOf(ctx_, e.value);
    if (!fields || !name) return std::nullopt;
    rejectUnknown(ctx_, *fields, kTopicDeclKeys, "topic " + inQuotes(e.key));
    readFields(*this, kTopicDeclFields, *fields, decl);  // a bad field is reported; the name still counts
    return decl;
}

void DocumentLoader::loadClients(const Value& v) {
    if (v.node.IsNull()) return;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return;
    for (const Entry& e : *entries) {
        ClientDecl client;
        client.pos = e.keyPos;
        if (!e.value.node.IsNull()) {
            auto fields = entriesOf(ctx_, e.value);
            if (!fields) continue;
            rejectUnknown(ctx_, *fields, kClientKeys, "client " + inQuotes(e.key));
            readFields(*this, kClientFields, *fields, client);
        }
        s_.clients.emplace(e.key, std::move(client));
    }
}

}  // namespace cnx::sim::load
