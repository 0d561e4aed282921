#include "sim/scenario/load/json_tree.h"

#include <cstdio>

namespace cnx::sim::load {
namespace {

void quoted(std::string& out, std::string_view s) {
    out += '"';
    for (char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    out += '"';
}

}  // namespace

Json& Json::set(std::string_view key, Json value) {
    for (std::size_t i = 0; i < keys_.size(); ++i) {
        if (keys_[i] == key) {
            items_[i] = std::move(value);
            return *this;
        }
    }
    keys_.emplace_back(key);
    items_.push_back(std::move(value));
    return *this;
}

bool Json::has(std::string_view key) const {
    for (const auto& k : keys_) {
        if (k == key) return true;
    }
    return false;
}

Json* Json::find(std::string_view key) {
    for (std::size_t i = 0; i < keys_.size(); ++i) {
        if (keys_[i] == key) return &items_[i];
    }
    return nullptr;
}

std::string Json::dump() const {
    std::string out;
    dumpTo(out, 0);
    out += '\n';
    return out;
}

void Json::dumpTo(std::string& out, int indent) const {
    switch (kind_) {
        case Kind::null: out += "null"; return;
        case Kind::boolean: out += bool_ ? "true" : "false"; return;
        case Kind::integer: out += std::to_string(int_); return;
        case Kind::string: quoted(out, text_); return;
        case Kind::array:
        case Kind::object: break;
    }
    bool isObject = kind_ == Kind::object;
    if (items_.empty()) {
        out += isObject ? "{}" : "[]";
        return;
    }
    bool inline_ = !isObject;
    for (const Json& item : items_) inline_ = inline_ && item.scalar();
    if (inline_) {
        out += '[';
        for (std::size_t i = 0; i < items_.size(); ++i) {
            if (i) out += ", ";
            items_[i].dumpTo(out, indent);
        }
        out += ']';
        return;
    }
    std::string pad(static_cast<std::size_t>(indent + 2), ' ');
    out += isObject ? "{\n" : "[\n";
    for (std::size_t i = 0; i < items_.size(); ++i) {
        out += pad;
        if (isObject) {
            quoted(out, keys_[i]);
            out += ": ";
        }
        items_[i].dumpTo(out, indent + 2);
        out += i + 1 < items_.size() ? ",\n" : "\n";
    }
    out += std::string(static_cast<std::size_t>(indent), ' ');
    out += isObject ? '}' : ']';
}

}  // namespace cnx::sim::load
