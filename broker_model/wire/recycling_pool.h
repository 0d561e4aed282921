#pragma once
// Objects kept for reuse on the thread that released them: frame_pool.h and
// command_pool.h keep protobuf messages this way, so that parsing or building
// into one that held a message before reuses its sub-messages and strings.
// At most Max objects a thread; none after the thread's pool is gone (thread
// exit), when a released object is deleted.

#include <cstddef>
#include <vector>

namespace cnx::wire {

template <typename T, std::size_t Max>
class RecyclingPool {
public:
    /// An object released on this thread before, or null when there is none.
    static T* take() {
        if (gone_) return nullptr;
        auto& objects = pool().objects;
        if (objects.empty()) return nullptr;
        T* object = objects.back();
        objects.pop_back();
        return object;
    }
    /// Keeps `object` for this thread, or deletes it when the pool is full or gone.
    static void give(T* object) noexcept {
        if (!object) return;
        if (!gone_) {
            auto& objects = pool().objects;
            if (objects.size() < Max) {
                objects.push_back(object);  // never allocates: reserved
                return;
            }
        }
        delete object;
    }
    /// How many objects this thread's pool holds now.
    static std::size_t size() { return gone_ ? 0 : pool().objects.size(); }

private:
    struct Pool {
        std::vector<T*> objects;
        Pool() { objects.reserve(Max); }
        ~Pool() {
            gone_ = true;
            for (T* object : objects) delete object;
        }
        Pool(const Pool&) = delete;
        Pool& operator=(const Pool&) = delete;
    };
    static Pool& pool() {
        thread_local Pool p;
        return p;
    }
    // A bool stays readable after the thread's other objects are destroyed.
    static inline thread_local bool gone_ = false;
};

}  // namespace cnx::wire
