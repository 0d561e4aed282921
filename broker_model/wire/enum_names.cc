#include "broker_model/wire/enum_names.h"

#include <utility>
#include <vector>

namespace cnx::wire {
namespace {

// The generated names of every value from Min to Max; a value outside the
// table (or not in the enum) falls back to the generated function itself.
template <typename E, int Min, int Max, bool (*IsValid)(int), const std::string& (*Name)(E)>
const std::string& cachedName(E value) {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (int i = Min; i <= Max; ++i) v.push_back(IsValid(i) ? Name(static_cast<E>(i)) : std::string());
        return v;
    }();
    const int i = static_cast<int>(value);
    if (i >= Min && i <= Max && !names[static_cast<std::size_t>(i - Min)].empty())
        return names[static_cast<std::size_t>(i - Min)];
    return Name(value);
}

// The value whose name is `name`: a table of the valid values' names, built
// once and searched in order (the tables are a few entries long).
template <typename E, int Min, int Max, bool (*IsValid)(int), const std::string& (*Name)(E)>
bool parseCached(std::string_view name, E* out) {
    static const std::vector<std::pair<std::string, E>> table = [] {
        std::vector<std::pair<std::string, E>> v;
        for (int i = Min; i <= Max; ++i)
            if (IsValid(i)) v.emplace_back(Name(static_cast<E>(i)), static_cast<E>(i));
        return v;
    }();
    for (const auto& [text, value] : table) {
        if (text == name) {
            *out = value;
            return true;
        }
    }
    return false;
}

const std::string& generatedServerErrorName(pulsar::proto::ServerError e) { return pulsar::proto::ServerError_Name(e); }
const std::string& generatedSubTypeName(pulsar::proto::CommandSubscribe::SubType t) {
    return pulsar::proto::CommandSubscribe::SubType_Name(t);
}
const std::string& generatedAccessModeName(pulsar::proto::ProducerAccessMode m) {
    return pulsar::proto::ProducerAccessMode_Name(m);
}

}  // namespace

const std::string& serverErrorName(pulsar::proto::ServerError e) {
    return cachedName<pulsar::proto::ServerError, pulsar::proto::ServerError_MIN, pulsar::proto::ServerError_MAX,
                      pulsar::proto::ServerError_IsValid, generatedServerErrorName>(e);
}

const std::string& subTypeName(pulsar::proto::CommandSubscribe::SubType t) {
    return cachedName<pulsar::proto::CommandSubscribe::SubType, pulsar::proto::CommandSubscribe::SubType_MIN,
                      pulsar::proto::CommandSubscribe::SubType_MAX, pulsar::proto::CommandSubscribe::SubType_IsValid,
                      generatedSubTypeName>(t);
}

const std::string& accessModeName(pulsar::proto::ProducerAccessMode m) {
    return cachedName<pulsar::proto::ProducerAccessMode, pulsar::proto::ProducerAccessMode_MIN,
                      pulsar::proto::ProducerAccessMode_MAX, pulsar::proto::ProducerAccessMode_IsValid,
                      generatedAccessModeName>(m);
}

bool parseSubType(std::string_view name, pulsar::proto::CommandSubscribe::SubType* out) {
    return parseCached<pulsar::proto::CommandSubscribe::SubType, pulsar::proto::CommandSubscribe::SubType_MIN,
                       pulsar::proto::CommandSubscribe::SubType_MAX, pulsar::proto::CommandSubscribe::SubType_IsValid,
                       generatedSubTypeName>(name, out);
}

bool parseAccessMode(std::string_view name, pulsar::proto::ProducerAccessMode* out) {
    return parseCached<pulsar::proto::ProducerAccessMode, pulsar::proto::ProducerAccessMode_MIN,
                       pulsar::proto::ProducerAccessMode_MAX, pulsar::proto::ProducerAccessMode_IsValid,
                       generatedAccessModeName>(name, out);
}

}  // namespace cnx::wire
