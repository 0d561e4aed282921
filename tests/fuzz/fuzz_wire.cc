// libFuzzer target: the wire decoder and ServerCnx::receive (reference §8.1).
//
// Input: a byte stream of frames as a client sends them. It is cut into
// frames by each frame's own leading totalSize (u32 big-endian, + 4 bytes);
// a size that runs past the end takes the rest. Each frame goes to one
// connection of a fresh broker, after a valid CONNECT, with the executor
// drained after every frame, until the connection refuses one. A second
// connection then connects and subscribes, so damage one peer does to shared
// broker state shows up as a failure on another.
//
// Every frame the broker sends back must itself decode.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "broker_model/broker/broker.h"
#include "sim/runtime/sim_scheduler.h"
#include "broker_model/profile/profile.h"
#include "broker_model/protocol/server_cnx.h"
#include "broker_model/wire/frame.h"

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

std::uint32_t u32At(std::string_view s) {
    return (std::uint32_t(std::uint8_t(s[0])) << 24) | (std::uint32_t(std::uint8_t(s[1])) << 16) |
           (std::uint32_t(std::uint8_t(s[2])) << 8) | std::uint32_t(std::uint8_t(s[3]));
}

/// The next frame of `rest` by its own totalSize; advances `rest`.
std::string_view nextFrame(std::string_view& rest) {
    std::size_t n = rest.size();
    if (rest.size() >= 4) {
        std::uint64_t want = std::uint64_t(u32At(rest)) + 4;
        if (want < n) n = static_cast<std::size_t>(want);
    }
    auto frame = rest.substr(0, n);
    rest.remove_prefix(n);
    return frame;
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
    cnx::sim::SimScheduler executor;
    cnx::Broker broker(cnx::newestProfile(), executor);
    int answers = 0;
    {
        cnx::ServerCnx peer(broker, checkedSender(&answers));
        if (peer.receive(connect)) std::abort();
        std::string_view rest(reinterpret_cast<const char*>(data), size);
        while (!rest.empty() && !peer.closed()) {
            peer.receive(nextFrame(rest));
            executor.runUntilIdle();
        }
    }
    // Another client is unaffected by what the first one sent.
    cnx::ServerCnx witness(broker, checkedSender(&answers));
    if (witness.receive(connect) || witness.receive(subscribe)) std::abort();
    executor.runUntilIdle();
    return 0;
}
