#include "sim/serve/decision_ring.h"

#include "broker_model/wire/commands.h"
#include "sim/serve/trace_log.h"

namespace cnx::serve {

nlohmann::json traceJson(const Trace& trace) {
    auto out = nlohmann::json::array();
    for (const auto& e : trace.entries()) {
        nlohmann::json entry{{"section", e.section.view()}, {"rule", e.rule.view()}, {"detail", e.detail}};
        if (e.notModelled) entry["notModelled"] = true;
        out.push_back(std::move(entry));
    }
    return out;
}

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
    if (requests_.emplace(std::pair{connection, *rid}, describeCommand(command)).second) ++count;
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
    nlohmann::json d{{"connection", connection}, {"answer", describeCommand(command)}, {"trace", traceJson(*trace)}};
    if (!request.empty()) d["request"] = request;
    keep(std::move(d));
}

void DecisionRing::event(const std::string& text) { keep({{"event", text}}); }

void DecisionRing::admin(const AdminExchange& exchange) {
    if (exchange.target.rfind("/cnxsim/", 0) == 0) return;  // reading the ring is no decision; lifecycle comes as events
    nlohmann::json d{{"admin", exchange.method + " " + exchange.target}, {"status", exchange.status}};
    d["trace"] = exchange.trace ? traceJson(*exchange.trace) : nlohmann::json::array();
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
