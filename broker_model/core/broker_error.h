#pragma once
// A refusal as the broker raises it: its kind (refusal.h: the client-visible
// error code and, where fixed, the root exception's class), the root
// exception's message, and the checker's problems when a checker decided. How
// the text reaches the client depends on the path (§1.5 producer wrapping,
// §2.1 consumer root message), so the formatting happens in ServerCnx and the
// admin API, not here.

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "broker_model/core/problem.h"
#include "broker_model/core/refusal.h"
#include "broker_model/core/schema_data.h"

namespace cnx {

struct BrokerError {
    BrokerError() = default;
    BrokerError(RefusalKind kind, std::string message, std::optional<std::string> exceptionClassOverride = std::nullopt)
        : kind(kind), message(std::move(message)), exceptionClassOverride(std::move(exceptionClassOverride)) {}

    RefusalKind kind = RefusalKind::checkerError;
    std::string message;  // the root exception's message
    /// The root exception's class when the kind has none fixed (a checker's
    /// thrown exception), or "" for an answer the handler writes itself
    /// (no class in the text although the kind has one).
    std::optional<std::string> exceptionClassOverride;
    std::vector<Problem> problems;              // the checker's, when a checker refused
    std::optional<SchemaVersion> failedAgainst;  // the live version the checker failed on, when known

    ServerError code() const { return serverErrorOf(kind); }
    /// The fully-qualified Java class of the root exception ("" when none).
    std::string exceptionClass() const {
        return exceptionClassOverride ? *exceptionClassOverride : std::string(exceptionClassOf(kind));
    }
    /// Throwable.toString() of the root exception: "<class>: <message>", or the message alone without a class.
    std::string text() const {
        auto cls = exceptionClass();
        return cls.empty() ? message : cls + ": " + message;
    }
};

/// A value or the broker's refusal. Errors are values: nothing in the model throws.
template <typename T>
class Result {
public:
    Result(T value) : v_(std::move(value)) {}
    Result(BrokerError error) : v_(std::move(error)) {}
    bool ok() const { return std::holds_alternative<T>(v_); }
    const T& value() const { return std::get<T>(v_); }
    const BrokerError& error() const { return std::get<BrokerError>(v_); }

private:
    std::variant<T, BrokerError> v_;
};

}  // namespace cnx
