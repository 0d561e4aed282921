// generateSession: one seeded random session of the differential search
// (doc/explore.md, "Sessions").

#include <array>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/explore/corpus.h"
#include "sim/explore/explore.h"
#include "sim/explore/yaml_text.h"
#include "sim/runtime/rng.h"

namespace cnx::sim::explore {
namespace {

using detail::CorpusSchema;
using Fields = std::vector<std::pair<std::string, std::string>>;  // key, rendered value

constexpr std::array<std::string_view, 9> kStrategies{
    "ALWAYS_INCOMPATIBLE", "ALWAYS_COMPATIBLE",  "BACKWARD",           "FORWARD",   "FULL",
    "BACKWARD_TRANSITIVE", "FORWARD_TRANSITIVE", "FULL_TRANSITIVE", "UNDEFINED"};
constexpr std::array<std::string_view, 8> kAutoUpdateStrategies{
    "AutoUpdateDisabled", "Backward",           "Forward",           "Full",
    "AlwaysCompatible",   "BackwardTransitive", "ForwardTransitive", "FullTransitive"};
constexpr std::array<std::string_view, 3> kExclusiveModes{"Exclusive", "WaitForExclusive", "ExclusiveWithFencing"};
constexpr std::array<std::string_view, 4> kSubTypes{"Exclusive", "Shared", "Failover", "Key_Shared"};

// Client applications a session may declare: the name, then the declaration.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kClients{{
    {"legacy-java", R"({ library: java, version: "2.10" })"},
    {"java-3", R"({ library: java, version: "3.0" })"},
    {"cpp-app", "{ library: cpp }"},
    {"go-app", "{ library: go }"},
}};

std::string flowMap(const Fields& fields) {
    if (fields.empty()) return "{}";
    std::string out = "{ ";
    for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? ", " : "") + fields[i].first + ": " + fields[i].second;
    return out + " }";
}

class SessionBuilder {
public:
    SessionBuilder(std::uint64_t seed, std::uint64_t index) : rng_(Rng(seed).derive(index)), seed_(seed), index_(index) {}

    std::string build() {
        chooseTopics();
        chooseSchemaPool();
        chooseClients();
        std::size_t steps = 2 + rng_.below(11);  // 2 to 12
        for (std::size_t i = 0; i < steps; ++i) addStep();
        return text();
    }

private:
    bool chance(std::uint64_t percent) { return rng_.below(100) < percent; }
    template <class T>
    const T& pick(std::span<const T> items) { return items[rng_.below(items.size())]; }
    template <class T, std::size_t N>
    const T& pick(const std::array<T, N>& items) { return items[rng_.below(N)]; }

    // 1 or 2 topics, named after the session's index and a tag of the seed: the
    // sessions of one search never share a topic, those of two seeds hardly ever.
    void chooseTopics() {
        char tag[32];
        std::snprintf(tag, sizeof tag, "s%llu-%04llx", static_cast<unsigned long long>(index_),
                      static_cast<unsigned long long>(Rng(seed_).derive(~0ULL) & 0xffff));
        topics_.push_back(std::string(tag) + "-a");
        if (chance(40)) topics_.push_back(std::string(tag) + "-b");
        partitioned_ = chance(10);
    }

    // Mostly one family (so versions meet their evolutions), plus one or two strangers.
    void chooseSchemaPool() {
        auto families = detail::corpusFamilies();
        std::size_t main = rng_.below(families.size());
        for (const auto& s : families[main].schemas) main_.push_back(&s);
        std::size_t extras = 1 + rng_.below(2);
        for (std::size_t i = 0; i < extras; ++i) {
            std::size_t f = rng_.below(families.size());
            if (f == main) f = (f + 1) % families.size();
            extra_.push_back(&pick(families[f].schemas));
        }
    }

    void chooseClients() {
        if (!chance(20)) return;
        std::size_t first = rng_.below(kClients.size());
        clients_.push_back(first);
        if (chance(40)) clients_.push_back((first + 1 + rng_.below(kClients.size() - 1)) % kClients.size());
    }

    std::string topic() { return topics_.size() == 2 && chance(35) ? topics_[1] : topics_[0]; }

    void use(const CorpusSchema& s) {
        if (s.definition.empty()) return;  // a primitive, named bare
        if (!s.needs.empty()) use(*detail::corpusSchema(s.needs));
        for (auto* d : declared_) {
            if (d == &s) return;
        }
        declared_.push_back(&s);
    }

    std::string definitionSchema() {
        const auto& pool = extra_.empty() || chance(75) ? main_ : extra_;
        const CorpusSchema& s = *pool[rng_.below(pool.size())];
        use(s);
        return std::string(s.alias);
    }

    std::string producerSchema() {
        auto r = rng_.below(100);
        if (r < 10) return "none";
        if (r < 15) return "AUTO_PRODUCE_BYTES";
        return definitionSchema();
    }

    std::string consumerSchema() {
        auto r = rng_.below(100);
        if (r < 10) return "none";
        if (r < 18) return "AUTO_CONSUME";
        return definitionSchema();
    }

    // A declared client now and then, or an undeclared library by name.
    void maybeClient(Fields& f) {
        if (!clients_.empty()) {
            if (chance(50)) f.emplace_back("client", std::string(kClients[clients_[rng_.below(clients_.size())]].first));
        } else if (chance(5)) {
            f.emplace_back("client", chance(50) ? "cpp" : "go");
        }
    }

    void addStep() {
        auto r = rng_.below(100);
        if (r < 22) return producer();
        if (r < 38) return subscribe();
        if (r < 43) return opened_.empty() ? producer() : close();
        if (r < 51) return producers_.empty() ? producer() : publish();
        if (r < 61) return admin("upload-schema", {{"topic", topic()}, {"schema", definitionSchema()}});
        if (r < 66) return getSchema();
        if (r < 70) return admin("get-schema-version", {{"topic", topic()}, {"schema", definitionSchema()}});
        if (r < 77) return admin("test-compatibility", {{"topic", topic()}, {"schema", definitionSchema()}});
        if (r < 82) return deleteSchema();
        if (r < 85) return deleteTopic();
        if (r < 95) return setPolicy();
        return admin("unload", {{"topic", topic()}});
    }

    void admin(std::string_view action, Fields f) { steps_.push_back(std::string(action) + ": " + flowMap(f)); }

    void producer() {
        std::string name = "p" + std::to_string(producers_.size() + 1);
        Fields f{{"topic", topic()}, {"name", name}, {"schema", producerSchema()}};
        if (chance(15)) f.emplace_back("access_mode", std::string(pick(kExclusiveModes)));
        maybeClient(f);
        producers_.push_back(name);
        opened_.push_back(name);
        admin("producer", f);
    }

    void subscribe() {
        std::string name = "c" + std::to_string(++consumers_);
        Fields f{{"topic", topic()}, {"subscription", "s" + std::to_string(1 + rng_.below(2))}, {"consumer", name},
                 {"schema", consumerSchema()}};
        auto type = rng_.below(100);
        if (type >= 40) f.emplace_back("type", std::string(kSubTypes[type < 65 ? 1 : type < 80 ? 2 : 3]));
        if (chance(10)) f.emplace_back("durable", "false");
        maybeClient(f);
        opened_.push_back(name);
        admin("subscribe", f);
    }

    void close() { steps_.push_back("close: " + opened_[rng_.below(opened_.size())]); }

    void publish() {
        Fields f{{"producer", producers_[rng_.below(producers_.size())]}};
        if (chance(60)) f.emplace_back("count", std::to_string(1 + rng_.below(3)));
        if (chance(25)) f.emplace_back("schema", definitionSchema());
        admin("publish", f);
    }

    void getSchema() {
        Fields f{{"topic", topic()}};
        if (chance(30)) f.emplace_back("version", std::to_string(rng_.below(3)));
        if (chance(15)) {
            f.emplace_back("via", "wire");
            if (!clients_.empty() && chance(50)) f.emplace_back("client", std::string(kClients[clients_[0]].first));
        }
        admin("get-schema", f);
    }

    void deleteSchema() {
        Fields f{{"topic", topic()}};
        if (chance(40)) f.emplace_back("force", "true");
        admin("delete-schema", f);
    }

    void deleteTopic() {
        Fields f{{"topic", topic()}};
        if (chance(50)) f.emplace_back("force", "true");
        if (chance(30)) f.emplace_back("delete_schema", "true");
        admin("delete-topic", f);
    }

    void setPolicy() {
        if (chance(50)) {
            Fields f{{"namespace", "public/default"}};
            switch (rng_.below(4)) {
                case 0: f.emplace_back("schema_compatibility_strategy", policyValue(kStrategies)); break;
                case 1: f.emplace_back("is_allow_auto_update_schema", chance(10) ? "~" : chance(50) ? "true" : "false"); break;
                case 2: f.emplace_back("schema_validation_enforced", chance(50) ? "true" : "false"); break;
                default: f.emplace_back("schema_auto_update_compatibility_strategy", policyValue(kAutoUpdateStrategies));
            }
            return admin("set-policy", f);
        }
        Fields f{{"topic", topic()}};
        if (chance(60)) {
            f.emplace_back("schema_compatibility_strategy", chance(10) ? "~" : std::string(kStrategies[rng_.below(8)]));
        } else {
            f.emplace_back("schema_validation_enforced", chance(50) ? "true" : "false");
        }
        admin("set-policy", f);
    }

    template <std::size_t N>
    std::string policyValue(const std::array<std::string_view, N>& values) {
        return chance(10) ? "~" : std::string(pick(values));
    }

    std::string text() const {
        std::string out = "name: " + detail::quoted("explore seed " + std::to_string(seed_) + " session " +
                                                    std::to_string(index_)) + "\n";
        out += "tags: [explore]\n";
        if (!clients_.empty()) {
            out += "clients:\n";
            for (auto c : clients_) out += "  " + std::string(kClients[c].first) + ": " + std::string(kClients[c].second) + "\n";
        }
        if (partitioned_) out += "topics:\n  " + topics_[0] + ": { partitions: 2 }\n";
        if (!declared_.empty()) {
            out += "schemas:\n";
            for (auto* s : declared_) out += "  " + std::string(s->alias) + ": " + std::string(s->definition) + "\n";
        }
        out += "steps:\n";
        for (const auto& s : steps_) out += "  - " + s + "\n";
        return out;
    }

    Rng rng_;
    std::uint64_t seed_, index_;
    std::vector<std::string> topics_;
    bool partitioned_ = false;
    std::vector<const CorpusSchema*> main_, extra_, declared_;
    std::vector<std::size_t> clients_;  // indexes into kClients
    std::vector<std::string> producers_, opened_;
    int consumers_ = 0;
    std::vector<std::string> steps_;
};

}  // namespace

std::string generateSession(std::uint64_t seed, std::uint64_t index) { return SessionBuilder(seed, index).build(); }

}  // namespace cnx::sim::explore
