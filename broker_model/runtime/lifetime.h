#pragma once
// Lifetime guards for continuations. An object that posts continuations
// about itself (a client connection) owns a Lifetime; each continuation holds
// a Guard instead of a raw pointer, and reaches the object only through it:
// once the object has ended (closed or destroyed), `get()` is nullptr and the
// continuation does nothing. Topics are kept alive instead (shared_ptr, fenced
// when unloaded: broker/topic.h), as a Java future keeps its topic.

#include <memory>

namespace cnx {

template <typename T>
class Guard {
public:
    Guard() = default;
    /// The object, or nullptr once it has ended.
    T* get() const { return cell_ ? *cell_ : nullptr; }
    explicit operator bool() const { return get() != nullptr; }

private:
    template <typename>
    friend class Lifetime;
    explicit Guard(std::shared_ptr<T*> cell) : cell_(std::move(cell)) {}
    std::shared_ptr<T*> cell_;
};

template <typename T>
class Lifetime {
public:
    explicit Lifetime(T* self) : cell_(std::make_shared<T*>(self)) {}
    ~Lifetime() { end(); }
    Lifetime(const Lifetime&) = delete;
    Lifetime& operator=(const Lifetime&) = delete;

    /// Every guard sees the object gone from now on.
    void end() { *cell_ = nullptr; }
    bool ended() const { return *cell_ == nullptr; }
    Guard<T> guard() const { return Guard<T>(cell_); }

private:
    std::shared_ptr<T*> cell_;
};

}  // namespace cnx
