#include "sim/run/expectation.h"

namespace cnx::sim {
namespace {

std::string boolText(bool b) { return b ? "true" : "false"; }

std::string describeObserved(const Observed& o) {
    if (o.ok) {
        std::string s = "ok";
        if (o.schemaVersion) s += " (schema_version " + std::to_string(*o.schemaVersion) + ")";
        return s;
    }
    return o.error + ": " + o.message;
}

}  // namespace

std::string renderProperties(const SchemaProperties& props) {
    std::string out = "{ ";
    bool first = true;
    for (const auto& [k, v] : props) {
        out += (first ? "" : ", ") + yamlQuote(k) + ": " + yamlQuote(v);
        first = false;
    }
    return props.empty() ? "{}" : out + " }";
}

bool rangeCovers(const VersionRange& range, const ReleaseVersion& version) {
    if (range.op == VersionRange::Op::any) return true;
    auto bound = ReleaseVersion::parse(range.version);
    if (!bound) return false;
    switch (range.op) {
        case VersionRange::Op::eq:
            if (bound->patch < 0) return bound->major == version.major && bound->minor == version.minor;
            return *bound == version;
        case VersionRange::Op::lt: return version < *bound;
        case VersionRange::Op::le: return version <= *bound;
        case VersionRange::Op::gt: return version > *bound;
        case VersionRange::Op::ge: return version >= *bound;
        case VersionRange::Op::any: return true;
    }
    return false;
}

std::optional<Expect> expectationFor(const ExpectSpec& spec, const ReleaseVersion& version, bool* covered) {
    if (covered) *covered = true;
    if (!spec.present) return std::nullopt;
    if (spec.single) return spec.single;
    const Expect* fallback = nullptr;
    for (const auto& [range, expect] : spec.perProfile) {
        if (range.op == VersionRange::Op::any) {
            fallback = &expect;
            continue;
        }
        if (rangeCovers(range, version)) return expect;
    }
    if (fallback) return *fallback;
    if (covered) *covered = false;
    return std::nullopt;
}

std::string mismatch(const Expect& e, const Observed& o) {
    if (e.notAsserted) return {};
    if (!e.perClient.empty()) {
        // Reconnect steps: each named client's own outcome; unnamed ones are not asserted.
        for (const auto& [name, want] : e.perClient) {
            auto it = o.perClient.find(name);
            if (it == o.perClient.end()) return name + ": did not reconnect (not open before this step)";
            auto why = mismatch(want, it->second);
            if (!why.empty()) return name + ": " + why;
        }
        return {};
    }
    bool wantsError = e.error.has_value() || e.httpStatus.has_value();
    if (e.ok || !wantsError) {
        if (!o.ok) return "expected success, got " + describeObserved(o);
    }
    if (wantsError) {
        if (o.ok) return "expected an error, got " + describeObserved(o);
        if (e.error && *e.error != o.error) return "expected error " + *e.error + ", got " + describeObserved(o);
        if (e.httpStatus && (!o.httpStatus || *o.httpStatus != *e.httpStatus))
            return "expected HTTP " + std::to_string(*e.httpStatus) + ", got " + describeObserved(o);
    }
    if (e.message && o.message.find(*e.message) == std::string::npos)
        return "expected the message to contain " + yamlQuote(*e.message) + ", got " + yamlQuote(o.message);
    if (e.schemaVersion && o.schemaVersion != e.schemaVersion)
        return "expected schema_version " + std::to_string(*e.schemaVersion) + ", got " +
               (o.schemaVersion ? std::to_string(*o.schemaVersion) : std::string("none"));
    if (e.type && (!o.schema || o.schema->type != *e.type))
        return "expected type " + std::string(to_string_view(*e.type)) + ", got " +
               (o.schema ? std::string(to_string_view(o.schema->type)) : std::string("no schema"));
    if (e.schemaData) {
        bool same = o.schema && o.schema->data == e.schemaData->data && o.schema->type == e.schemaData->type;
        if (!same) return "expected the definition of schema '" + e.schemaAlias.value_or("?") + "', got a different one";
    }
    if (e.properties && (!o.schema || o.schema->properties != *e.properties))
        return "expected properties " + renderProperties(*e.properties) + ", got " +
               (o.schema ? renderProperties(o.schema->properties) : std::string("no schema"));
    if (e.compatible && o.compatible != e.compatible)
        return "expected compatible: " + boolText(*e.compatible) + ", got " +
               (o.compatible ? boolText(*o.compatible) : describeObserved(o));
    if (e.strategy && o.strategy != e.strategy)
        return "expected strategy " + std::string(to_string_view(*e.strategy)) + ", got " +
               (o.strategy ? std::string(to_string_view(*o.strategy)) : std::string("none"));
    return {};
}

std::string renderExpect(const Expect& e) {
    if (e.notAsserted) return "~";
    if (!e.perClient.empty()) {
        std::string out = "{ ";
        bool first = true;
        for (const auto& [name, each] : e.perClient) {
            out += (first ? "" : ", ") + name + ": " + renderExpect(each);
            first = false;
        }
        return out + " }";
    }
    std::string fields;
    auto add = [&fields](const std::string& k, const std::string& v) {
        fields += (fields.empty() ? "" : ", ") + k + ": " + v;
    };
    if (e.error) add("error", *e.error);
    if (e.httpStatus) add("error", std::to_string(*e.httpStatus));
    if (e.message) add("message", yamlQuote(*e.message));
    if (e.schemaVersion) add("schema_version", std::to_string(*e.schemaVersion));
    if (e.type) add("type", std::string(to_string_view(*e.type)));
    if (e.schemaAlias) add("schema", *e.schemaAlias);
    if (e.properties) add("properties", renderProperties(*e.properties));
    if (e.compatible) add("compatible", boolText(*e.compatible));
    if (e.strategy) add("strategy", std::string(to_string_view(*e.strategy)));
    if (fields.empty()) return "ok";
    return "{ " + fields + " }";
}

namespace {

// What the text of an outcome depends on in its step's kind.
struct Rendering {
    bool check = false;      // a failed check is not an outcome to accept
    bool getSchema = false;  // the schema read is part of the outcome
};

std::string renderAs(const Observed& o, Rendering as) {
    if (!o.perClient.empty()) {
        std::string out = "{ ";
        bool first = true;
        for (const auto& [name, each] : o.perClient) {
            out += (first ? "" : ", ") + name + ": " + renderAs(each, {});
            first = false;
        }
        return out + " }";
    }
    if (!o.ok) {
        if (as.check) return "ok";  // a failed check is not an outcome to accept
        return "{ error: " + o.error + ", message: " + yamlQuote(o.message) + " }";
    }
    std::string fields;
    auto add = [&fields](const std::string& k, const std::string& v) {
        fields += (fields.empty() ? "" : ", ") + k + ": " + v;
    };
    if (o.schemaVersion) add("schema_version", std::to_string(*o.schemaVersion));
    if (as.getSchema && o.schema) {
        add("type", std::string(to_string_view(o.schema->type)));
        add("properties", renderProperties(o.schema->properties));
    }
    if (o.compatible) add("compatible", boolText(*o.compatible));
    if (o.strategy) add("strategy", std::string(to_string_view(*o.strategy)));
    if (fields.empty()) return "ok";
    return "{ " + fields + " }";
}

}  // namespace

std::string renderObserved(const Observed& o, const Step& step) {
    return renderAs(o, {step.is<CheckStep>(), step.is<GetSchemaStep>()});
}

}  // namespace cnx::sim
