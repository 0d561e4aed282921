#include "broker_model/wire/command_pool.h"

#include <vector>

namespace cnx::wire {
namespace {

using pulsar::proto::BaseCommand;

// Set when this thread's pool is gone (thread exit): a command released after
// that is deleted. A bool stays readable after the thread's other objects go.
thread_local bool tPoolGone = false;

struct Pool {
    std::vector<BaseCommand*> commands;
    Pool() { commands.reserve(kPooledCommands); }  // release never allocates
    ~Pool() {
        tPoolGone = true;
        for (BaseCommand* c : commands) delete c;
    }
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
};

Pool& pool() {
    thread_local Pool p;
    return p;
}

}  // namespace

void CommandRecycle::operator()(BaseCommand* command) const noexcept {
    if (!command) return;
    if (!tPoolGone && pool().commands.size() < kPooledCommands && command->ByteSizeLong() <= kPooledCommandBytes) {
        command->Clear();
        pool().commands.push_back(command);
        return;
    }
    delete command;
}

std::size_t pooledCommands() { return tPoolGone ? 0 : pool().commands.size(); }

PooledCommand::PooledCommand() {
    BaseCommand* command = nullptr;
    if (!tPoolGone && !pool().commands.empty()) {
        command = pool().commands.back();
        pool().commands.pop_back();
    } else {
        command = new BaseCommand();
    }
    command_.reset(command);
}

}  // namespace cnx::wire
