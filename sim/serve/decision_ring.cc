#include "sim/serve/decision_ring.h"

#include <algorithm>

#include "broker_model/wire/commands.h"
#include "sim/serve/trace_log.h"

namespace cnx::serve {

std::string shortenedText(std::string_view text, std::size_t max) {
    if (text.size() <= max) return std::string(text);
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a sequence
    return std::string(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

namespace {

/// The text one decision may still keep (DecisionRing::kDecisionBytes).
class TextBudget {
public:
    /// `text` shortened to what is left (at most kTextBytes), and charged.
    std::string take(std::string_view text) {
        auto kept = shortenedText(text, std::min(left_, DecisionRing::kTextBytes));
        left_ -= std::min(left_, kept.size());
        return kept;
    }
    bool spent() const { return left_ == 0; }

private:
    std::size_t left_ = DecisionRing::kDecisionBytes;
};

nlohmann::json traceJson(const Trace& trace, TextBudget& budget) {
    auto out = nlohmann::json::array();
    const auto& entries = trace.entries();
    std::size_t kept = 0;
    for (const auto& e : entries) {
        if (budget.spent()) break;
        nlohmann::json entry{{"section", budget.take(e.section.view())}, {"rule", budget.take(e.rule.view())},
                             {"detail", budget.take(e.detail)}};
        if (e.notModelled) entry["notModelled"] = true;
        out.push_back(std::move(entry));
        ++kept;
    }
    if (kept < entries.size())
        out.push_back({{"section", ""}, {"rule", "shortened"},
                       {"detail", std::to_string(entries.size() - kept) + " more entries not kept"}});
    return out;
}

}  // namespace

void DecisionRing::keep(nlohmann::json decision) {
    decision["seq"] = ++seq_;
    kept_.push_back(std::move(decision));
    while (kept_.size() > kCapacity) kept_.pop_front();
}

void DecisionRing::closed(std::uint64_t connection, const std::string&) {
    requests_.erase(requests_.lower_bound({connection, 0}), requests_.lower_bound({connection + 1, 0}));
    pendingCount_.erase(connection);
}

void DecisionRing::received(std::uint64_t connection, const pulsar::proto::BaseCommand& command) {
    auto rid = wire::requestIdOfRequest(command);
    if (!rid) return;
    auto& count = pendingCount_[connection];
    if (count >= kPendingPerConnection) return;  // a peer that never reads its answers: forget the text
    auto text = shortenedText(describeCommand(command), kTextBytes);
    if (requests_.emplace(std::pair{connection, *rid}, std::move(text)).second) ++count;
}

void DecisionRing::sent(std::uint64_t connection, const pulsar::proto::BaseCommand& command, const Trace* trace) {
    auto rid = wire::requestIdOf(command);
    std::string request;
    if (rid) {
        auto it = requests_.find({connection, *rid});
        if (it != requests_.end()) {
            request = std::move(it->second);
            requests_.erase(it);
            --pendingCount_[connection];
        }
    }
    if (!trace || trace->empty()) return;  // no decision behind it
    TextBudget budget;
    nlohmann::json d{{"connection", connection}, {"answer", budget.take(describeCommand(command))}};
    if (!request.empty()) d["request"] = budget.take(request);
    d["trace"] = traceJson(*trace, budget);
    keep(std::move(d));
}

void DecisionRing::event(const std::string& text) { keep({{"event", shortenedText(text, kTextBytes)}}); }

void DecisionRing::admin(const AdminExchange& exchange) {
    if (exchange.target.rfind("/cnxsim/", 0) == 0) return;  // reading the ring is no decision; lifecycle comes as events
    TextBudget budget;
    nlohmann::json d{{"admin", budget.take(exchange.method + " " + exchange.target)}, {"status", exchange.status}};
    d["trace"] = exchange.trace ? traceJson(*exchange.trace, budget) : nlohmann::json::array();
    keep(std::move(d));
}

nlohmann::json DecisionRing::newest(std::size_t last) const {
    auto out = nlohmann::json::array();
    std::size_t from = kept_.size() > last ? kept_.size() - last : 0;
    for (std::size_t i = from; i < kept_.size(); ++i) out.push_back(kept_[i]);
    return {{"decisions", std::move(out)}};
}

void DecisionRing::clear() {
    kept_.clear();
    requests_.clear();
    pendingCount_.clear();
}

}  // namespace cnx::serve
