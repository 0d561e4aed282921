// libFuzzer target: the wire decoder and ServerCnx::receive (reference §8.1).
//
// Input: a byte stream of frames as a client sends them. It reaches a
// wire::FrameStream in chunks, as a socket would deliver it: the chunk sizes
// come from a seeded generator whose seed is a hash of the input (so the same
// input is always cut the same way, and a mutation cuts it differently). Each
// decoded frame goes to one connection of a fresh broker, after a valid
// CONNECT, with the scheduler drained after every frame, until the connection
// refuses one or the stream fails (the broker then closes the connection). A
// second connection then connects and subscribes, so damage one peer does to
// shared broker state shows up as a failure on another.
//
// Every frame the broker sends back must itself decode.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "broker_model/broker/broker.h"
#include "sim/runtime/sim_scheduler.h"
#include "broker_model/profile/profile.h"
#include "broker_model/protocol/server_cnx.h"
#include "broker_model/wire/frame.h"
#include "broker_model/wire/frame_stream.h"

namespace {

using pulsar::proto::BaseCommand;

std::string connectFrame() {
    BaseCommand c;
    c.set_type(BaseCommand::CONNECT);
    c.mutable_connect()->set_client_version("fuzz");
    c.mutable_connect()->set_protocol_version(21);
    return cnx::wire::encodeFrame(c);
}

std::string subscribeFrame() {
    BaseCommand c;
    c.set_type(BaseCommand::SUBSCRIBE);
    auto* s = c.mutable_subscribe();
    s->set_topic("persistent://public/default/fuzz");
    s->set_subscription("witness");
    s->set_subtype(pulsar::proto::CommandSubscribe::Shared);
    s->set_consumer_id(1);
    s->set_request_id(1);
    return cnx::wire::encodeFrame(c);
}

/// FNV-1a of the input: the seed of its chunk sizes.
std::uint64_t hashOf(std::string_view s) {
    std::uint64_t h = 1469598103934665603ull;
    for (char c : s) h = (h ^ static_cast<std::uint8_t>(c)) * 1099511628211ull;
    return h;
}

/// The next chunk length: mostly short (frames split across chunks), sometimes
/// long (several frames in one chunk).
std::size_t nextChunk(std::uint64_t& state) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    auto r = state >> 33;
    return r % 4 == 0 ? 1 + (r >> 2) % 4096 : 1 + (r >> 2) % 16;
}

/// A connection whose every outgoing frame must decode.
cnx::ServerCnx::Sender checkedSender(int* answers) {
    return [answers](std::string out) {
        std::string error;
        if (!cnx::wire::decodeFrame(out, &error)) std::abort();  // the broker sent a frame it cannot read
        ++*answers;
    };
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string connect = connectFrame();
    static const std::string subscribe = subscribeFrame();
    cnx::sim::SimScheduler scheduler;
    cnx::Broker broker(cnx::newestProfile(), scheduler);
    int answers = 0;
    {
        cnx::ServerCnx peer(broker, checkedSender(&answers));
        if (peer.receive(connect)) std::abort();
        std::string_view rest(reinterpret_cast<const char*>(data), size);
        std::uint64_t state = hashOf(rest);
        cnx::wire::FrameStream stream;
        while (!rest.empty() && !peer.closed()) {
            auto n = std::min(nextChunk(state), rest.size());
            stream.feed(rest.substr(0, n));
            rest.remove_prefix(n);
            while (auto frame = stream.next()) {
                if (peer.closed()) break;
                peer.receive(*frame);
                scheduler.runUntilIdle();
            }
            if (stream.failed()) peer.close();  // a malformed frame closes the connection
        }
    }
    // Another client is unaffected by what the first one sent.
    cnx::ServerCnx witness(broker, checkedSender(&answers));
    if (witness.receive(connect) || witness.receive(subscribe)) std::abort();
    scheduler.runUntilIdle();
    return 0;
}
