#include "sim/serve/fault.h"

#include <charconv>

#include "broker_model/wire/commands.h"
#include "sim/runtime/duration.h"

namespace cnx::serve {
namespace {

using pulsar::proto::BaseCommand;

constexpr auto kMaxDelay = std::chrono::hours(1);

}  // namespace

std::variant<Fault, std::string> parseFault(std::string_view text) {
    Fault f;
    f.text = std::string(text);
    auto colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0)
        return "a fault is COMMAND:ACTION, e.g. PRODUCER:delay=200ms (got '" + f.text + "')";
    std::string kind(text.substr(0, colon));
    if (!BaseCommand::Type_Parse(kind, &f.command))
        return "'" + kind + "' is not a Pulsar command name (e.g. PRODUCER, SUBSCRIBE, SEND, LOOKUP)";
    if (wire::senderOf(f.command) == wire::Sender::broker)
        return kind + " is sent by the broker, not a client: a fault applies to what a client sends";
    std::string_view rest = text.substr(colon + 1);
    if (rest.empty()) return "fault '" + f.text + "' names no action (delay=DURATION, drop, error=ServerError)";
    while (!rest.empty()) {
        auto comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        auto eq = item.find('=');
        std::string_view key = item.substr(0, eq);
        std::string_view value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
        if (key == "message") {  // the rest of the text, commas included
            if (eq == std::string_view::npos) return "message takes a text: message=TEXT";
            f.message = std::string(rest.substr(eq + 1));
            break;
        }
        if (key == "drop" && eq == std::string_view::npos) {
            f.drop = true;
        } else if (key == "delay") {
            auto d = sim::parseDuration(value, kMaxDelay);
            if (!d) return "delay takes a duration such as 200ms or 1.5s, at most 1 hour (got '" + std::string(value) + "')";
            f.delay = *d;
        } else if (key == "error") {
            pulsar::proto::ServerError code{};
            if (!pulsar::proto::ServerError_Parse(std::string(value), &code))
                return "error takes a ServerError name such as ServiceNotReady or TooManyRequests (got '" +
                       std::string(value) + "')";
            f.error = code;
        } else if (key == "times") {
            std::uint64_t n = 0;
            auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
            if (ec != std::errc() || p != value.data() + value.size() || n == 0)
                return "times takes a count of at least 1 (got '" + std::string(value) + "')";
            f.times = n;
        } else {
            return "unknown fault action '" + std::string(item) +
                   "' (actions: delay=DURATION, drop, error=ServerError, times=N, message=TEXT)";
        }
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    if (f.drop && f.error) return "fault '" + f.text + "': drop and error exclude each other";
    if (!f.drop && !f.error && f.delay.count() == 0)
        return "fault '" + f.text + "' does nothing: give delay=DURATION, drop or error=ServerError";
    if (f.error && !wire::hasErrorAnswer(f.command))
        return BaseCommand::Type_Name(f.command) + " gets no answer a broker could fail: use delay or drop";
    if (!f.message.empty() && !f.error) return "fault '" + f.text + "': message goes with error=";
    if (f.error && f.message.empty()) f.message = "cnxsim fault: " + pulsar::proto::ServerError_Name(*f.error);
    return f;
}

void FaultPlan::add(Fault fault) { faults_.push_back({std::move(fault), 0}); }

std::optional<Fault> FaultPlan::take(BaseCommand::Type type) {
    for (auto& a : faults_) {
        if (a.fault.command != type) continue;
        if (a.fault.times && a.used >= *a.fault.times) continue;
        ++a.used;
        return a.fault;
    }
    return std::nullopt;
}

}  // namespace cnx::serve
