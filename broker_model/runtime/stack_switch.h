#pragma once
// Switching stacks with swapcontext, as the sanitizers need it said: the
// checker's side stack (broker_model/runtime/large_stack.cc) and the race
// explorer's fibers (sim/race/fiber.cc) both switch a thread between stacks.
// AddressSanitizer must be told each switch (its fake stacks and the bounds
// of the stack being entered); ThreadSanitizer does not follow swapcontext at
// all, so code that can do without it must not switch under it.

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define CNX_ASAN_STACK_SWITCH 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CNX_ASAN_STACK_SWITCH 1
#endif
#endif
#ifdef CNX_ASAN_STACK_SWITCH
#include <sanitizer/common_interface_defs.h>
#endif

namespace cnx {

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
#else
inline constexpr bool kThreadSanitizer = false;
#endif

/// Before swapcontext into the stack [bottom, bottom + size): `fake` keeps the
/// leaving stack's fake frames (nullptr when the leaving context never returns).
inline void startStackSwitch([[maybe_unused]] void** fake, [[maybe_unused]] const void* bottom,
                             [[maybe_unused]] std::size_t size) {
#ifdef CNX_ASAN_STACK_SWITCH
    __sanitizer_start_switch_fiber(fake, bottom, size);
#endif
}

/// First thing after swapcontext returns into a context: `fake` as saved when
/// it left (nullptr on a first entry); the bounds of the stack just left come
/// back in `bottom` / `size` when asked for.
inline void finishStackSwitch([[maybe_unused]] void* fake, [[maybe_unused]] const void** bottom,
                              [[maybe_unused]] std::size_t* size) {
#ifdef CNX_ASAN_STACK_SWITCH
    __sanitizer_finish_switch_fiber(fake, bottom, size);
#endif
}

}  // namespace cnx
