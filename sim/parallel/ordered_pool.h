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

namespace detail {

// What forEachOrdered's threads share: each item's result slot, which item a
// thread takes next, and whether the caller waits. The caller is worker 0.
template <class Work, class Result>
class OrderedPool {
public:
    OrderedPool(std::size_t n, unsigned threads, Deal deal, Work& work)
        : n_(n), threads_(threads), deal_(deal), work_(work), slots_(n) {}

    // Starts workers 1 .. threads-1; false, with none left running, when no
    // thread is to be had (a process limit).
    bool start() {
        pool_.reserve(threads_ - 1);
        try {
            for (unsigned w = 1; w < threads_; ++w) pool_.emplace_back([this, w] { worker(w); });
        } catch (const std::system_error&) {
            join();
            return false;
        }
        return true;
    }

    // Item i's result, once done; until then the caller works items of its own,
    // and sleeps only when none is left for it. work(i)'s exception is rethrown.
    std::optional<Result> result(std::size_t i) {
        std::optional<Result> r;
        std::unique_lock<std::mutex> lock(mu_);
        while (!slots_[i].done && ownLeft_) {
            std::size_t j = pick(0, ownTaken_);
            if (j == n_) {
                ownLeft_ = false;
                break;
            }
            ++ownTaken_;
            lock.unlock();
            runItem(j, 0);
            lock.lock();
        }
        wanted_ = i;
        callerWaits_ = true;
        ready_.wait(lock, [&] { return slots_[i].done; });
        callerWaits_ = false;
        if (slots_[i].error) std::rethrow_exception(slots_[i].error);
        r = std::move(slots_[i].result);
        slots_[i].result.reset();
        return r;
    }

    // The workers take no more items; returns once they have stopped.
    void join() {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stop_ = true;
        }
        for (auto& t : pool_) t.join();
    }

private:
    struct Slot {
        std::optional<Result> result;
        std::exception_ptr error;
        bool done = false;
    };

    // The `taken`-th item of worker w, or n when it has no more (under mu_).
    std::size_t pick(unsigned w, std::size_t taken) {
        if (deal_ == Deal::striped) {
            std::size_t i = w + taken * threads_;
            return i < n_ ? i : n_;
        }
        return next_ == n_ ? n_ : next_++;
    }

    void runItem(std::size_t i, unsigned w) {
        std::optional<Result> r;
        std::exception_ptr e;
        try {
            r.emplace(work_(i, w));
        } catch (...) {
            e = std::current_exception();
        }
        bool wake;
        {
            std::lock_guard<std::mutex> lock(mu_);
            slots_[i].result = std::move(r);
            slots_[i].error = e;
            slots_[i].done = true;
            wake = callerWaits_ && i == wanted_;
        }
        if (wake) ready_.notify_one();
    }

    void worker(unsigned w) {
        for (std::size_t taken = 0;; ++taken) {
            std::size_t i;
            {
                std::lock_guard<std::mutex> lock(mu_);
                if (stop_) return;
                i = pick(w, taken);
            }
            if (i == n_) return;
            runItem(i, w);
        }
    }

    const std::size_t n_;
    const unsigned threads_;
    const Deal deal_;
    Work& work_;
    std::vector<Slot> slots_;
    std::mutex mu_;
    std::condition_variable ready_;
    std::size_t next_ = 0;      // Deal::nextFree: the next index a thread takes, under mu_
    std::size_t wanted_ = 0;    // the index the caller waits for
    bool callerWaits_ = false;  // the caller sleeps until `wanted_` is done: only then is it woken
    bool stop_ = false;         // the caller gave up (an exception): workers take no more
    std::vector<std::thread> pool_;
    std::size_t ownTaken_ = 0;  // items the caller (worker 0) has picked
    bool ownLeft_ = true;       // it may have more
};

}  // namespace detail

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
    detail::OrderedPool<std::remove_reference_t<Work>, Result> pool(n, threads, deal, work);
    if (!pool.start()) {
        // No thread to be had: everything here, one item after the other. An
        // item may then be worked twice; its result is taken once.
        for (std::size_t i = 0; i < n; ++i) take(i, work(i, 0u));
        return;
    }
    try {
        for (std::size_t i = 0; i < n; ++i) {
            auto r = pool.result(i);
            take(i, std::move(*r));
        }
    } catch (...) {
        pool.join();
        throw;
    }
    pool.join();
}

}  // namespace cnx::sim
