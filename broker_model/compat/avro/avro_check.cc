// The AVRO and JSON checkers (reference §6.3, §6.4) and the two Avro services
// of avro_check.h (§4.5, §6.7).
//
// Pulsar sources read (apache/pulsar pulsar-broker .../service/schema/):
// AvroSchemaBasedCompatibilityCheck.java (parse existing list then the new
// schema, newest first; SchemaParseException and SchemaValidationException
// wrapped as IncompatibleSchemaException(e), whose message is e.toString()),
// NeverSchemaValidator.java (throws SchemaValidationException(new, new) when
// the list is non-empty), JsonSchemaCompatibilityCheck.java (pair logic).
// Avro: ValidateMutualRead.canRead, SchemaValidationException.getMessage,
// ValidateLatest / ValidateAll, SchemaValidatorBuilder strategies.

#include "broker_model/compat/avro/avro_check.h"
#include "broker_model/compat/json/json_nesting.h"
#include "broker_model/runtime/large_stack.h"

#include <algorithm>
#include <array>
#include <span>

#include <boost/container/small_vector.hpp>

#include "broker_model/compat/avro/avro_resolve.h"
#include "broker_model/compat/avro/avro_schema.h"

namespace cnx::compat {
namespace {

using avro::JavaException;
using avro::ParseResult;
using avro::Schema;

// ---- parse failures (§6.3: SchemaParseException => incompatible; anything else escapes) ----

CheckResult fromParseFailure(const JavaException& e) {
    if (e.cls == exception_class::kAvroSchemaParse) {
        return CheckResult::incompatible(e.toString(), {{"schema_parse_error", "", e.message, "", ""}});
    }
    return CheckResult::error(e.cls, e.message);
}

CheckResult fromThrown(const JavaException& e) { return CheckResult::error(e.cls, e.message); }

// ---- SchemaValidationException text ----

std::string validationMessage(const Schema& reader, const Schema& writer) {
    return std::string(exception_class::kAvroSchemaValidation) + ": Unable to read schema: \n" + avro::toJsonText(writer, true) +
           "\nusing schema:\n" + avro::toJsonText(reader, true);
}

// ValidateMutualRead.canRead(writtenWith, readUsing).
std::optional<CheckResult> canRead(const Schema& writer, const Schema& reader, const CheckOptions& options) {
    avro::Resolution r = avro::canRead(writer, reader, options.avro, options.fastPaths);
    switch (r.verdict) {
        case Verdict::compatible: return std::nullopt;
        case Verdict::incompatible: return CheckResult::incompatible(validationMessage(reader, writer), std::move(r.problems));
        case Verdict::error: return fromThrown(*r.thrown);
    }
    return std::nullopt;
}

enum class Direction { canRead, canBeRead, mutualRead };

// SchemaValidationStrategy.validate(toValidate, existing).
std::optional<CheckResult> validatePair(Direction d, const Schema& candidate, const Schema& existing, const CheckOptions& o) {
    switch (d) {
        case Direction::canRead: return canRead(existing, candidate, o);    // new reads data written with existing
        case Direction::canBeRead: return canRead(candidate, existing, o);  // existing reads data written with new
        case Direction::mutualRead:
            if (auto r = canRead(candidate, existing, o)) return r;
            return canRead(existing, candidate, o);
    }
    return std::nullopt;
}

struct ValidatorChoice {
    enum class Kind { always, never, latest, all } kind;
    Direction direction;
};

// AvroSchemaBasedCompatibilityCheck.createSchemaValidator (§6.3 table).
ValidatorChoice validatorFor(CompatibilityStrategy s) {
    using K = ValidatorChoice::Kind;
    switch (s) {
        case CompatibilityStrategy::BACKWARD: return {K::latest, Direction::canRead};
        case CompatibilityStrategy::BACKWARD_TRANSITIVE: return {K::all, Direction::canRead};
        case CompatibilityStrategy::FORWARD: return {K::latest, Direction::canBeRead};
        case CompatibilityStrategy::FORWARD_TRANSITIVE: return {K::all, Direction::canBeRead};
        case CompatibilityStrategy::FULL: return {K::latest, Direction::mutualRead};
        case CompatibilityStrategy::FULL_TRANSITIVE: return {K::all, Direction::mutualRead};
        case CompatibilityStrategy::ALWAYS_COMPATIBLE: return {K::always, Direction::canRead};
        case CompatibilityStrategy::ALWAYS_INCOMPATIBLE:
        case CompatibilityStrategy::UNDEFINED: return {K::never, Direction::canRead};
    }
    return {K::never, Direction::canRead};
}

// `existingNewestFirst` is Pulsar's fromList (addFirst while iterating oldest..newest).
CheckResult runValidator(ValidatorChoice v, const Schema& candidate, std::span<const Schema* const> existingNewestFirst,
                         const CheckOptions& o) {
    using K = ValidatorChoice::Kind;
    switch (v.kind) {
        case K::always: return CheckResult::compatible();
        case K::never:
            if (existingNewestFirst.empty()) return CheckResult::compatible();
            return CheckResult::incompatible(validationMessage(candidate, candidate),
                                             {{"always_incompatible", "", "the strategy rejects every schema", "", ""}});
        case K::latest:
            if (existingNewestFirst.empty()) return CheckResult::compatible();
            if (auto r = validatePair(v.direction, candidate, *existingNewestFirst.front(), o)) {
                r->failedAgainst = existingNewestFirst.size() - 1;  // the newest, oldest-first index
                return *r;
            }
            return CheckResult::compatible();
        case K::all:
            for (std::size_t i = 0; i < existingNewestFirst.size(); ++i) {
                if (auto r = validatePair(v.direction, candidate, *existingNewestFirst[i], o)) {
                    r->failedAgainst = existingNewestFirst.size() - 1 - i;  // oldest-first index
                    return *r;
                }
            }
            return CheckResult::compatible();
    }
    return CheckResult::compatible();
}

// The per-check lists (inputs, parses, the schemas newest first) hold one or
// two entries in the common check against the latest schema: kept inline, so
// such a check allocates nothing for them.
template <class T>
using SmallVector = boost::container::small_vector<T, 2>;

avro::ParseOptions parseOptions(const CheckOptions& o) { return avro::parseOptionsFor(o); }

// The parse of inputs[i] (existing..., candidate): looked up already, or parsed now.
ParseResult takeParse(std::span<avro::CheckInput> inputs, std::size_t i, const std::string& text, const CheckOptions& o) {
    if (inputs[i].parsed()) return std::move(inputs[i].result);
    return avro::parseCached(text, parseOptions(o));
}

// AvroSchemaBasedCompatibilityCheck.checkCompatible(Iterable from, to, strategy), on the calling thread.
CheckResult avroListCheckHere(std::span<const SchemaData> existing, const SchemaData& candidate,
                              CompatibilityStrategy strategy, const CheckOptions& options, std::span<avro::CheckInput> inputs) {
    SmallVector<ParseResult> parsed;  // keeps the shared schemas alive
    parsed.reserve(existing.size());
    for (const SchemaData& e : existing) {
        parsed.push_back(takeParse(inputs, parsed.size(), e.data, options));
        if (!parsed.back().ok()) {
            CheckResult r = fromParseFailure(*parsed.back().failure);
            r.failedAgainst = parsed.size() - 1;
            return r;
        }
    }
    ParseResult to = takeParse(inputs, existing.size(), candidate.data, options);
    if (!to.ok()) return fromParseFailure(*to.failure);
    SmallVector<const Schema*> newestFirst;
    newestFirst.reserve(parsed.size());
    for (auto it = parsed.rbegin(); it != parsed.rend(); ++it) newestFirst.push_back(it->schema.get());
    CheckResult r = runValidator(validatorFor(strategy), *to.schema, {newestFirst.data(), newestFirst.size()}, options);
    if (r.verdict == Verdict::incompatible && options.avroValidationMessageWithStrategy) {
        // NEWEST AvroSchemaBasedCompatibilityCheck (c9629049):
        // "Error during schema compatibility check with strategy %s: %s: %s".
        r.message = "Error during schema compatibility check with strategy " + std::string(to_string_view(strategy)) +
                    ": " + r.message;
    }
    return r;
}

// The same on a stack deep enough for the resolver's modelled recursion (issue 7 item 9).
CheckResult avroListCheck(std::span<const SchemaData> existing, const SchemaData& candidate, CompatibilityStrategy strategy,
                          const CheckOptions& options) {
    // Each definition's parse and JSON nesting in one cache look-up (a scan of
    // every stored version's text on every check was most of a warm check; a
    // new definition is parsed by the quick path there, or scanned and left
    // for the full parser on the stack its nesting calls for).
    SmallVector<avro::CheckInput> inputs;
    inputs.reserve(existing.size() + 1);
    bool shallow = true;
    for (const auto& e : existing) {
        inputs.push_back(avro::lookUpForCheck(e.data, parseOptions(options)));
        shallow = shallow && inputs.back().nesting <= kShallowNesting;
    }
    inputs.push_back(avro::lookUpForCheck(candidate.data, parseOptions(options)));
    shallow = shallow && inputs.back().nesting <= kShallowNesting;
    if (shallow) return avroListCheckHere(existing, candidate, strategy, options, {inputs.data(), inputs.size()});
    return onCheckerStack([&] { return avroListCheckHere(existing, candidate, strategy, options, {inputs.data(), inputs.size()}); });
}

class AvroCheck final : public SchemaCompatibilityCheck {
public:
    CheckResult checkCompatible(const SchemaData& existing, const SchemaData& candidate, CompatibilityStrategy strategy,
                                const CheckOptions& options) const override {
        return avroListCheck(std::span<const SchemaData>(&existing, 1), candidate, strategy, options);
    }
    CheckResult checkCompatible(std::span<const SchemaData> existing, const SchemaData& candidate, CompatibilityStrategy strategy,
                                const CheckOptions& options) const override {
        return avroListCheck(existing, candidate, strategy, options);
    }
};

// ---- JSON (§6.4) ----

// Jackson's `readValue(data, JsonSchema.class)` (jackson-module-jsonSchema),
// approximated: an object whose "type" is a JSON-Schema type id and whose keys
// are all JsonSchema bean properties (FAIL_ON_UNKNOWN_PROPERTIES is on for a
// plain ObjectMapper); nested "properties"/"items" schemas checked the same way.
// The key list is UNCONFIRMED against the module's classes.
bool isJacksonJsonSchema(const avro::Json& j, int depth = 0);

bool isKnownJsonSchemaKey(std::string_view k) {
    static constexpr std::array<std::string_view, 33> kKeys{
        "type", "id", "$ref", "$schema", "required", "readonly", "description", "disallow", "extends", "title",
        "default", "links", "pathStart", "properties", "patternProperties", "additionalProperties", "dependencies", "items",
        "additionalItems", "minItems", "maxItems", "uniqueItems", "enum", "oneOf", "format", "minLength", "maxLength",
        "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"};
    return std::find(kKeys.begin(), kKeys.end(), k) != kKeys.end();
}

bool nestedSchemasValid(const avro::Json& j, int depth) {
    if (auto p = j.find("properties"); p != j.end()) {
        if (!p->is_object()) return false;
        for (const auto& [k, v] : p->items()) {
            if (!isJacksonJsonSchema(v, depth + 1)) return false;
        }
    }
    if (auto it = j.find("items"); it != j.end()) {
        if (it->is_object()) return isJacksonJsonSchema(*it, depth + 1);
        if (!it->is_array()) return false;
        for (const auto& v : *it) {
            if (!isJacksonJsonSchema(v, depth + 1)) return false;
        }
    }
    return true;
}

bool isJacksonJsonSchema(const avro::Json& j, int depth) {
    static constexpr std::array<std::string_view, 8> kTypes{"object", "array", "string", "number", "integer", "boolean", "null", "any"};
    if (depth > 500 || !j.is_object()) return false;
    auto t = j.find("type");
    if (t == j.end() || !t->is_string()) return false;
    if (std::find(kTypes.begin(), kTypes.end(), t->get<std::string>()) == kTypes.end()) return false;
    for (const auto& [k, v] : j.items()) {
        if (!isKnownJsonSchemaKey(k)) return false;
    }
    if (auto id = j.find("id"); id != j.end() && !id->is_string() && !id->is_null()) return false;
    return nestedSchemasValid(j, depth);
}

// Jackson readTree of a legacy JSON-Schema definition; nullopt when it does
// not parse, or nests past Jackson 2.15+'s limit (issue 7 item 6).
std::optional<avro::Json> readJson(const std::string& data) {
    if (jsonNestsDeeperThan(data)) return std::nullopt;
    try {
        return avro::Json::parse(data);
    } catch (const avro::Json::exception&) {
        return std::nullopt;
    }
}

bool isJsonSchema(const SchemaData& s) {
    auto j = readJson(s.data);
    return j && isJacksonJsonSchema(*j);
}

// isAvroSchema: parses, or fails with SchemaParseException (false); any other
// exception escapes the checker (returned as the error).
struct AvroProbe {
    bool isAvro = false;
    std::optional<JavaException> escaped;
};

AvroProbe probeAvro(const SchemaData& s, const CheckOptions& o) {
    ParseResult r = avro::parseCached(s.data, parseOptions(o));
    if (r.ok()) return {true, std::nullopt};
    if (r.isSchemaParseException()) return {false, std::nullopt};
    return {false, r.failure};
}

std::optional<std::string> jsonSchemaId(const SchemaData& s) {
    auto j = readJson(s.data);
    if (!j) return std::nullopt;
    auto id = j->find("id");
    if (id == j->end() || !id->is_string()) return std::nullopt;
    return id->get<std::string>();
}

// isCompatibleJsonSchema: ids must be equal; a missing "from" id is a NullPointerException.
CheckResult legacyPair(const SchemaData& from, const SchemaData& to) {
    auto fromId = jsonSchemaId(from);
    if (!fromId) return CheckResult::error(std::string(avro::kNullPointerException), "");
    auto toId = jsonSchemaId(to);
    if (toId && *fromId == *toId) return CheckResult::compatible();
    return CheckResult::incompatible("Incompatible Schema from " + from.data + " + to " + to.data,
                                     {{"json_schema_id_mismatch", "/id", "legacy JSON schema ids differ", from.data, to.data}});
}

CheckResult unknownFormat() {
    return CheckResult::incompatible("Unknown schema format", {{"unknown_schema_format", "", "neither Avro nor JSON Schema", "", ""}});
}

// JsonSchemaCompatibilityCheck.checkCompatible(from, to, strategy) with legacy formats allowed.
CheckResult jsonLegacyPair(const SchemaData& from, const SchemaData& to, CompatibilityStrategy strategy, const CheckOptions& o) {
    AvroProbe fromAvro = probeAvro(from, o);
    if (fromAvro.escaped) return fromThrown(*fromAvro.escaped);
    if (fromAvro.isAvro) {
        AvroProbe toAvro = probeAvro(to, o);
        if (toAvro.escaped) return fromThrown(*toAvro.escaped);
        if (toAvro.isAvro) return avroListCheck(std::span<const SchemaData>(&from, 1), to, strategy, o);
        if (isJsonSchema(to)) return CheckResult::compatible();  // old client, legacy format: allowed
        return unknownFormat();
    }
    if (isJsonSchema(from)) {
        AvroProbe toAvro = probeAvro(to, o);
        if (toAvro.escaped) return fromThrown(*toAvro.escaped);
        if (toAvro.isAvro) return CheckResult::compatible();  // overwrite the old format
        if (isJsonSchema(to)) return legacyPair(from, to);
        return unknownFormat();
    }
    return CheckResult::compatible();  // existing in an unknown (corrupt?) format: overwrite
}

class JsonCheck final : public SchemaCompatibilityCheck {
public:
    CheckResult checkCompatible(const SchemaData& existing, const SchemaData& candidate, CompatibilityStrategy strategy,
                                const CheckOptions& options) const override {
        // §6.4 4.2.0 PIP-464: strict mode accepts Avro-format definitions only; the
        // pair then goes straight to the Avro-based check (UNCONFIRMED wording of failures).
        if (!options.jsonAllowLegacyJacksonFormat) {
            return avroListCheck(std::span<const SchemaData>(&existing, 1), candidate, strategy, options);
        }
        return jsonLegacyPair(existing, candidate, strategy, options);
    }
    CheckResult checkCompatible(std::span<const SchemaData> existing, const SchemaData& candidate, CompatibilityStrategy strategy,
                                const CheckOptions& options) const override {
        // §6.4: the list entry point is inherited unchanged.
        return avroListCheck(existing, candidate, strategy, options);
    }
};

}  // namespace

std::optional<std::string> avroParseError(std::string_view definition, const CheckOptions& options) {
    ParseResult r = avro::parseCached(definition, avro::parseOptionsFor(options));
    if (r.ok()) return std::nullopt;
    return r.failure->message;
}

bool avroTopLevelIsUnion(std::string_view definition, const CheckOptions& options) {
    ParseResult r = avro::parseCached(definition, avro::parseOptionsFor(options));
    return r.ok() && r.schema->typeOf(r.schema->root) == avro::Type::union_;
}

std::optional<bool> avroDefinitionsEqual(std::string_view a, std::string_view b, const CheckOptions& options) {
    ParseResult x = avro::parseCached(a, avro::parseOptionsFor(options));
    ParseResult y = avro::parseCached(b, avro::parseOptionsFor(options));
    if (!x.ok() || !y.ok()) return std::nullopt;
    auto nesting = [&](std::string_view text) {  // both are in the parse cache now
        auto n = avro::cachedJsonNesting(text, avro::parseOptionsFor(options));
        return n ? *n : jsonNesting(text);
    };
    if (nesting(a) <= kShallowNesting && nesting(b) <= kShallowNesting)
        return avro::schemaEquals(*x.schema, *y.schema);
    return onCheckerStack([&] { return avro::schemaEquals(*x.schema, *y.schema); });
}

std::unique_ptr<SchemaCompatibilityCheck> makeAvroCheck() { return std::make_unique<AvroCheck>(); }

std::unique_ptr<SchemaCompatibilityCheck> makeJsonCheck() { return std::make_unique<JsonCheck>(); }

}  // namespace cnx::compat
