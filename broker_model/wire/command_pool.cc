#include "broker_model/wire/command_pool.h"

#include "broker_model/wire/recycling_pool.h"

namespace cnx::wire {
namespace {

using pulsar::proto::BaseCommand;
using Pool = RecyclingPool<BaseCommand, kPooledCommands>;

}  // namespace

void CommandRecycle::operator()(BaseCommand* command) const noexcept {
    if (!command) return;
    if (command->ByteSizeLong() > kPooledCommandBytes) {
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
