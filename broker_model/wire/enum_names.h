#pragma once
// The names of the protocol's enum values that the model puts into answers
// and traces on every request (ServerError, SubType, ProducerAccessMode).
// protobuf's generated *_Name() and *_Parse() go through the enum's
// descriptor (a pthread_once and a lookup) on every call; these read a
// table made once.

#include <string>
#include <string_view>

#include "proto/PulsarApi.pb.h"

namespace cnx::wire {

const std::string& serverErrorName(pulsar::proto::ServerError e);
const std::string& subTypeName(pulsar::proto::CommandSubscribe::SubType t);
const std::string& accessModeName(pulsar::proto::ProducerAccessMode m);

/// The value named `name` (as the generated *_Parse reads it): false, `out`
/// untouched, when no value has that name.
bool parseSubType(std::string_view name, pulsar::proto::CommandSubscribe::SubType* out);
bool parseAccessMode(std::string_view name, pulsar::proto::ProducerAccessMode* out);

}  // namespace cnx::wire
