#pragma once
// The sticky key of an entry and its hash, as Key_Shared dispatch and the
// Failover hash ring compute them (Commands.peekStickyKey, Murmur3_32Hash).

#include <cstdint>
#include <string>
#include <string_view>

#include "proto/PulsarApi.pb.h"

namespace cnx::sticky {

/// StickyKeyConsumerSelector.DEFAULT_RANGE_SIZE (2 << 15): hashes are taken modulo it.
inline constexpr std::uint32_t kRangeSize = 65536;

/// Murmur3_32Hash.makeHash (pulsar-common): MurmurHash3 x86 32-bit, seed 0,
/// masked to a non-negative Java int.
std::uint32_t murmur3(std::string_view bytes);

/// Commands.peekStickyKey: the ordering key if present, else the partition key
/// (base64-decoded when partition_key_b64_encoded), else "NONE_KEY". A batch
/// entry's metadata carries its first message's keys (or the batch's key with
/// key-based batching), as the client builds it.
std::string stickyKey(const pulsar::proto::MessageMetadata& metadata);

/// The slot of an entry in [0, kRangeSize): murmur3(stickyKey) % kRangeSize.
inline std::uint32_t slotOf(const pulsar::proto::MessageMetadata& metadata) {
    return murmur3(stickyKey(metadata)) % kRangeSize;
}

}  // namespace cnx::sticky
