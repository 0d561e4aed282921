#include "broker_model/wire/command_pool.h"

#include "broker_model/wire/commands.h"
#include "broker_model/wire/recycling_pool.h"

namespace cnx::wire {
namespace {

using pulsar::proto::BaseCommand;
using Pool = RecyclingPool<BaseCommand, kPooledCommands>;

}  // namespace

void CommandRecycle::operator()(BaseCommand* command) const noexcept {
    if (!command) return;
    // The size of its own message (the command is its type and that message):
    // BaseCommand::ByteSizeLong() would test all ~60 of its optional messages.
    const auto* body = bodyOf(*command);
    if (body && body->ByteSizeLong() > kPooledCommandBytes) {
        delete command;
        return;
    }
    command->Clear();
    Pool::give(command);
}

std::size_t pooledCommands() { return Pool::size(); }

PooledCommand::PooledCommand() {
    BaseCommand* command = Pool::take();
    command_.reset(command ? command : new BaseCommand());
}

}  // namespace cnx::wire
