#pragma once
// The section or rule of a trace entry. Nearly every one is a string literal
// at the place that records the entry ("§3.5", "addSchemaIfIdleOrCheckCompatible"),
// and a request records several: a literal is kept by pointer, never copied.
// Text made at run time ("check " + key) is owned, shared between copies.
// Only a string literal may be passed as a char array: any other char buffer
// goes as std::string (the array constructor keeps the pointer).

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace cnx {

class TraceText {
public:
    TraceText() = default;
    /// A string literal (static storage): kept by pointer.
    template <std::size_t N>
    TraceText(const char (&literal)[N]) : text_(literal, N - 1) {}  // NOLINT: implicit, as a string is
    /// Text made at run time: owned.
    TraceText(std::string text)  // NOLINT: implicit, as a string is
        : owned_(std::make_shared<const std::string>(std::move(text))), text_(*owned_) {}

    std::string_view view() const { return text_; }
    operator std::string_view() const { return text_; }  // NOLINT: reads as the text
    std::string str() const { return std::string(text_); }

    friend bool operator==(const TraceText& a, std::string_view b) { return a.text_ == b; }
    friend std::ostream& operator<<(std::ostream& out, const TraceText& t) { return out << t.text_; }

private:
    std::shared_ptr<const std::string> owned_;  // null for a literal; never changes once made
    std::string_view text_;                     // the literal, or *owned_ (stable across copies: shared)
};

}  // namespace cnx
