// `expect` of a step and the results of `outcomes`.
#include <algorithm>

#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/load/format.h"
#include "sim/scenario/load/names.h"

namespace cnx::sim::load {

std::optional<VersionRange> DocumentLoader::rangeKeyOf(const Entry& x) {
    auto range = parseRange(x.key);
    if (!range)
        ctx_.error(x.keyPos, "invalid version range " + inQuotes(x.key) +
                                 " (expected default, a release such as \"2.10\", or <, <=, >, >= and a release)");
    return range;
}

ExpectSpec DocumentLoader::expectSpecOf(const Entry& e, ActionKind kind) {
    ExpectSpec spec;
    spec.present = true;
    spec.pos = e.keyPos;
    const Value& v = e.value;
    if (!v.node.IsMap()) {
        spec.single = outcomeOf(v, kind, true);
        return spec;
    }
    auto entries = entriesOf(ctx_, v);
    if (!entries || entries->empty() || contains(kExpectKeys, entries->front().key) ||
        !looksLikeRange(entries->front().key)) {
        spec.single = outcomeOf(v, kind, true);
        return spec;
    }
    for (const Entry& x : *entries) {
        auto range = rangeKeyOf(x);
        if (!range) continue;
        if (x.value.node.IsNull()) {  // `~`: deliberately not asserted on these versions
            spec.perProfile.emplace_back(*range, Expect::notAssertedAt(x.value.pos));
            continue;
        }
        if (auto outcome = outcomeOf(x.value, kind, true)) spec.perProfile.emplace_back(*range, std::move(*outcome));
    }
    return spec;
}

std::optional<Expect> DocumentLoader::outcomeOf(const Value& v, ActionKind kind, bool allowPerClient) {
    Value named{v.node, v.pos, "expect"};
    if (v.node.IsScalar()) {
        const std::string& s = v.node.Scalar();
        if (s == "ok") {
            Expect ok;
            ok.ok = true;
            ok.pos = v.pos;
            return ok;
        }
        if (contains(kServerErrors, s))
            ctx_.error(v.pos, "expect: write { error: " + s + " } for an error outcome");
        else
            ctx_.error(v.pos, "expect: unknown outcome " + inQuotes(s) +
                                  (closestMatch(s, Names(kOk)) ? "; did you mean 'ok'?" : " (expected ok or a mapping)"));
        return std::nullopt;
    }
    if (!v.node.IsMap()) {
        wrongType(ctx_, named, "ok or a mapping");
        return std::nullopt;
    }
    auto entries = entriesOf(ctx_, named);
    if (!entries) return std::nullopt;
    if (allowPerClient && actionInfo(kind).reconnect && !entries->empty() &&
        !contains(kExpectKeys, entries->front().key))
        return perClientOf(*entries, v, kind);
    return outcomeMapOf(*entries, v, kind);
}

std::optional<Expect> DocumentLoader::outcomeMapOf(const Entries& entries, const Value& v, ActionKind kind) {
    std::size_t before = ctx_.errors.size();
    rejectUnknown(ctx_, entries, kExpectKeys, "expect");
    for (const Field<ExpectReading>& field : kExpectSuccessFields) {
        const Entry* e = field.onlyFor.empty() ? nullptr : findEntry(entries, field.key);
        if (e && field.onlyFor != actionInfo(kind).name)
            ctx_.error(e->keyPos, inQuotes(field.key) + " is only for " + std::string(field.onlyFor) + " steps");
    }
    ExpectReading r{Expect{}, kind, findEntry(entries, "error") != nullptr};
    r.x.pos = v.pos;
    readFields(*this, kExpectErrorFields, entries, r);
    for (const Entry& e : entries) {
        if (r.hasError && contains(keysOf(kExpectSuccessFields), e.key))
            ctx_.error(e.keyPos, inQuotes(e.key) + " describes a success and cannot be combined with 'error'");
    }
    readFields(*this, kExpectSuccessFields, entries, r);
    if (ctx_.errors.size() != before) return std::nullopt;
    r.x.ok = !r.hasError;
    return std::move(r.x);
}

bool bindExpectError(DocumentLoader& loader, const ValueSpec&, const Entry& e, ExpectReading& r) {
    return loader.errorOf(e.value, r.kind, r.x);
}

// `message` is a substring of the error's message.
bool bindExpectMessage(DocumentLoader& loader, const ValueSpec&, const Entry& e, ExpectReading& r) {
    r.x.message = scalarOf(loader.ctx(), e.value);
    if (!r.hasError) loader.ctx().error(e.keyPos, "'message' needs 'error' (it is a substring of the error's message)");
    return r.x.message && r.hasError;
}

bool bindExpectSchema(DocumentLoader& loader, const ValueSpec&, const Entry& e, ExpectReading& r) {
    bool isNone = false;
    r.x.schemaData = loader.schemaByName(e.value, false, isNone);
    if (r.x.schemaData) r.x.schemaAlias = e.value.node.Scalar();
    return r.x.schemaData.has_value();
}

// `error: IncompatibleSchema` (a ServerError name) or `error: 409` (admin steps).
bool DocumentLoader::errorOf(const Value& v, ActionKind kind, Expect& out) {
    auto text = scalarOf(ctx_, v);
    if (!text) return false;
    if (auto status = parseInteger(*text)) {
        if (!actionInfo(kind).admin) {
            ctx_.error(v.pos, "an HTTP status is only for admin steps; " + std::string(actionInfo(kind).name) +
                                  " fails with a ServerError name");
            return false;
        }
        if (*status < 100 || *status > 599) {
            ctx_.error(v.pos, "HTTP status " + *text + " is not between 100 and 599");
            return false;
        }
        out.httpStatus = static_cast<int>(*status);
        return true;
    }
    auto name = enumOf(ctx_, v, kServerErrors, "ServerError name");
    out.error = name;
    return name.has_value();
}

// Reconnect steps: `{ p1: ok, c1: { error: IncompatibleSchema } }`, keyed by
// producer or consumer name, or by a client declared under `clients`.
std::optional<Expect> DocumentLoader::perClientOf(const Entries& entries, const Value& v, ActionKind kind) {
    std::vector<std::string> names = openedNames();
    for (const auto& [n, c] : s_.clients) names.push_back(n);
    Expect x;
    x.pos = v.pos;
    bool ok = true;
    for (const Entry& e : entries) {
        if (std::find(names.begin(), names.end(), e.key) == names.end()) {
            std::vector<std::string> candidates = names;
            candidates.insert(candidates.end(), kExpectKeys.begin(), kExpectKeys.end());
            auto match = closestMatch(e.key, candidates);
            ctx_.error(e.keyPos, "expect: " + inQuotes(e.key) +
                                     " is neither an expect key nor a producer, consumer or client of an earlier step" +
                                     (match ? "; did you mean '" + *match + "'?" : ""));
            ok = false;
            continue;
        }
        auto outcome = outcomeOf(e.value, kind, false);
        ok = ok && outcome.has_value();
        if (outcome) x.perClient.emplace(e.key, std::move(*outcome));
    }
    if (!ok) return std::nullopt;
    x.ok = true;
    return x;
}

}  // namespace cnx::sim::load
