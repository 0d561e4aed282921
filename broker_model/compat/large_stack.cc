#include "broker_model/compat/large_stack.h"

#include <pthread.h>

#include <algorithm>

namespace cnx::compat {
namespace {

struct Start {
    void (*body)(void*);
    void* arg;
};

void* trampoline(void* p) {
    auto* s = static_cast<Start*>(p);
    s->body(s->arg);
    return nullptr;
}

}  // namespace

void runWithStack(std::size_t stackBytes, void (*body)(void*), void* arg) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return body(arg);
    Start start{body, arg};
    pthread_t thread;
    bool started = pthread_attr_setstacksize(&attr, stackBytes) == 0 &&
                   pthread_create(&thread, &attr, &trampoline, &start) == 0;
    pthread_attr_destroy(&attr);
    if (!started) return body(arg);
    pthread_join(thread, nullptr);
}

std::size_t jsonNesting(std::string_view text) {
    std::size_t depth = 0, deepest = 0;
    bool inString = false, escaped = false;
    for (char c : text) {
        if (inString) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        else if (c == '{' || c == '[') deepest = std::max(deepest, ++depth);
        else if ((c == '}' || c == ']') && depth > 0) --depth;
    }
    return deepest;
}

}  // namespace cnx::compat
