#include "sim/scenario/load/names.h"

#include <algorithm>
#include <array>

#include "broker_model/core/release_version.h"
#include "broker_model/core/topic_name.h"
#include "broker_model/profile/profile.h"

namespace cnx::sim::load {

std::optional<std::string> releaseOf(Ctx& ctx, const Value& v, std::string_view noun) {
    auto s = scalarOf(ctx, v);
    if (!s) return std::nullopt;
    if (!ReleaseVersion::parse(*s)) {
        ctx.error(v.pos, std::string(noun) + " " + inQuotes(*s) + " is not a release such as \"3.0\" or \"2.10.4\"");
        return std::nullopt;
    }
    return s;
}

std::optional<std::string> brokerVersionOf(Ctx& ctx, const Value& v) {
    auto s = releaseOf(ctx, v, "broker version");
    if (!s) return std::nullopt;
    std::string why;
    if (profileFor(*s, &why)) return s;
    ctx.error(v.pos, "unsupported broker version " + inQuotes(*s) + (why.empty() ? "" : ": " + why));
    return std::nullopt;
}

std::optional<std::string> topicOf(Ctx& ctx, const Value& v) {
    auto s = scalarOf(ctx, v);
    if (!s) return std::nullopt;
    std::string why;
    auto name = TopicName::parse(*s, &why);
    if (!name) {
        ctx.error(v.pos, why);
        return std::nullopt;
    }
    return name->toString();
}

namespace {

bool validNameSegment(std::string_view s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
               c == '.' || c == '=' || c == ':';
    });
}

bool validNamespaceName(std::string_view s) {
    auto slash = s.find('/');
    if (slash == std::string_view::npos) return false;
    return validNameSegment(s.substr(0, slash)) && validNameSegment(s.substr(slash + 1));
}

}  // namespace

std::optional<std::string> namespaceOf(Ctx& ctx, const std::string& text, const SourcePos& at) {
    if (validNamespaceName(text)) return text;
    ctx.error(at, "invalid namespace name " + inQuotes(text) + " (expected tenant/namespace)");
    return std::nullopt;
}

std::optional<std::string> tenantOf(Ctx& ctx, const std::string& text, const SourcePos& at) {
    if (validNameSegment(text)) return text;
    ctx.error(at, "invalid tenant name " + inQuotes(text) + " (letters, digits and -_.=: only)");
    return std::nullopt;
}

std::optional<VersionRange> parseRange(std::string_view text) {
    VersionRange r;
    r.text = std::string(text);
    if (text == "default") return r;
    struct Prefix {
        std::string_view sign;
        VersionRange::Op op;
    };
    static constexpr std::array<Prefix, 6> kPrefixes{{{"<=", VersionRange::Op::le},
                                                      {">=", VersionRange::Op::ge},
                                                      {"==", VersionRange::Op::eq},
                                                      {"<", VersionRange::Op::lt},
                                                      {">", VersionRange::Op::gt},
                                                      {"=", VersionRange::Op::eq}}};
    r.op = VersionRange::Op::eq;
    for (const Prefix& p : kPrefixes) {
        if (!text.starts_with(p.sign)) continue;
        r.op = p.op;
        text.remove_prefix(p.sign.size());
        break;
    }
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    if (!ReleaseVersion::parse(text)) return std::nullopt;
    r.version = std::string(text);
    return r;
}

bool looksLikeRange(std::string_view key) {
    if (key == "default") return true;
    return !key.empty() && (key.front() == '<' || key.front() == '>' || key.front() == '=' ||
                            (key.front() >= '0' && key.front() <= '9'));
}

}  // namespace cnx::sim::load
