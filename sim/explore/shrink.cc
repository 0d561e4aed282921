// shrink: delta debugging of a disagreeing session (doc/explore.md, "Shrinking").

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/explore/explore.h"
#include "sim/explore/yaml_text.h"
#include "sim/scenario/loader.h"

namespace cnx::sim::explore {
namespace {

// Top-level sections whose entries may be dropped once no step names them.
constexpr std::string_view kDeclarationSections[] = {"schemas", "clients", "topics"};

// Step fields that only refine a step: without them it is still the same step, plainer.
constexpr std::string_view kRefinements[] = {"client", "access_mode", "type", "durable", "count",
                                             "via",    "version",     "force", "delete_schema"};

std::string flow(const YAML::Node& n) {
    switch (n.Type()) {
        case YAML::NodeType::Scalar: return detail::scalar(n.Scalar());
        case YAML::NodeType::Sequence: {
            std::string out = "[";
            bool first = true;
            for (const auto& item : n) {
                out += (first ? "" : ", ") + flow(item);
                first = false;
            }
            return out + "]";
        }
        case YAML::NodeType::Map: {
            if (n.size() == 0) return "{}";
            std::string out = "{ ";
            bool first = true;
            for (const auto& kv : n) {
                out += (first ? "" : ", ") + flow(kv.first) + ": " + flow(kv.second);
                first = false;
            }
            return out + " }";
        }
        case YAML::NodeType::Null:
        case YAML::NodeType::Undefined: return "~";
    }
    return "~";
}

// Every scalar under `n` (keys and values), to see which names a step uses.
void collectScalars(const YAML::Node& n, std::set<std::string>& out) {
    switch (n.Type()) {
        case YAML::NodeType::Scalar: out.insert(n.Scalar()); break;
        case YAML::NodeType::Sequence:
            for (const auto& item : n) collectScalars(item, out);
            break;
        case YAML::NodeType::Map:
            for (const auto& kv : n) {
                collectScalars(kv.first, out);
                collectScalars(kv.second, out);
            }
            break;
        case YAML::NodeType::Null:
        case YAML::NodeType::Undefined: break;
    }
}

// A scenario document as the shrinker edits it: the top-level entries in
// order, with the steps apart, and the declarations dropped so far.
struct Doc {
    std::vector<std::pair<std::string, YAML::Node>> top;  // `steps` holds a null node: its place
    std::vector<YAML::Node> steps;
    std::map<std::string, std::set<std::string>> dropped;  // section -> entry keys left out

    std::string render() const {
        std::string out;
        for (const auto& [key, value] : top) {
            if (key == "steps") {
                out += "steps:\n";
                for (const auto& step : steps) out += renderStep(step);
            } else if (value.IsMap()) {
                out += renderSection(key, value);
            } else {
                out += detail::scalar(key) + ": " + flow(value) + "\n";
            }
        }
        return out;
    }

    std::string renderSection(const std::string& key, const YAML::Node& value) const {
        auto gone = dropped.find(key);
        std::string body;
        for (const auto& kv : value) {
            std::string name = kv.first.Scalar();
            if (gone != dropped.end() && gone->second.contains(name)) continue;
            body += "  " + flow(kv.first) + ": " + flow(kv.second) + "\n";
        }
        if (body.empty()) return gone != dropped.end() ? "" : detail::scalar(key) + ": {}\n";
        return detail::scalar(key) + ":\n" + body;
    }

    static std::string renderStep(const YAML::Node& step) {
        if (!step.IsMap()) return "  - " + flow(step) + "\n";
        std::string out;
        bool first = true;
        for (const auto& kv : step) {
            out += std::string(first ? "  - " : "    ") + flow(kv.first) + ": " + flow(kv.second) + "\n";
            first = false;
        }
        return out;
    }
};

std::optional<Doc> readDoc(const std::string& yaml, std::string& error) {
    std::vector<YAML::Node> docs;
    try {
        docs = YAML::LoadAll(yaml);
    } catch (const std::exception& e) {  // yaml-cpp's parser: the library's boundary
        error = std::string("not YAML: ") + e.what();
        return std::nullopt;
    }
    if (docs.size() != 1 || !docs[0].IsMap()) {
        error = "not one scenario document";
        return std::nullopt;
    }
    Doc doc;
    for (const auto& kv : docs[0]) {
        std::string key = kv.first.Scalar();
        if (key == "steps") {
            if (!kv.second.IsSequence()) {
                error = "'steps' is not a list";
                return std::nullopt;
            }
            for (const auto& step : kv.second) doc.steps.push_back(step);
            doc.top.emplace_back(key, YAML::Node());
        } else {
            doc.top.emplace_back(key, kv.second);
        }
    }
    if (doc.steps.empty()) {
        error = "no steps";
        return std::nullopt;
    }
    return doc;
}

std::string actionOf(const YAML::Node& step) {
    if (!step.IsMap()) return "";
    for (const auto& kv : step) {
        std::string key = kv.first.Scalar();
        if (key != "id" && key != "expect") return key;
    }
    return "";
}

// The producer or consumer name a step opens, or the one it uses.
std::string fieldOf(const YAML::Node& step, const std::string& action, const char* field) {
    const YAML::Node body = step[action];
    if (!body.IsMap() || !body[field] || !body[field].IsScalar()) return "";
    return body[field].Scalar();
}
std::string opens(const YAML::Node& step) {
    std::string action = actionOf(step);
    if (action == "producer") return fieldOf(step, action, "name");
    if (action == "subscribe") return fieldOf(step, action, "consumer");
    return "";
}
std::string uses(const YAML::Node& step) {
    std::string action = actionOf(step);
    if (action == "close" && step[action].IsScalar()) return step[action].Scalar();
    if (action == "publish") return fieldOf(step, action, "producer");
    return "";
}

class Shrinker {
public:
    Shrinker(Doc doc, const Judge& judge, const Verdict& original, std::size_t maxCalls)
        : best_(std::move(doc)), judge_(judge), kind_(original.kind), maxCalls_(maxCalls) {
        result_.verdict = original;
        result_.stepsBefore = best_.steps.size();
    }

    ShrinkResult run(std::size_t firstDisagreeing) {
        truncateAfter(firstDisagreeing);
        deltaDebug();
        dropRefinements();
        dropUnusedDeclarations();
        result_.yaml = best_.render();
        result_.stepsAfter = best_.steps.size();
        return std::move(result_);
    }

private:
    // The steps a candidate keeps: those chosen, minus any that use a name no kept step opened before.
    static std::vector<YAML::Node> closed(const std::vector<YAML::Node>& chosen) {
        std::set<std::string> open;
        std::vector<YAML::Node> out;
        for (const auto& step : chosen) {
            std::string used = uses(step);
            if (!used.empty() && !open.contains(used)) continue;
            std::string opened = opens(step);
            if (!opened.empty()) open.insert(opened);
            out.push_back(step);
        }
        return out;
    }

    // Judges `candidate` if it loads; keeps it when the disagreement is the same.
    bool tryCandidate(Doc candidate) {
        if (candidate.steps.empty()) return false;
        std::string text = candidate.render();
        if (!loadScenarioText(text, "shrink-candidate.yaml", std::filesystem::path(".")).ok()) return false;
        if (result_.judgeCalls >= maxCalls_) {
            result_.cutShort = true;
            return false;
        }
        ++result_.judgeCalls;
        Verdict v = judge_(text);
        if (!v.disagrees || v.kind != kind_) return false;
        best_ = std::move(candidate);
        result_.verdict = std::move(v);
        return true;
    }

    bool trySteps(const std::vector<YAML::Node>& chosen) {
        auto steps = closed(chosen);
        if (steps.size() == best_.steps.size()) return false;  // nothing left out
        Doc candidate = best_;
        candidate.steps = std::move(steps);
        return tryCandidate(std::move(candidate));
    }

    // Steps after the first disagreeing one cannot have made it.
    void truncateAfter(std::size_t step) {
        if (step + 1 >= best_.steps.size()) return;
        trySteps(std::vector<YAML::Node>(best_.steps.begin(), best_.steps.begin() + static_cast<long>(step) + 1));
    }

    // ddmin (Zeller and Hildebrandt 2002), complements only: remove one of n
    // chunks; on success go on with n-1 chunks, otherwise split finer, down to
    // single steps.
    void deltaDebug() {
        std::size_t chunks = 2;
        while (best_.steps.size() >= 2 && !result_.cutShort) {
            const auto& steps = best_.steps;
            std::size_t n = steps.size();
            chunks = std::min(chunks, n);
            bool reduced = false;
            for (std::size_t c = 0; c < chunks && !reduced; ++c) {
                std::size_t from = c * n / chunks, to = (c + 1) * n / chunks;
                std::vector<YAML::Node> rest(steps.begin(), steps.begin() + static_cast<long>(from));
                rest.insert(rest.end(), steps.begin() + static_cast<long>(to), steps.end());
                reduced = trySteps(rest);
            }
            if (reduced) {
                chunks = std::max<std::size_t>(chunks - 1, 2);
            } else if (chunks >= n) {
                break;
            } else {
                chunks = std::min(n, chunks * 2);
            }
        }
    }

    void dropRefinements() {
        for (std::size_t i = 0; i < best_.steps.size() && !result_.cutShort; ++i) {
            std::string action = actionOf(best_.steps[i]);
            for (std::string_view field : kRefinements) {
                const YAML::Node& step0 = best_.steps[i];
                const YAML::Node body = step0[action];
                if (!body.IsMap() || !body[std::string(field)]) continue;
                YAML::Node plainer = YAML::Clone(step0);
                plainer[action].remove(std::string(field));
                // A new list, not `steps[i] = plainer`: YAML::Node's assignment writes
                // through to the node it refers to, which best_ shares.
                std::vector<YAML::Node> steps;
                for (std::size_t j = 0; j < best_.steps.size(); ++j) steps.push_back(j == i ? plainer : best_.steps[j]);
                Doc candidate = best_;
                candidate.steps = std::move(steps);
                tryCandidate(std::move(candidate));
            }
        }
    }

    // Schemas, clients and topics no step (nor another kept schema) names, in one candidate.
    void dropUnusedDeclarations() {
        std::set<std::string> named;
        for (const auto& step : best_.steps) collectScalars(step, named);
        Doc candidate = best_;
        bool any = false;
        for (const auto& [key, value] : best_.top) {
            bool section = std::find(std::begin(kDeclarationSections), std::end(kDeclarationSections), key) !=
                           std::end(kDeclarationSections);
            if (!section || !value.IsMap()) continue;
            // A kept schema keeps the schemas it names (KEY_VALUE components): iterate to a fixed point.
            std::set<std::string> kept;
            for (bool grew = true; grew;) {
                grew = false;
                for (const auto& kv : value) {
                    std::string name = kv.first.Scalar();
                    if (kept.contains(name) || !named.contains(name)) continue;
                    kept.insert(name);
                    collectScalars(kv.second, named);
                    grew = true;
                }
            }
            for (const auto& kv : value) {
                std::string name = kv.first.Scalar();
                if (kept.contains(name) || candidate.dropped[key].contains(name)) continue;
                candidate.dropped[key].insert(name);
                any = true;
            }
        }
        if (any) tryCandidate(std::move(candidate));
    }

    Doc best_;
    const Judge& judge_;
    std::string kind_;
    std::size_t maxCalls_;
    ShrinkResult result_;
};

}  // namespace

ShrinkResult shrink(const std::string& yaml, const Judge& judge, const Verdict& original, std::size_t maxJudgeCalls) {
    std::string error;
    auto doc = readDoc(yaml, error);
    if (!doc) {
        ShrinkResult r;
        r.yaml = yaml;
        r.verdict = original;
        r.error = error;
        return r;
    }
    return Shrinker(std::move(*doc), judge, original, maxJudgeCalls).run(original.step);
}

}  // namespace cnx::sim::explore
