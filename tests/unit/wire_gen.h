#pragma once
// Seeded random wire frames of every BaseCommand type (issue 9 item 6): each
// command's sub-message is filled through protobuf reflection, every required
// field set and some optional ones, so a frame of any type is as a peer could
// send it. Used by the frame-stream tests; deterministic for a seed.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "broker_model/wire/commands.h"
#include "broker_model/wire/frame.h"

namespace cnx::testing::wiregen {

using pulsar::proto::BaseCommand;

/// Every value of BaseCommand::Type, ascending.
inline std::vector<BaseCommand::Type> allTypes() {
    std::vector<BaseCommand::Type> out;
    const auto* e = BaseCommand::Type_descriptor();
    for (int i = 0; i < e->value_count(); ++i) out.push_back(static_cast<BaseCommand::Type>(e->value(i)->number()));
    std::sort(out.begin(), out.end());
    return out;
}

/// Random bytes, or printable ASCII for proto `string` fields (`text`).
inline std::string randomString(std::mt19937_64& rng, std::size_t maxLen, bool text = false) {
    std::size_t len = std::uniform_int_distribution<std::size_t>(0, maxLen)(rng);
    std::string s(len, '\0');
    for (auto& c : s) c = static_cast<char>(text ? std::uniform_int_distribution<int>(32, 126)(rng)
                                                 : std::uniform_int_distribution<int>(0, 255)(rng));
    return s;
}

/// Sets every required field of `m` (recursively) and, above `depth` 0, some
/// optional and repeated ones. `maxString` bounds strings and bytes.
inline void fill(google::protobuf::Message& m, std::mt19937_64& rng, int depth, std::size_t maxString) {
    using google::protobuf::FieldDescriptor;
    const auto* d = m.GetDescriptor();
    const auto* r = m.GetReflection();
    for (int i = 0; i < d->field_count(); ++i) {
        const auto* f = d->field(i);
        bool wanted = f->is_required() || (depth > 0 && rng() % 3 == 0);
        if (!wanted) continue;
        int count = f->is_repeated() ? static_cast<int>(rng() % 3) : 1;
        for (int k = 0; k < count; ++k) {
            bool rep = f->is_repeated();
            switch (f->cpp_type()) {
                case FieldDescriptor::CPPTYPE_INT32: {
                    auto v = static_cast<std::int32_t>(rng());
                    rep ? r->AddInt32(&m, f, v) : r->SetInt32(&m, f, v);
                    break;
                }
                case FieldDescriptor::CPPTYPE_INT64: {
                    auto v = static_cast<std::int64_t>(rng());
                    rep ? r->AddInt64(&m, f, v) : r->SetInt64(&m, f, v);
                    break;
                }
                case FieldDescriptor::CPPTYPE_UINT32: {
                    auto v = static_cast<std::uint32_t>(rng());
                    rep ? r->AddUInt32(&m, f, v) : r->SetUInt32(&m, f, v);
                    break;
                }
                case FieldDescriptor::CPPTYPE_UINT64: {
                    auto v = rng() >> (rng() % 64);
                    rep ? r->AddUInt64(&m, f, v) : r->SetUInt64(&m, f, v);
                    break;
                }
                case FieldDescriptor::CPPTYPE_DOUBLE: {
                    double v = static_cast<double>(rng() % 100000) / 7.0;
                    rep ? r->AddDouble(&m, f, v) : r->SetDouble(&m, f, v);
                    break;
                }
                case FieldDescriptor::CPPTYPE_FLOAT: {
                    float v = static_cast<float>(rng() % 1000) / 3.0f;
                    rep ? r->AddFloat(&m, f, v) : r->SetFloat(&m, f, v);
                    break;
                }
                case FieldDescriptor::CPPTYPE_BOOL: {
                    bool v = rng() % 2;
                    rep ? r->AddBool(&m, f, v) : r->SetBool(&m, f, v);
                    break;
                }
                case FieldDescriptor::CPPTYPE_ENUM: {
                    const auto* e = f->enum_type();
                    const auto* v = e->value(static_cast<int>(rng() % static_cast<std::uint64_t>(e->value_count())));
                    rep ? r->AddEnum(&m, f, v) : r->SetEnum(&m, f, v);
                    break;
                }
                case FieldDescriptor::CPPTYPE_STRING: {
                    auto v = randomString(rng, maxString, f->type() == FieldDescriptor::TYPE_STRING);
                    rep ? r->AddString(&m, f, v) : r->SetString(&m, f, v);
                    break;
                }
                case FieldDescriptor::CPPTYPE_MESSAGE: {
                    if (!f->is_required() && depth <= 0) break;
                    auto* sub = rep ? r->AddMessage(&m, f) : r->MutableMessage(&m, f);
                    fill(*sub, rng, depth - 1, maxString);
                    break;
                }
            }
        }
    }
}

/// A command of `type` with its sub-message (field number == type value) filled.
inline BaseCommand command(BaseCommand::Type type, std::mt19937_64& rng, int depth = 2, std::size_t maxString = 24) {
    BaseCommand c;
    c.set_type(type);
    const auto* f = BaseCommand::descriptor()->FindFieldByNumber(static_cast<int>(type));
    auto* sub = c.GetReflection()->MutableMessage(&c, f);
    fill(*sub, rng, depth, maxString);
    return c;
}

/// What a decoded frame must reproduce.
struct Expected {
    std::string command;                  // serialized BaseCommand
    std::optional<std::string> metadata;  // serialized MessageMetadata of a payload frame
    std::string payload;
    bool checksum = false;
    std::optional<std::string> brokerEntry;  // serialized BrokerEntryMetadata of a MESSAGE
};

struct Stream {
    std::string bytes;
    std::vector<std::size_t> boundaries;  // offset where each frame starts, then the total size
    std::vector<Expected> frames;
};

/// `count` frames: every type in turn (so each appears), shuffled; sizes vary
/// from a few bytes to a few KiB; payload frames with and without checksum.
inline Stream mixedStream(std::uint64_t seed, std::size_t count) {
    std::mt19937_64 rng(seed);
    const auto types = allTypes();
    std::vector<BaseCommand::Type> order;
    for (std::size_t i = 0; i < count; ++i) order.push_back(types[i % types.size()]);
    std::shuffle(order.begin() + 4, order.end(), rng);  // the first 4 stay small and fixed
    Stream s;
    for (std::size_t i = 0; i < order.size(); ++i) {
        std::size_t maxString = i < 4 ? 8 : (rng() % 50 == 0 ? 1500 : 32);
        auto c = command(order[i], rng, static_cast<int>(rng() % 3), maxString);
        Expected e;
        e.command = c.SerializeAsString();
        s.boundaries.push_back(s.bytes.size());
        if (wire::isPayloadCommand(order[i])) {
            pulsar::proto::MessageMetadata meta;
            fill(meta, rng, static_cast<int>(rng() % 2), maxString);
            std::string payload = randomString(rng, rng() % 8 == 0 ? 6000 : 64);
            e.checksum = rng() % 2 == 0;
            std::optional<pulsar::proto::BrokerEntryMetadata> entry;
            if (order[i] == BaseCommand::MESSAGE && rng() % 2 == 0) {
                entry.emplace();
                entry->set_broker_timestamp(rng());
                if (rng() % 2) entry->set_index(rng());
                e.brokerEntry = entry->SerializeAsString();
            }
            e.metadata = meta.SerializeAsString();
            e.payload = payload;
            s.bytes += wire::encodePayloadFrame(c, meta, payload,
                                                e.checksum ? wire::Checksum::crc32c : wire::Checksum::none,
                                                entry ? &*entry : nullptr);
        } else {
            s.bytes += wire::encodeFrame(c);
        }
        s.frames.push_back(std::move(e));
    }
    s.boundaries.push_back(s.bytes.size());
    return s;
}

/// Empty when `f` reproduces `e`, else what differs.
inline std::string differs(const wire::Frame& f, const Expected& e) {
    if (f.command.SerializeAsString() != e.command)
        return "command " + BaseCommand::Type_Name(f.command.type()) + " differs";
    if (f.metadata.has_value() != e.metadata.has_value()) return "metadata presence differs";
    if (f.metadata && f.metadata->SerializeAsString() != *e.metadata) return "metadata differs";
    if (f.payload != e.payload) return "payload differs";
    if (f.checksumPresent != e.checksum) return "checksum presence differs";
    if (e.checksum && !f.checksumValid) return "checksum does not match";
    if (f.brokerEntryMetadata.has_value() != e.brokerEntry.has_value()) return "broker entry presence differs";
    if (f.brokerEntryMetadata && f.brokerEntryMetadata->SerializeAsString() != *e.brokerEntry)
        return "broker entry differs";
    return "";
}

}  // namespace cnx::testing::wiregen
