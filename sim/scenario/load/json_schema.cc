// The JSON Schema of the scenario format, walked from the field tables of
// format.h: every table becomes an object schema with its keys as properties
// (additionalProperties false, as the loader rejects unknown keys), its
// required keys as `required`, and each ValueSpec as the value's schema.
// Values of kind section or custom have shapes of their own; they are named
// here by key (`shapeOf`), and a key this file does not know yet still gets
// its place in the properties (its value unconstrained), so a new key added
// to a table is covered without touching this file.
#include "sim/scenario/load/json_schema.h"

#include <algorithm>
#include <initializer_list>

#include "sim/scenario/load/format.h"
#include "sim/scenario/load/json_tree.h"

namespace cnx::sim::load {
namespace {

constexpr std::string_view kReleasePattern = "^[0-9]+\\.[0-9]+(\\.[0-9]+)?$";
// parseRange (names.cc): default, or an optional comparison and a release.
constexpr std::string_view kRangePattern = "^(default|(<=|>=|==|<|>|=)? *[0-9]+\\.[0-9]+(\\.[0-9]+)?)$";

Json str(std::string_view s) { return Json::string(s); }
Json ref(std::string_view def) { return Json::object().set("$ref", str("#/$defs/" + std::string(def))); }

Json strings(Names names) {
    Json a = Json::array();
    for (std::string_view n : names) a.push(str(n));
    return a;
}

Json typeList(std::initializer_list<std::string_view> types) {
    Json a = Json::array();
    for (std::string_view t : types) a.push(str(t));
    return a;
}

Json scalar() { return Json::object().set("type", typeList({"string", "number", "boolean"})); }
Json nonEmpty() { return scalar().set("minLength", Json::integer(1)); }
Json anyOf(std::vector<Json> alternatives) { return Json::object().set("anyOf", Json::array(std::move(alternatives))); }
Json enumOf(Names names) { return Json::object().set("enum", strings(names)); }
Json described(Json j, std::string_view what) {
    if (!what.empty()) j.set("description", str(what));
    return j;
}
Json release() { return Json::object().set("type", typeList({"string", "number"})).set("pattern", str(kReleasePattern)); }
Json textList() { return anyOf({scalar(), Json::object().set("type", str("array")).set("items", scalar())}); }

// A setting's value: one of the choices the model accepts, or null (reset).
Json settingsOf(SettingScope scope) {
    Json props = Json::object();
    for (std::string_view key : settingKeys(scope)) {
        Json value = Json::object();
        if (auto choices = settingChoices(scope, key)) {
            Json e = strings(*choices);
            if (contains(*choices, "true")) e.push(Json::boolean(true));
            if (contains(*choices, "false")) e.push(Json::boolean(false));
            e.push(Json::null());
            value.set("enum", std::move(e));
        } else {
            value.set("type", typeList({"string", "number", "boolean", "null"}));
        }
        props.set(key, std::move(value));
    }
    return Json::object()
        .set("type", typeList({"object", "null"}))
        .set("properties", std::move(props))
        .set("additionalProperties", Json::boolean(false));
}

Json schemaRef(SchemaUse use) {
    Json name = nonEmpty();
    // Pseudo schemas a use does not take (schemaRefOf in schema_section.cc).
    if (use == SchemaUse::producer) name.set("not", Json::object().set("const", str(kAutoConsume)));
    if (use == SchemaUse::subscribe) name.set("not", Json::object().set("const", str(kAutoProduceBytes)));
    return anyOf({described(std::move(name), "a schema alias, a primitive type name or a pseudo schema"),
                  ref("schema-definition")});
}

Json valueOf(const ValueSpec& spec) {
    switch (spec.kind) {
        case ValueKind::text: return scalar();
        case ValueKind::nonEmptyText: return nonEmpty();
        case ValueKind::textList: return textList();
        case ValueKind::integer:
            return Json::object()
                .set("type", str("integer"))
                .set("minimum", Json::integer(spec.min))
                .set("maximum", Json::integer(spec.max));
        case ValueKind::boolean: return Json::object().set("type", str("boolean"));
        case ValueKind::choice: return described(enumOf(spec.choices()), spec.noun);
        case ValueKind::release: return described(release(), spec.noun);
        case ValueKind::brokerVersion: return described(release(), "a broker release with a behaviour profile");
        case ValueKind::topic: return described(nonEmpty(), "a topic name (short names are expanded)");
        case ValueKind::schema: return schemaRef(spec.use);
        case ValueKind::schemaName: return described(nonEmpty(), "a schema alias or a primitive type name");
        case ValueKind::properties:
            return Json::object().set("type", str("object")).set("additionalProperties", scalar());
        case ValueKind::settings: return settingsOf(spec.scope);
        case ValueKind::producerName: return described(nonEmpty(), "a producer opened by an earlier step");
        case ValueKind::client: return described(nonEmpty(), "a client declared under clients, or java or cpp");
        case ValueKind::section:
        case ValueKind::custom: break;
    }
    return described(Json::object(), spec.noun);
}

// The shapes of section and custom values, by key.
Json shapeOf(std::string_view key, const ValueSpec& spec) {
    if (key == "broker") return ref("broker");
    if ((key == "namespaces" || key == "tenants") && spec.noun.starts_with("a list"))  // broker: the ones that exist
        return described(Json::object()
                             .set("type", str("array"))
                             .set("uniqueItems", Json::boolean(true))
                             .set("items", key == "tenants" ? nonEmpty()
                                                            : Json::object()
                                                                  .set("type", str("string"))
                                                                  .set("pattern", str("^[^/]+/[^/]+$"))),
                         spec.noun);
    if (key == "namespaces")
        return Json::object()
            .set("type", typeList({"object", "null"}))
            .set("propertyNames", Json::object().set("pattern", str("^[^/]+/[^/]+$")))
            .set("additionalProperties", settingsOf(SettingScope::namespacePolicy));
    if (key == "topics")
        return Json::object()
            .set("type", typeList({"object", "null"}))
            .set("additionalProperties", anyOf({Json::object().set("type", str("null")), ref("topic")}));
    if (key == "clients")
        return Json::object()
            .set("type", typeList({"object", "null"}))
            .set("additionalProperties", anyOf({Json::object().set("type", str("null")), ref("client")}));
    if (key == "schemas")
        return Json::object()
            .set("type", typeList({"object", "null"}))
            .set("propertyNames", Json::object().set("not", enumOf(primitiveNames())))
            .set("additionalProperties", ref("schema-definition"));
    if (key == "steps")
        return Json::object().set("type", str("array")).set("minItems", Json::integer(1)).set("items", ref("step"));
    if (key == "faults") return Json::object().set("type", typeList({"array", "null"})).set("items", scalar());
    if (key == "version")  // broker: one version or a list
        return anyOf({release(), Json::object().set("type", str("array")).set("items", release())});
    if (key == "schema_versions")
        return anyOf({Json::object().set("type", str("integer")).set("minimum", Json::integer(0)),
                      Json::object().set("type", str("array")).set("items", nonEmpty())});
    if (key == "explore") return ref("explore");
    return described(Json::object(), spec.noun);
}

Json perVersion(Json value);

// `byVersion`: every key but these may also be given per version (a check's values).
template <class Fields>
Json objectOf(const Fields& fields, std::string_view what, std::initializer_list<std::string_view> byVersionExcept = {},
              bool byVersion = false) {
    Json props = Json::object();
    Json required = Json::array();
    for (const auto& f : fields) {
        bool shaped = f.spec.kind == ValueKind::section || f.spec.kind == ValueKind::custom;
        Json value = shaped ? shapeOf(f.key, f.spec) : valueOf(f.spec);
        if (f.onNull == OnNull::skip) value = anyOf({Json::object().set("type", str("null")), std::move(value)});
        if (byVersion && std::find(byVersionExcept.begin(), byVersionExcept.end(), f.key) == byVersionExcept.end()) {
            Json again = value;
            value = anyOf({std::move(value), perVersion(std::move(again))});
        }
        props.set(f.key, std::move(value));
        if (f.need == Need::required) required.push(str(f.key));
    }
    Json out = described(Json::object().set("type", str("object")), what);
    out.set("properties", std::move(props));
    if (!required.empty()) out.set("required", std::move(required));
    out.set("additionalProperties", Json::boolean(false));
    return out;
}

// `expect` of a step of `kind` (expectations.cc).
Json outcomeMapOf(const ActionInfo& info) {
    Json props = Json::object();
    Json success = Json::array();
    for (const auto& f : kExpectErrorFields) props.set(f.key, valueOf(f.spec));
    Json serverError = described(enumOf(kServerErrors), "a ServerError name");
    Json status = described(Json::object()
                                .set("type", str("integer"))
                                .set("minimum", Json::integer(100))
                                .set("maximum", Json::integer(599)),
                            "an HTTP status (admin steps)");
    props.set("error", info.admin ? anyOf({serverError, status}) : serverError);
    for (const auto& f : kExpectSuccessFields) {
        if (!f.onlyFor.empty() && !info.name.empty() && f.onlyFor != info.name) continue;
        props.set(f.key, valueOf(f.spec));
        success.push(Json::object().set("required", Json::array({str(f.key)})));
    }
    Json out = Json::object().set("type", str("object")).set("properties", std::move(props));
    out.set("additionalProperties", Json::boolean(false));
    out.set("dependentRequired", Json::object().set("message", Json::array({str("error")})));
    out.set("dependentSchemas",
            Json::object().set("error", Json::object().set("not", Json::object().set("anyOf", std::move(success)))));
    return out;
}

Json outcomeOf(const ActionInfo& info, bool perClient) {
    std::vector<Json> alternatives{Json::object().set("const", str("ok")), outcomeMapOf(info)};
    if (perClient && info.reconnect)
        alternatives.push_back(described(
            Json::object().set("type", str("object")).set("additionalProperties", outcomeOf(info, false)),
            "outcomes per producer, consumer or client"));
    return anyOf(std::move(alternatives));
}

Json perVersion(Json value) {
    return described(Json::object()
                         .set("type", str("object"))
                         .set("minProperties", Json::integer(1))
                         .set("propertyNames", Json::object().set("pattern", str(kRangePattern)))
                         .set("additionalProperties",
                              anyOf({std::move(value), described(Json::object().set("type", str("null")),
                                                                 "~: deliberately not asserted on these versions")})),
                     "by version range: default, \"2.10\", \"<3.0\", \">=2.11\"");
}

Json expectOf(const ActionInfo& info) { return anyOf({outcomeOf(info, true), perVersion(outcomeOf(info, true))}); }

// Results of a race: sets of one result per racing step.
Json resultSets() {
    ActionInfo any{"", nullptr, true, true};
    Json sets = Json::object()
                    .set("type", str("array"))
                    .set("items", Json::object().set("type", str("array")).set("items", outcomeOf(any, true)));
    return anyOf({sets, perVersion(sets)});
}

Json actionOf(ActionKind kind) {
    switch (kind) {
        case ActionKind::producer: return objectOf(kProducerFields, "");
        case ActionKind::subscribe: return objectOf(kSubscribeFields, "");
        case ActionKind::close: return described(nonEmpty(), "a producer or consumer opened by an earlier step");
        case ActionKind::publish: return objectOf(kPublishFields, "");
        case ActionKind::uploadSchema: return objectOf(kTopicSchemaFields<UploadSchemaStep>, "");
        case ActionKind::getSchema: return objectOf(kGetSchemaFields, "");
        case ActionKind::getSchemaVersion: return objectOf(kTopicSchemaFields<GetSchemaVersionStep>, "");
        case ActionKind::deleteSchema: return objectOf(kDeleteSchemaFields, "");
        case ActionKind::deleteTopic: return objectOf(kDeleteTopicFields, "");
        case ActionKind::testCompatibility: return objectOf(kTopicSchemaFields<TestCompatibilityStep>, "");
        case ActionKind::setPolicy: {
            auto target = [](std::string_view key, SettingScope scope, std::string_view what) {
                Json j = settingsOf(scope);
                j.set("type", str("object"));
                j.find("properties")->set(key, described(nonEmpty(), what));
                j.set("required", Json::array({str(key)}));
                j.set("minProperties", Json::integer(2));
                return j;
            };
            return anyOf({target("namespace", SettingScope::namespacePolicy, "tenant/namespace"),
                          target("topic", SettingScope::topicPolicy, "a topic name")});
        }
        case ActionKind::setBrokerConfig: {
            Json j = settingsOf(SettingScope::broker);
            j.set("type", str("object"));
            j.set("minProperties", Json::integer(1));
            return j;
        }
        case ActionKind::upgradeBroker:
            return anyOf({valueOf(kUpgradeBrokerFields[0].spec), objectOf(kUpgradeBrokerFields, "")});
        case ActionKind::restartBroker:
            return anyOf({Json::object().set("type", str("null")), objectOf(kRestartBrokerFields, "")});
        case ActionKind::unload: return anyOf({valueOf(kUnloadFields[0].spec), objectOf(kUnloadFields, "")});
        case ActionKind::check: {
            Json j = objectOf(kCheckFields, "", {"topic", "namespace"}, true);
            j.set("minProperties", Json::integer(2));  // the topic and one assertion
            return j;
        }
        case ActionKind::concurrently:
            return Json::object()
                .set("type", str("array"))
                .set("minItems", Json::integer(2))
                .set("maxItems", Json::integer(static_cast<std::int64_t>(kMaxRaceBranches)))
                .set("items", ref("race-branch"));
    }
    return Json::object();
}

// The keys loadStep allows only on a concurrently step.
bool raceOnly(std::string_view key) {
    return key == "explore" || key == "outcomes" || key == "reachable" || key == "invariant";
}

Json stepFieldOf(const Field<Step>& f, const ActionInfo& info) {
    if (f.key == "expect") return expectOf(info);
    if (f.key == "outcomes" || f.key == "reachable") return resultSets();
    if (f.key == "invariant")
        return anyOf({enumOf(kInvariants),
                      Json::object().set("type", str("array")).set("items", enumOf(kInvariants))});
    if (f.spec.kind == ValueKind::section || f.spec.kind == ValueKind::custom) return shapeOf(f.key, f.spec);
    return valueOf(f.spec);
}

// One alternative per step kind: its action key and the step keys it may carry.
Json stepOf(bool inRace) {
    std::vector<Json> kinds;
    for (std::size_t i = 0; i < kActionTable.size(); ++i) {
        auto kind = static_cast<ActionKind>(i);
        const ActionInfo& info = kActionTable[i];
        if (inRace && kind == ActionKind::concurrently) continue;
        bool race = kind == ActionKind::concurrently;
        Json props = Json::object();
        props.set(info.name, actionOf(kind));
        for (const auto& f : kStepFields) {
            if (raceOnly(f.key) && !race) continue;
            if (f.key == "expect" && (race || inRace)) continue;
            props.set(f.key, stepFieldOf(f, info));
        }
        kinds.push_back(Json::object()
                            .set("type", str("object"))
                            .set("properties", std::move(props))
                            .set("required", Json::array({str(info.name)}))
                            .set("additionalProperties", Json::boolean(false)));
    }
    Json names = strings(kActionNames);
    return Json::object()
        .set("description", str(inRace ? "a step racing in concurrently (no expect: list results under outcomes)"
                                       : "a step: one action key, and id, expect, ..."))
        .set("type", str("object"))
        .set("propertyNames", enumOf(kStepKeys))
        .set("oneOf", Json::array(std::move(kinds)));
}

Json definitionSchema() {
    Json j = objectOf(kDefinitionFields, "an inline schema definition, or a file holding one");
    // `file` stands alone; anything else needs a type (definitionOf).
    j.set("required", Json::array());
    j.set("anyOf", Json::array({Json::object().set("required", Json::array({str("type")})),
                                Json::object().set("required", Json::array({str("file")}))}));
    j.set("dependentSchemas", Json::object().set("file", Json::object().set("maxProperties", Json::integer(1))));
    j.find("properties")->set("key", ref("schema-component"));
    j.find("properties")->set("value", ref("schema-component"));
    return j;
}

}  // namespace

std::string scenarioJsonSchema() {
    Json defs = Json::object();
    defs.set("scenario", objectOf(kScenarioFields, "one scenario (one YAML document)"));
    defs.set("schemas-file", objectOf(kSchemasFileFields, "a schemas file: shared definitions that scenarios import"));
    defs.find("schemas-file")->set("required", Json::array({str("schemas")}));
    defs.set("setup", objectOf(kSetupFields, "a cnxsim serve --setup file"));
    defs.set("broker", objectOf(kBrokerFields, "the broker under test"));
    defs.find("broker")->set("type", typeList({"object", "null"}));
    defs.set("topic", objectOf(kTopicDeclFields, "a topic declaration"));
    defs.set("client", objectOf(kClientFields, "a client declaration"));
    defs.set("schema-definition", definitionSchema());
    defs.set("schema-component", schemaRef(SchemaUse::component));
    defs.set("step", stepOf(false));
    defs.set("race-branch", stepOf(true));
    defs.set("explore", anyOf({enumOf(kExhaustive), objectOf(kExploreFields, "random runs")}));

    Json root = Json::object();
    root.set("$schema", str("https://json-schema.org/draft/2020-12/schema"));
    root.set("$id", str("https://cnxsim.invalid/scenario.schema.json"));
    root.set("title", str("cnxsim scenario"));
    root.set("description", str("A cnxsim scenario (doc/scenario-format.md); each YAML document of a file is one "
                                "scenario, or a schemas file that scenarios import. Generated by `cnxsim schema` "
                                "from the loader's field tables."));
    root.set("anyOf", Json::array({Json::object().set("$ref", str("#/$defs/scenario")),
                                   Json::object().set("$ref", str("#/$defs/schemas-file"))}));
    root.set("$defs", std::move(defs));
    return root.dump();
}

}  // namespace cnx::sim::load
