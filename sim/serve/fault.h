#pragma once
// Fault injection for `cnxsim serve`, for client authors: per command kind,
// delay the answer, never answer, or answer an error, for every such command
// or only the first N. Written `KIND:ACTION[,ACTION...]`, on the command line
// (`--fault PRODUCER:delay=200ms`) or in a setup file's `faults:` list:
//
//   PRODUCER:delay=200ms                 the PRODUCER is handled 200 ms late
//   SUBSCRIBE:error=ServiceNotReady      answered with that ServerError
//   LOOKUP:drop                          never answered
//   SEND:error=PersistenceError,times=3  the first three SENDs fail
//   PRODUCER:delay=1s,error=TooManyRequests,message=slow down
//
// A fault is the transport's, not the broker's: the model never sees a
// dropped or failed command, and a delayed one reaches it late.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "proto/PulsarApi.pb.h"

namespace cnx::serve {

struct Fault {
    pulsar::proto::BaseCommand::Type command = pulsar::proto::BaseCommand::CONNECT;
    std::chrono::milliseconds delay{0};
    bool drop = false;
    std::optional<pulsar::proto::ServerError> error;
    std::string message;               // the error's text
    std::optional<std::uint64_t> times;  // only the first N commands of the kind
    std::string text;                  // as written, for logs and traces
};

/// Parses one fault; the error text (naming what is wrong and what is accepted) otherwise.
std::variant<Fault, std::string> parseFault(std::string_view text);

/// The faults a server injects, matched in the order given. Shared by every
/// connection: `times` counts commands across the server.
class FaultPlan {
public:
    void add(Fault fault);
    bool empty() const { return faults_.empty(); }
    /// The fault that applies to the next command of `type` (counting it), or nullopt.
    std::optional<Fault> take(pulsar::proto::BaseCommand::Type type);

private:
    struct Armed {
        Fault fault;
        std::uint64_t used = 0;
    };
    std::vector<Armed> faults_;
};

}  // namespace cnx::serve
