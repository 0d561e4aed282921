#include "bench/suite_generator.h"

#include <algorithm>
#include <array>
#include <random>
#include <string_view>
#include <vector>

namespace cnx::bench {
namespace {

// Quoted: they go into flow mappings.
constexpr std::array<std::string_view, 3> kTopics{
    "\"bench-a\"", "\"bench-b\"", "\"non-persistent://public/default/bench-c\""};
constexpr std::array<std::string_view, 4> kProducerSchemas{"STRING", "INT32", "BYTES", "none"};
constexpr std::array<std::string_view, 4> kConsumerSchemas{"STRING", "INT32", "none", "AUTO_CONSUME"};
constexpr std::array<std::string_view, 2> kUploadSchemas{"STRING", "INT32"};
constexpr std::array<std::string_view, 6> kStrategies{"FULL",   "BACKWARD",           "FORWARD",
                                                      "ALWAYS_COMPATIBLE", "BACKWARD_TRANSITIVE", "FULL_TRANSITIVE"};
constexpr std::array<std::string_view, 2> kSubTypes{"Shared", "Failover"};

/// One scenario being written: the random source and what earlier steps opened.
class ScenarioWriter {
public:
    ScenarioWriter(std::mt19937_64& rng, std::size_t index) : rng_(rng), index_(index) {}

    std::string write(std::size_t steps) {
        std::string out = "name: bench scenario " + std::to_string(index_) + "\n";
        out += "tags: [bench]\n";
        out += header();
        out += "steps:\n";
        for (std::size_t i = 0; i < steps; ++i) out += step();
        return out;
    }

private:
    template <typename T>
    const T& pick(const std::vector<T>& v) {
        return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng_)];
    }
    template <std::size_t N>
    std::string pick(const std::array<std::string_view, N>& a) {
        return std::string(a[std::uniform_int_distribution<std::size_t>(0, N - 1)(rng_)]);
    }
    bool chance(int percent) { return std::uniform_int_distribution<int>(0, 99)(rng_) < percent; }

    // Broker config and namespace policies in about a third of the scenarios each.
    std::string header() {
        std::string out;
        if (chance(30)) {
            out += "broker:\n  config:\n";
            out += "    schemaCompatibilityStrategy: " + pick(kStrategies) + "\n";
            if (chance(30)) out += "    isSchemaValidationEnforced: true\n";
        }
        if (chance(30)) {
            out += "namespaces:\n  public/default:\n";
            out += "    schema_compatibility_strategy: " + pick(kStrategies) + "\n";
        }
        return out;
    }

    // Weighted mix: admissions dominate, as in the bundled scenarios.
    std::string step() {
        int roll = std::uniform_int_distribution<int>(0, 99)(rng_);
        if (roll < 30) return producer();
        if (roll < 55) return subscribe();
        if (roll < 67 && !open_.empty()) return close();
        if (roll < 77 && !producers_.empty()) return publish();
        if (roll < 83) return "  - upload-schema: { topic: " + pick(kTopics) + ", schema: " + pick(kUploadSchemas) + " }\n";
        if (roll < 87) return std::string("  - delete-schema: { topic: ") + pick(kTopics) + ", force: " +
                              (chance(50) ? "true" : "false") + " }\n";
        if (roll < 92) return "  - set-policy: { namespace: public/default, schema_compatibility_strategy: " +
                              pick(kStrategies) + " }\n";
        if (roll < 95) return std::string("  - set-broker-config: { isAllowAutoUpdateSchemaEnabled: ") +
                              (chance(70) ? "true" : "false") + " }\n";
        return "  - check: { topic: " + pick(kTopics) + ", idle: " + (chance(50) ? "true" : "false") + " }\n";
    }

    std::string producer() {
        std::string name = "p" + std::to_string(++names_);
        producers_.push_back(name);
        open_.push_back(name);
        return "  - producer: { topic: " + pick(kTopics) + ", name: " + name + ", schema: " + pick(kProducerSchemas) +
               " }\n";
    }

    std::string subscribe() {
        std::string name = "c" + std::to_string(++names_);
        open_.push_back(name);
        std::string sub = "sub-" + std::to_string(std::uniform_int_distribution<int>(1, 3)(rng_));
        return "  - subscribe: { topic: " + pick(kTopics) + ", subscription: " + sub + ", consumer: " + name +
               ", schema: " + pick(kConsumerSchemas) + ", type: " + pick(kSubTypes) + " }\n";
    }

    std::string close() {
        auto i = std::uniform_int_distribution<std::size_t>(0, open_.size() - 1)(rng_);
        std::string name = open_[i];
        open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(i));
        std::erase(producers_, name);
        return "  - close: " + name + "\n";
    }

    std::string publish() {
        return "  - publish: { producer: " + pick(producers_) +
               ", count: " + std::to_string(std::uniform_int_distribution<int>(1, 5)(rng_)) + " }\n";
    }

    std::mt19937_64& rng_;
    std::size_t index_;
    std::size_t names_ = 0;
    std::vector<std::string> producers_;  // open producers
    std::vector<std::string> open_;       // open producers and consumers
};

}  // namespace

std::vector<std::string> generateSuiteFiles(const SuiteShape& shape, std::size_t perFile) {
    if (perFile == 0) perFile = 1;
    std::mt19937_64 rng(shape.seed);
    std::vector<std::string> files;
    for (std::size_t i = 0; i < shape.scenarios; ++i) {
        if (i % perFile == 0) {
            files.emplace_back();
            files.back().reserve(std::min(perFile, shape.scenarios - i) * 900);
        } else {
            files.back() += "---\n";
        }
        auto steps = std::uniform_int_distribution<std::size_t>(shape.minSteps, shape.maxSteps)(rng);
        files.back() += ScenarioWriter(rng, i + 1).write(steps);
    }
    return files;
}

}  // namespace cnx::bench
