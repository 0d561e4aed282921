#include "broker_model/compat/avro/json_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace cnx::compat::avro {
namespace {

// Shortest round-trip digits and decimal exponent of a finite, non-zero |d|:
// d = 0.<digits> * 10^exp10.
void shortestDigits(double d, std::string& digits, int& exp10) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string_view s(buf, static_cast<std::size_t>(res.ptr - buf));  // e.g. "1.2345e+03"
    auto e = s.find('e');
    std::string_view mant = s.substr(0, e);
    int exp = std::atoi(std::string(s.substr(e + 1)).c_str());
    digits.clear();
    for (char c : mant) {
        if (c >= '0' && c <= '9') digits.push_back(c);
    }
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    exp10 = exp + 1;
}

std::string plainLayout(const std::string& digits, int exp10) {
    std::string out;
    if (exp10 <= 0) {
        out = "0.";
        out.append(static_cast<std::size_t>(-exp10), '0');
        out += digits;
        return out;
    }
    auto intLen = static_cast<std::size_t>(exp10);
    if (digits.size() <= intLen) {
        out = digits;
        out.append(intLen - digits.size(), '0');
        return out + ".0";
    }
    return digits.substr(0, intLen) + "." + digits.substr(intLen);
}

std::string scientificLayout(const std::string& digits, int exp10) {
    std::string out(1, digits[0]);
    out += '.';
    out += digits.size() > 1 ? digits.substr(1) : "0";
    return out + "E" + std::to_string(exp10 - 1);
}

}  // namespace

std::string javaDoubleToString(double d) {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
    if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
    std::string sign = d < 0 ? "-" : "";
    double a = std::fabs(d);
    std::string digits;
    int exp10 = 0;
    shortestDigits(a, digits, exp10);
    // Java: plain notation for 10^-3 <= |d| < 10^7, else computerized scientific.
    if (a >= 1e-3 && a < 1e7) return sign + plainLayout(digits, exp10);
    return sign + scientificLayout(digits, exp10);
}

void appendJacksonString(std::string& out, std::string_view s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    out.push_back('"');
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    out += "\\u00";
                    out.push_back(kHex[c >> 4]);
                    out.push_back(kHex[c & 0xF]);
                } else {
                    out.push_back(static_cast<char>(c));
                }
        }
    }
    out.push_back('"');
}

void JsonWriter::indent() {
    out_.push_back('\n');
    out_.append(static_cast<std::size_t>(nesting_) * 2, ' ');
}

void JsonWriter::beforeValue() {
    if (stack_.empty()) return;
    Level& l = stack_.back();
    if (l.object) {
        l.awaitingValue = false;
        return;
    }
    if (l.count > 0) out_.push_back(',');
    if (pretty_) out_.push_back(' ');
    ++l.count;
}

void JsonWriter::startObject() {
    beforeValue();
    out_.push_back('{');
    ++nesting_;
    stack_.push_back({true, 0, false});
}

void JsonWriter::endObject() {
    int count = stack_.back().count;
    stack_.pop_back();
    --nesting_;
    if (pretty_) {
        if (count > 0) indent();
        else out_.push_back(' ');
    }
    out_.push_back('}');
}

void JsonWriter::startArray() {
    beforeValue();
    out_.push_back('[');
    stack_.push_back({false, 0, false});
}

void JsonWriter::endArray() {
    stack_.pop_back();
    if (pretty_) out_.push_back(' ');
    out_.push_back(']');
}

void JsonWriter::fieldName(std::string_view name) {
    Level& l = stack_.back();
    if (l.count > 0) out_.push_back(',');
    if (pretty_) indent();
    ++l.count;
    l.awaitingValue = true;
    appendJacksonString(out_, name);
    out_ += pretty_ ? " : " : ":";
}

void JsonWriter::string(std::string_view s) {
    beforeValue();
    appendJacksonString(out_, s);
}

void JsonWriter::rawNumber(std::string_view digits) {
    beforeValue();
    out_ += digits;
}

void JsonWriter::number(std::int64_t v) { rawNumber(std::to_string(v)); }

void JsonWriter::value(const Json& j) {
    switch (j.type()) {
        case Json::value_t::object:
            startObject();
            for (const auto& [k, v] : j.items()) {
                fieldName(k);
                value(v);
            }
            endObject();
            return;
        case Json::value_t::array:
            startArray();
            for (const auto& v : j) value(v);
            endArray();
            return;
        case Json::value_t::string: string(j.get_ref<const std::string&>()); return;
        case Json::value_t::boolean: rawNumber(j.get<bool>() ? "true" : "false"); return;
        case Json::value_t::number_integer: rawNumber(std::to_string(j.get<std::int64_t>())); return;
        case Json::value_t::number_unsigned: rawNumber(std::to_string(j.get<std::uint64_t>())); return;
        case Json::value_t::number_float: {
            double d = j.get<double>();
            // Jackson quotes non-finite numbers by default (QUOTE_NON_NUMERIC_NUMBERS).
            if (std::isfinite(d)) rawNumber(javaDoubleToString(d));
            else string(javaDoubleToString(d));
            return;
        }
        case Json::value_t::null:
        case Json::value_t::discarded:
        case Json::value_t::binary: rawNumber("null"); return;
    }
}

}  // namespace cnx::compat::avro
