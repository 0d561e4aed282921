#pragma once
// A short list of at most N values held in place, with no allocation: a table
// whose rows carry lists (a fix's first releases, the switches it sets) can so
// be a constant, written as data and initialised before any code runs, rather
// than a vector built by a function at its first call.

#include <array>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>

namespace cnx {

template <typename T, std::size_t N>
class InlineList {
public:
    constexpr InlineList() = default;
    // A list longer than N is a compile error where a constant is built from it
    // (the throw is not a constant expression).
    constexpr InlineList(std::initializer_list<T> values) {
        if (values.size() > N) throw std::length_error("InlineList: more values than its capacity");
        for (const T& value : values) items_[size_++] = value;
    }

    constexpr const T* begin() const { return items_.data(); }
    constexpr const T* end() const { return items_.data() + size_; }
    constexpr const T* data() const { return items_.data(); }
    constexpr std::size_t size() const { return size_; }
    constexpr bool empty() const { return size_ == 0; }

private:
    std::array<T, N> items_{};
    std::size_t size_ = 0;
};

}  // namespace cnx
