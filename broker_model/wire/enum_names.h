#pragma once
// The names of the protocol's enum values that the model puts into answers
// and traces on every request (ServerError, SubType, ProducerAccessMode).
// protobuf's generated *_Name() goes through the enum's descriptor (a
// pthread_once and a lookup) on every call; these read a table made once.

#include <string>

#include "proto/PulsarApi.pb.h"

namespace cnx::wire {

const std::string& serverErrorName(pulsar::proto::ServerError e);
const std::string& subTypeName(pulsar::proto::CommandSubscribe::SubType t);
const std::string& accessModeName(pulsar::proto::ProducerAccessMode m);

}  // namespace cnx::wire
