#pragma once
// The last decisions of a running `cnxsim serve`, for GET /cnxsim/trace?last=N:
// every answer the model decided with a decision trace (PRODUCER, SUBSCRIBE,
// GET_OR_CREATE_SCHEMA, ...), every admin call the model answered, and every
// lifecycle event, oldest first, at most kCapacity kept. A session tap
// (session_tap.h), so it sees what the trace log sees.
//
// Each decision keeps at most kDecisionBytes of text (issue 40 item 4: twenty
// refused 1 MiB uploads made ?last=1024 answer 83 MB): a text over kTextBytes
// (a request or answer that quotes a schema, a checker's message) keeps its
// start and says how long it was, and trace entries past the budget are
// counted in a last entry, not kept.
//
//   {"decisions": [{"seq": 7, "connection": 2, "request": "PRODUCER request 1 ...",
//                   "answer": "PRODUCER_SUCCESS ...", "trace": [{"section": "§1.1", "rule": "...", "detail": "..."}]},
//                  {"seq": 8, "admin": "POST /admin/v2/schemas/public/default/t/schema", "status": 200, "trace": [...]},
//                  {"seq": 9, "event": "upgrade from Pulsar 3.0.16 to 4.0 ..."}]}

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/net/session_tap.h"

namespace cnx::serve {

class DecisionRing final : public SessionTap {
public:
    static constexpr std::size_t kCapacity = 1024;
    /// The text one decision keeps at most, and one of its texts.
    static constexpr std::size_t kDecisionBytes = 4096;
    static constexpr std::size_t kTextBytes = 512;
    /// Requests awaiting their answer kept per connection; older ones are forgotten.
    static constexpr std::size_t kPendingPerConnection = 4096;

    void closed(std::uint64_t connection, const std::string& reason) override;
    void received(std::uint64_t connection, const pulsar::proto::BaseCommand& command) override;
    void sent(std::uint64_t connection, const pulsar::proto::BaseCommand& command, const Trace* trace) override;
    void event(const std::string& text) override;
    void admin(const AdminExchange& exchange) override;

    /// The newest `last` decisions (all when `last` exceeds what is kept), oldest first.
    nlohmann::json newest(std::size_t last) const;
    /// Forgets everything kept (sequence numbers keep counting).
    void clear();

private:
    void keep(nlohmann::json decision);

    std::deque<nlohmann::json> kept_;
    std::uint64_t seq_ = 0;
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::string> requests_;  // (connection, request id) -> text
    std::map<std::uint64_t, std::size_t> pendingCount_;
};

/// `text` cut to at most `max` bytes (at a UTF-8 sequence boundary), with its
/// length said when cut.
std::string shortenedText(std::string_view text, std::size_t max);

}  // namespace cnx::serve
