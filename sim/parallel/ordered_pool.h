#pragma once
// Work spread over threads, results taken in order. `cnxsim run` loads its
// files and runs its scenarios on every core this way, and prints exactly what
// a run on one thread prints: each result is handed over on the calling
// thread, in index order, as soon as it and every earlier one are done.

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace cnx::sim {

/// The jobs `--jobs` defaults to: the machine's hardware threads (at least 1, at most 64).
unsigned defaultJobs();

/// How items are dealt to the threads.
enum class Deal {
    nextFree,  // each thread takes the next item not yet taken (balances uneven items)
    striped,   // thread w takes items w, w + T, w + 2T, ... (T threads): which thread
               // handles which item, and so what its per-thread state has seen, is fixed
};

/// Runs `work(i, worker)` for every i in [0, n) on up to `jobs` threads
/// (`worker` in [0, jobs) names the thread, for per-thread state such as a
/// cache) and calls `take(i, result)` on the calling thread for i = 0, 1, ...
/// in order. The calling thread is worker 0: between two takes it works an
/// item of its own, so `jobs` threads work in all, and it sleeps only when
/// nothing is left for it to work and the result it takes next is not done
/// (a wake-up per item costs a system call and a context switch; on a 2-core
/// VM that was most of the time the second thread saved). A result is so taken
/// when it and every earlier one are done and the calling thread has finished
/// the item it is working on. With `jobs` <= 1 or n <= 1 everything runs on the
/// calling thread, one item after the other. An exception thrown by `work(i)`
/// is rethrown from here in i's turn, after the other threads have stopped.
template <class Work, class Take>
void forEachOrdered(std::size_t n, unsigned jobs, Deal deal, Work&& work, Take&& take) {
    using Result = std::invoke_result_t<Work&, std::size_t, unsigned>;
    if (jobs <= 1 || n <= 1) {
        for (std::size_t i = 0; i < n; ++i) take(i, work(i, 0u));
        return;
    }
    const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(jobs, n));
    struct Slot {
        std::optional<Result> result;
        std::exception_ptr error;
        bool done = false;
    };
    std::vector<Slot> slots(n);
    std::mutex mu;
    std::condition_variable ready;
    std::size_t next = 0;       // Deal::nextFree: the next index a thread takes, under mu
    std::size_t wanted = 0;     // the index the caller waits for
    bool callerWaits = false;   // the caller sleeps until `wanted` is done: only then is it woken
    bool stop = false;          // the caller gave up (an exception): workers take no more
    // The `taken`-th item of worker w, or n when it has no more (under mu).
    auto pick = [&](unsigned w, std::size_t taken) -> std::size_t {
        if (deal == Deal::striped) {
            std::size_t i = w + taken * threads;
            return i < n ? i : n;
        }
        return next == n ? n : next++;
    };
    auto runItem = [&](std::size_t i, unsigned w) {
        std::optional<Result> r;
        std::exception_ptr e;
        try {
            r.emplace(work(i, w));
        } catch (...) {
            e = std::current_exception();
        }
        bool wake;
        {
            std::lock_guard<std::mutex> lock(mu);
            slots[i].result = std::move(r);
            slots[i].error = e;
            slots[i].done = true;
            wake = callerWaits && i == wanted;
        }
        if (wake) ready.notify_one();
    };
    auto worker = [&](unsigned w) {
        for (std::size_t taken = 0;; ++taken) {
            std::size_t i;
            {
                std::lock_guard<std::mutex> lock(mu);
                if (stop) return;
                i = pick(w, taken);
            }
            if (i == n) return;
            runItem(i, w);
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    auto join = [&] {
        {
            std::lock_guard<std::mutex> lock(mu);
            stop = true;
        }
        for (auto& t : pool) t.join();
    };
    try {
        for (unsigned w = 1; w < threads; ++w) pool.emplace_back(worker, w);
    } catch (const std::system_error&) {
        // No thread to be had (a process limit): stop the ones started and do
        // everything here, one item after the other. An item may then be worked
        // twice; its result is taken once.
        join();
        for (std::size_t i = 0; i < n; ++i) take(i, work(i, 0u));
        return;
    }
    try {
        std::size_t ownTaken = 0;  // items the caller (worker 0) has picked
        bool ownLeft = true;       // it may have more
        for (std::size_t i = 0; i < n; ++i) {
            std::optional<Result> r;
            {
                std::unique_lock<std::mutex> lock(mu);
                while (!slots[i].done && ownLeft) {
                    std::size_t j = pick(0, ownTaken);
                    if (j == n) {
                        ownLeft = false;
                        break;
                    }
                    ++ownTaken;
                    lock.unlock();
                    runItem(j, 0);
                    lock.lock();
                }
                wanted = i;
                callerWaits = true;
                ready.wait(lock, [&] { return slots[i].done; });
                callerWaits = false;
                if (slots[i].error) std::rethrow_exception(slots[i].error);
                r = std::move(slots[i].result);
                slots[i].result.reset();
            }
            take(i, std::move(*r));
        }
    } catch (...) {
        join();
        throw;
    }
    join();
}

}  // namespace cnx::sim
