#pragma once
// A small JSON value with ordered members and a stable pretty printer, for the
// generated JSON Schema (json_schema.cc).

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cnx::sim::load {

class Json {
public:
    enum class Kind { null, boolean, integer, string, array, object };

    static Json null() { return Json(Kind::null); }
    static Json boolean(bool b) {
        Json j(Kind::boolean);
        j.bool_ = b;
        return j;
    }
    static Json integer(std::int64_t i) {
        Json j(Kind::integer);
        j.int_ = i;
        return j;
    }
    static Json string(std::string_view s) {
        Json j(Kind::string);
        j.text_ = std::string(s);
        return j;
    }
    static Json array(std::vector<Json> items = {}) {
        Json j(Kind::array);
        j.items_ = std::move(items);
        return j;
    }
    static Json object() { return Json(Kind::object); }

    /// Sets member `key` (appended in order; replaced when present).
    Json& set(std::string_view key, Json value);
    Json& push(Json item) {
        items_.push_back(std::move(item));
        return *this;
    }
    bool has(std::string_view key) const;
    Json* find(std::string_view key);
    bool empty() const { return items_.empty() && keys_.empty(); }

    /// Two-space indented; arrays of scalars on one line.
    std::string dump() const;

private:
    explicit Json(Kind k) : kind_(k) {}
    void dumpTo(std::string& out, int indent) const;
    bool scalar() const { return kind_ != Kind::array && kind_ != Kind::object; }

    Kind kind_;
    bool bool_ = false;
    std::int64_t int_ = 0;
    std::string text_;
    std::vector<Json> items_;        // array items, or object member values
    std::vector<std::string> keys_;  // object member keys (parallel to items_)
};

}  // namespace cnx::sim::load
