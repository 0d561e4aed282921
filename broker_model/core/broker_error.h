#pragma once
// A refusal as the broker raises it: the client-visible error code and the
// root exception (class and message). How the text reaches the client depends
// on the path (§1.5 producer wrapping, §2.1 consumer root message), so the
// formatting happens in ServerCnx, not here.

#include <string>
#include <variant>

#include "proto/PulsarApi.pb.h"

namespace cnx {

using ServerError = pulsar::proto::ServerError;

struct BrokerError {
    ServerError code = pulsar::proto::UnknownError;
    std::string exceptionClass;  // fully-qualified Java class of the root exception
    std::string message;         // its message
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
