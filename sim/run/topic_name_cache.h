#pragma once
// Topic names parsed once, for the runs of one worker: a parse depends on the
// text alone, and the runs of a suite name the same few topics. The cache
// belongs to its caller (one per worker thread, as the loader's ImportCache
// belongs to one load), which hands it to each ScenarioRun (and through
// RunOptions::topicNames to runScenario); nothing in it is per thread.

#include <string>
#include <unordered_map>

#include "broker_model/core/topic_name.h"

namespace cnx::sim {

class TopicNameCache {
public:
    /// The parse of `name`, which must be a valid topic name (the loader checked
    /// the scenario's). The reference stays valid until trim() empties the cache.
    const TopicName& parsed(const std::string& name) {
        auto it = names_.find(name);
        if (it == names_.end()) it = names_.emplace(name, *TopicName::parse(name)).first;
        return it->second;
    }
    /// Empties the cache once it holds more than kKept names. Runs hold
    /// references into it: its owner calls it only when no run using it is alive.
    void trim() {
        if (names_.size() > kKept) names_.clear();
    }
    std::size_t size() const { return names_.size(); }
    static constexpr std::size_t kKept = 4096;

private:
    // Hashed: the names share their "persistent://tenant/namespace/" prefix,
    // which a tree compares at every node.
    std::unordered_map<std::string, TopicName> names_;
};

}  // namespace cnx::sim
