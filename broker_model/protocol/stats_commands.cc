// ServerCnx.handleConsumerStats: CONSUMER_STATS answered from the model's
// consumer and subscription (issue 41 item 16). Rates are not modelled: they
// stay 0, as on a broker that has not computed its stats yet.
#include "broker_model/protocol/server_cnx.h"

#include <algorithm>

namespace cnx {
namespace {
const std::map<std::string, Subscription> kNone;
}  // namespace

void ServerCnx::handleConsumerStats(const pulsar::proto::CommandConsumerStats& cmd) {
    wire::PooledCommand out;
    out->set_type(pulsar::proto::BaseCommand::CONSUMER_STATS_RESPONSE);
    auto* r = out->mutable_consumerstatsresponse();
    r->set_request_id(cmd.request_id());
    const Subscription* found = nullptr;
    const AttachedConsumer* consumer = nullptr;
    const Topic* topic = consumerTopic(cmd.consumer_id());
    for (const auto& [_, sub] : topic ? topic->subscriptions() : kNone) {
        for (const auto& c : sub.consumers)
            if (c.connectionId == id_ && c.consumerId == cmd.consumer_id()) {
                found = &sub;
                consumer = &c;
            }
        if (found) break;
    }
    if (!consumer) {
        // ServerCnx: a consumer id that is not (or no longer) on the connection.
        r->set_error_code(pulsar::proto::ConsumerNotFound);
        r->set_error_message("Consumer " + std::to_string(cmd.consumer_id()) + " not found");
        send(std::move(out));
        return;
    }
    r->set_consumername(consumer->name);
    r->set_availablepermits(static_cast<std::uint64_t>(std::max<std::int64_t>(consumer->permits, 0)));
    r->set_unackedmessages(consumer->pending.size());
    r->set_blockedconsumeronunackedmsgs(false);
    r->set_msgrateout(0);
    r->set_msgthroughputout(0);
    r->set_msgrateredeliver(0);
    r->set_msgrateexpired(0);
    // Subscription.getNumberOfEntriesInBacklog(false) and getTypeString().
    r->set_msgbacklog(topic->backlogOf(*found));
    r->set_type(found->subType);
    send(std::move(out));
}

}  // namespace cnx
