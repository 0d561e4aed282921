#include "broker_model/compat/avro/json_tape.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "broker_model/compat/json/json_nesting.h"

namespace cnx::compat::avro {

// The reader mirrors nlohmann's lexer (json_abi_v3_11_x detail::lexer) on the
// inputs it accepts: whitespace is space, tab, LF and CR; strings are UTF-8
// checked with the same table (RFC 3629: no overlong forms, no surrogates, at
// most U+10FFFF), control characters below 0x20 are refused, escapes are the
// eight single-character ones and \uXXXX (a high surrogate must be followed by
// a \u low surrogate); integers follow -?(0|[1-9][0-9]*) and become
// number_unsigned when not negative, number_integer when negative, as
// nlohmann's strtoull / strtoll do. Everything else returns false.
// Bytes a string takes as they are: printable ASCII but '"' and '\\'.
constexpr std::array<bool, 256> kPlainBytes = [] {
    std::array<bool, 256> t{};
    for (int c = 0x20; c < 0x80; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    return t;
}();

class JsonTape::Reader {
    static constexpr const std::array<bool, 256>& kPlain = kPlainBytes;

public:
    Reader(JsonTape& t, std::string_view text) : t_(t), p_(text.data()), end_(text.data() + text.size()), base_(text.data()) {}

    bool value(Index* out, std::size_t depth) {
        if (p_ == end_) return false;
        switch (*p_) {
            case '{': return object(out, depth + 1);
            case '[': return array(out, depth + 1);
            case '"': {
                std::string_view s;
                if (!string(&s)) return false;
                *out = push(Kind::string);
                t_.values_[*out].chars = s.data();
                t_.values_[*out].count = static_cast<Index>(s.size());
                return true;
            }
            case 't': return literal("true", Kind::boolean, true, out);
            case 'f': return literal("false", Kind::boolean, false, out);
            case 'n': return literal("null", Kind::null, false, out);
            default: return number(out);
        }
    }

    std::size_t offset() const { return static_cast<std::size_t>(p_ - base_); }

private:
    Index push(Kind k) {
        t_.values_.emplace_back();
        t_.values_.back().kind = k;
        return static_cast<Index>(t_.values_.size() - 1);
    }

    // Skips JSON whitespace; false on a '/' (a comment: nlohmann decides).
    bool space() {
        while (p_ != end_) {
            char c = *p_;
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                ++p_;
            } else {
                return c != '/';
            }
        }
        return true;
    }

    bool literal(std::string_view word, Kind k, bool flag, Index* out) {
        if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
        p_ += word.size();
        *out = push(k);
        t_.values_[*out].flag = flag;
        return true;
    }

    bool number(Index* out) {
        const char* start = p_;
        bool negative = false;
        if (*p_ == '-') {
            negative = true;
            ++p_;
        }
        if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
        if (*p_ == '0') {
            ++p_;
        } else {
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        if (p_ != end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;  // floating point: nlohmann decides
        Index v = push(negative ? Kind::integer : Kind::unsignedInteger);
        if (negative) {
            std::int64_t x = 0;
            auto r = std::from_chars(start, p_, x);
            if (r.ec != std::errc() || r.ptr != p_) return false;  // out of range: nlohmann makes it a double
            t_.values_[v].i = x;
        } else {
            std::uint64_t x = 0;
            auto r = std::from_chars(start, p_, x);
            if (r.ec != std::errc() || r.ptr != p_) return false;
            t_.values_[v].i = static_cast<std::int64_t>(x);
        }
        *out = v;
        return true;
    }

    static int hex(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    bool hex4(const char* q, unsigned* out) const {
        if (end_ - q < 4) return false;
        unsigned v = 0;
        for (int k = 0; k < 4; ++k) {
            int h = hex(q[k]);
            if (h < 0) return false;
            v = v * 16 + static_cast<unsigned>(h);
        }
        *out = v;
        return true;
    }

    static bool cont(unsigned char c, unsigned char lo = 0x80, unsigned char hi = 0xBF) { return c >= lo && c <= hi; }

    // Length of the well-formed UTF-8 sequence at q (q[0] >= 0x80), or 0.
    std::size_t utf8(const char* q) const {
        auto at = [&](std::ptrdiff_t k) { return q + k < end_ ? static_cast<unsigned char>(q[k]) : 0; };
        unsigned char c = at(0);
        if (c >= 0xC2 && c <= 0xDF) return cont(at(1)) ? 2 : 0;
        if (c == 0xE0) return cont(at(1), 0xA0, 0xBF) && cont(at(2)) ? 3 : 0;
        if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(at(1)) && cont(at(2)) ? 3 : 0;
        if (c == 0xED) return cont(at(1), 0x80, 0x9F) && cont(at(2)) ? 3 : 0;
        if (c == 0xF0) return cont(at(1), 0x90, 0xBF) && cont(at(2)) && cont(at(3)) ? 4 : 0;
        if (c >= 0xF1 && c <= 0xF3) return cont(at(1)) && cont(at(2)) && cont(at(3)) ? 4 : 0;
        if (c == 0xF4) return cont(at(1), 0x80, 0x8F) && cont(at(2)) && cont(at(3)) ? 4 : 0;
        return 0;
    }

    static void appendUtf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }

    // *p_ == '"'. The view points into the text, or into decoded_ when the string has escapes.
    bool string(std::string_view* out) {
        const char* start = ++p_;
        std::string* decoded = nullptr;
        const char* run = start;  // start of the plain run not yet copied to `decoded`
        while (true) {
            while (p_ != end_ && kPlain[static_cast<unsigned char>(*p_)]) ++p_;
            if (p_ == end_) return false;
            unsigned char c = static_cast<unsigned char>(*p_);
            if (c == '"') break;
            if (c < 0x20) return false;
            if (c >= 0x80) {
                std::size_t n = utf8(p_);
                if (n == 0) return false;
                p_ += n;
                continue;
            }
            // an escape
            if (decoded == nullptr) decoded = &t_.decoded_.emplace_back();
            decoded->append(run, p_);
            if (end_ - p_ < 2) return false;
            char e = p_[1];
            p_ += 2;
            switch (e) {
                case '"': decoded->push_back('"'); break;
                case '\\': decoded->push_back('\\'); break;
                case '/': decoded->push_back('/'); break;
                case 'b': decoded->push_back('\b'); break;
                case 'f': decoded->push_back('\f'); break;
                case 'n': decoded->push_back('\n'); break;
                case 'r': decoded->push_back('\r'); break;
                case 't': decoded->push_back('\t'); break;
                case 'u': {
                    unsigned cp = 0;
                    if (!hex4(p_, &cp)) return false;
                    p_ += 4;
                    if (cp >= 0xDC00 && cp <= 0xDFFF) return false;
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        unsigned lo = 0;
                        if (end_ - p_ < 6 || p_[0] != '\\' || p_[1] != 'u' || !hex4(p_ + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
                        p_ += 6;
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    }
                    appendUtf8(*decoded, cp);
                    break;
                }
                default: return false;
            }
            run = p_;
        }
        if (decoded == nullptr) {
            *out = std::string_view(start, static_cast<std::size_t>(p_ - start));
        } else {
            decoded->append(run, p_);
            *out = *decoded;
        }
        ++p_;  // the closing quote
        return true;
    }

    bool object(Index* out, std::size_t depth) {
        if (depth > kMaxJsonNesting) return false;
        Index self = push(Kind::object);
        ++p_;
        std::size_t base = t_.memberStack_.size();
        if (!space()) return false;
        if (p_ != end_ && *p_ == '}') {
            ++p_;
        } else {
            while (true) {
                if (p_ == end_ || *p_ != '"') return false;
                std::string_view key;
                if (!string(&key)) return false;
                if (!space() || p_ == end_ || *p_ != ':') return false;
                ++p_;
                if (!space()) return false;
                Index v = kNone;
                if (!value(&v, depth)) return false;
                t_.memberStack_.push_back({key, v});
                if (!space() || p_ == end_) return false;
                if (*p_ == ',') {
                    ++p_;
                    if (!space()) return false;
                    continue;
                }
                if (*p_ != '}') return false;
                ++p_;
                break;
            }
        }
        auto first = t_.memberStack_.begin() + static_cast<std::ptrdiff_t>(base);
        if (!distinctKeys(first, t_.memberStack_.end())) return false;  // nlohmann keeps the first place, the last value
        Value& v = t_.values_[self];
        v.first = static_cast<Index>(t_.members_.size());
        v.count = static_cast<Index>(t_.memberStack_.size() - base);
        t_.members_.insert(t_.members_.end(), first, t_.memberStack_.end());
        t_.memberStack_.resize(base);
        *out = self;
        return true;
    }

    bool distinctKeys(std::vector<Member>::const_iterator b, std::vector<Member>::const_iterator e) {
        std::size_t n = static_cast<std::size_t>(e - b);
        if (n <= 8) {
            for (auto i = b; i != e; ++i) {
                for (auto j = b; j != i; ++j) {
                    if (i->key.size() == j->key.size() && (i->key.empty() || i->key[0] == j->key[0]) && i->key == j->key) return false;
                }
            }
            return true;
        }
        keys_.clear();
        for (auto i = b; i != e; ++i) keys_.push_back(i->key);
        std::sort(keys_.begin(), keys_.end());
        return std::adjacent_find(keys_.begin(), keys_.end()) == keys_.end();
    }

    bool array(Index* out, std::size_t depth) {
        if (depth > kMaxJsonNesting) return false;
        Index self = push(Kind::array);
        ++p_;
        std::size_t base = t_.elemStack_.size();
        if (!space()) return false;
        if (p_ != end_ && *p_ == ']') {
            ++p_;
        } else {
            while (true) {
                Index v = kNone;
                if (!value(&v, depth)) return false;
                t_.elemStack_.push_back(v);
                if (!space() || p_ == end_) return false;
                if (*p_ == ',') {
                    ++p_;
                    if (!space()) return false;
                    continue;
                }
                if (*p_ != ']') return false;
                ++p_;
                break;
            }
        }
        Value& v = t_.values_[self];
        v.first = static_cast<Index>(t_.elems_.size());
        v.count = static_cast<Index>(t_.elemStack_.size() - base);
        t_.elems_.insert(t_.elems_.end(), t_.elemStack_.begin() + static_cast<std::ptrdiff_t>(base), t_.elemStack_.end());
        t_.elemStack_.resize(base);
        *out = self;
        return true;
    }

    JsonTape& t_;
    const char* p_;
    const char* end_;
    const char* base_;
    std::vector<std::string_view> keys_;
};

bool JsonTape::read(std::string_view text, std::size_t begin, std::size_t* end) {
    clear();
    Reader r(*this, text.substr(begin));
    Index root = kNone;
    if (!r.value(&root, 0)) {
        clear();
        return false;
    }
    root_ = root;
    *end = begin + r.offset();
    return true;
}

JsonTape::Index JsonTape::adopt(const Json& j) {
    clear();
    root_ = adoptValue(j);
    return root_;
}

JsonTape::Index JsonTape::adoptValue(const Json& j) {
    Index self = static_cast<Index>(values_.size());
    values_.emplace_back();
    srcs_.push_back(&j);
    switch (j.type()) {
        case Json::value_t::object: {
            values_[self].kind = Kind::object;
            std::vector<Member> members;
            members.reserve(j.size());
            for (const auto& [k, v] : j.items()) members.push_back({k, adoptValue(v)});
            values_[self].first = static_cast<Index>(members_.size());
            values_[self].count = static_cast<Index>(members.size());
            members_.insert(members_.end(), members.begin(), members.end());
            break;
        }
        case Json::value_t::array: {
            values_[self].kind = Kind::array;
            std::vector<Index> elems;
            elems.reserve(j.size());
            for (const auto& v : j) elems.push_back(adoptValue(v));
            values_[self].first = static_cast<Index>(elems_.size());
            values_[self].count = static_cast<Index>(elems.size());
            elems_.insert(elems_.end(), elems.begin(), elems.end());
            break;
        }
        case Json::value_t::string:
            values_[self].kind = Kind::string;
            values_[self].chars = j.get_ref<const std::string&>().data();
            values_[self].count = static_cast<Index>(j.get_ref<const std::string&>().size());
            break;
        case Json::value_t::boolean:
            values_[self].kind = Kind::boolean;
            values_[self].flag = j.get<bool>();
            break;
        case Json::value_t::number_integer:
            values_[self].kind = Kind::integer;
            values_[self].i = j.get<std::int64_t>();
            break;
        case Json::value_t::number_unsigned:
            values_[self].kind = Kind::unsignedInteger;
            values_[self].i = static_cast<std::int64_t>(j.get<std::uint64_t>());
            break;
        case Json::value_t::number_float:
            values_[self].kind = Kind::floating;
            values_[self].d = j.get<double>();
            break;
        case Json::value_t::null:
        case Json::value_t::discarded:
        case Json::value_t::binary: values_[self].kind = Kind::null; break;
    }
    return self;
}

void JsonTape::clear() {
    values_.clear();
    members_.clear();
    elems_.clear();
    memberStack_.clear();
    elemStack_.clear();
    decoded_.clear();
    srcs_.clear();
    root_ = kNone;
}

void JsonTape::trim() {
    constexpr std::size_t kKeepBytes = std::size_t{8} << 20;
    std::size_t bytes = values_.capacity() * sizeof(Value) + (members_.capacity() + memberStack_.capacity()) * sizeof(Member) +
                        (elems_.capacity() + elemStack_.capacity()) * sizeof(Index) + srcs_.capacity() * sizeof(const Json*);
    if (bytes > kKeepBytes) *this = JsonTape();
}

Json JsonTape::json(Index i) const {
    if (!srcs_.empty()) return *srcs_[i];
    const Value& v = values_[i];
    switch (v.kind) {
        case Kind::null: return Json(nullptr);
        case Kind::boolean: return Json(v.flag);
        case Kind::integer: return Json(v.i);
        case Kind::unsignedInteger: return Json(static_cast<std::uint64_t>(v.i));
        case Kind::floating: return Json(v.d);
        case Kind::string: return Json(std::string(v.str()));
        case Kind::array: {
            Json a = Json::array();
            for (const Index* e = elemsBegin(i); e != elemsEnd(i); ++e) a.push_back(json(*e));
            return a;
        }
        case Kind::object: {
            Json o = Json::object();
            for (const Member* m = membersBegin(i); m != membersEnd(i); ++m) o[std::string(m->key)] = json(m->value);
            return o;
        }
    }
    return Json(nullptr);
}

std::string JsonTape::compact(Index i) const {
    return jacksonCompact(!srcs_.empty() ? *srcs_[i] : json(i));
}

}  // namespace cnx::compat::avro
