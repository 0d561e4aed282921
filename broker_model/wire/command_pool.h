#pragma once
// Commands to send, kept for reuse on the thread that built them. A command
// built in a command that held one before reuses its protobuf messages and the
// capacity of their strings (protobuf's Clear keeps both), where a fresh
// BaseCommand (528 bytes) allocates every message and string it sets and frees
// them all again. Each step of `cnxsim run` builds a command on the client
// side and one or more answers on the broker side.
//
// A command goes back to its thread's pool, cleared, when its PooledCommand
// goes, unless its message (the one its type names) has grown past
// kPooledCommandBytes encoded (its strings would keep that capacity) or the
// pool is full.

#include <cstddef>
#include <memory>

#include "proto/PulsarApi.pb.h"

namespace cnx::wire {

inline constexpr std::size_t kPooledCommands = 32;
inline constexpr std::size_t kPooledCommandBytes = 64 * 1024;

/// Clears a command and gives it back to the pool of the thread it is released on, or deletes it.
struct CommandRecycle {
    void operator()(pulsar::proto::BaseCommand* command) const noexcept;
};

/// How many commands this thread's pool holds now.
std::size_t pooledCommands();

/// An empty command from this thread's pool. Reads as the command; passes as
/// `const BaseCommand&` for as long as it lives (bind it with `auto`, never
/// with `const BaseCommand&`, which would outlive it).
class PooledCommand {
public:
    PooledCommand();
    pulsar::proto::BaseCommand& operator*() const { return *command_; }
    pulsar::proto::BaseCommand* operator->() const { return command_.get(); }
    /// The command; null only in a PooledCommand moved from.
    pulsar::proto::BaseCommand* get() const { return command_.get(); }
    operator const pulsar::proto::BaseCommand&() const { return *command_; }  // NOLINT: passes as the command

private:
    std::unique_ptr<pulsar::proto::BaseCommand, CommandRecycle> command_;
};

}  // namespace cnx::wire
