#pragma once
// What a scheduler runs: a move-only `void()` callable, kept in place when it
// fits (kInlineBytes), on the heap otherwise. std::function puts on the heap
// every callable over 16 bytes or not trivially copyable, which is every
// continuation of the model (they hold shared_ptrs and callbacks): that was one
// allocation and one free for each stage posted.

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace cnx {

class Continuation {
public:
    /// Room for the model's continuations: the largest, PRODUCER's after the
    /// topic loads, holds a connection guard, the request, the topic, the trace
    /// and a callback holding those four again (136 bytes).
    static constexpr std::size_t kInlineBytes = 144;

    /// Whether a callable of type D is kept in place (no allocation).
    template <class D>
    static constexpr bool kInline = sizeof(D) <= kInlineBytes && alignof(D) <= alignof(std::max_align_t) &&
                                    std::is_nothrow_move_constructible_v<D>;

    /// A continuation that must be kept in place: the callables the model posts
    /// are made here (Scheduler::post, ServerCnx::afterTopicLoad), so a capture
    /// grown past kInlineBytes fails the build instead of costing an allocation
    /// on every post. An already made Continuation passes through: what may go
    /// to the heap says so by posting Continuation(f) (the admin API's, which are rare).
    template <class F, class D = std::decay_t<F>>
    static Continuation inPlace(F&& f) {
        if constexpr (std::is_same_v<D, Continuation>) {
            return std::forward<F>(f);
        } else {
            static_assert(kInline<D>,
                          "a continuation outgrew Continuation::kInlineBytes: capture less, or raise it "
                          "(broker_model/runtime/continuation.h) and say which continuation needs it");
            return Continuation(std::forward<F>(f));
        }
    }

    Continuation() noexcept = default;
    /// Implicit, as std::function's: `post(stage, [..] { ... })`.
    template <class F, class D = std::decay_t<F>>
        requires(!std::is_same_v<D, Continuation> && std::is_invocable_r_v<void, D&>)
    Continuation(F&& f) {  // NOLINT(google-explicit-constructor)
        if constexpr (kInline<D>) {
            ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
            ops_ = &kInlineOps<D>;
        } else {
            ::new (static_cast<void*>(storage_)) D*(new D(std::forward<F>(f)));
            ops_ = &kHeapOps<D>;
        }
    }
    Continuation(Continuation&& other) noexcept : ops_(other.ops_) {
        if (ops_) ops_->relocate(other.storage_, storage_);
        other.ops_ = nullptr;
    }
    Continuation& operator=(Continuation&& other) noexcept {
        if (this == &other) return *this;
        reset();
        ops_ = other.ops_;
        if (ops_) ops_->relocate(other.storage_, storage_);
        other.ops_ = nullptr;
        return *this;
    }
    Continuation(const Continuation&) = delete;
    Continuation& operator=(const Continuation&) = delete;
    ~Continuation() { reset(); }

    explicit operator bool() const noexcept { return ops_ != nullptr; }
    /// Runs the callable; it must hold one.
    void operator()() { ops_->invoke(storage_); }

private:
    struct Ops {
        void (*invoke)(void* storage);
        /// Moves the callable from `from` to `to` and ends it at `from`.
        void (*relocate)(void* from, void* to) noexcept;
        void (*destroy)(void* storage) noexcept;
    };

    template <class D>
    static D& inlined(void* storage) noexcept {
        return *std::launder(static_cast<D*>(storage));
    }
    template <class D>
    static D*& held(void* storage) noexcept {
        return *std::launder(static_cast<D**>(storage));
    }

    template <class D>
    static constexpr Ops kInlineOps{
        [](void* s) { inlined<D>(s)(); },
        [](void* from, void* to) noexcept {
            D& f = inlined<D>(from);
            ::new (to) D(std::move(f));
            f.~D();
        },
        [](void* s) noexcept { inlined<D>(s).~D(); },
    };
    template <class D>
    static constexpr Ops kHeapOps{
        [](void* s) { (*held<D>(s))(); },
        [](void* from, void* to) noexcept { ::new (to) D*(held<D>(from)); },
        [](void* s) noexcept { delete held<D>(s); },
    };

    void reset() noexcept {
        if (ops_) ops_->destroy(storage_);
        ops_ = nullptr;
    }

    const Ops* ops_ = nullptr;
    alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
};

}  // namespace cnx
