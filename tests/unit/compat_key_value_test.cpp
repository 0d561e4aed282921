// KEY_VALUE checker and layout (reference §6.6, §7.2), encoding apache/pulsar
// KeyValueSchemaCompatibilityCheck.java, KeyValueSchemaInfo.java and
// KeyValue.java (decode). AVRO/JSON components go to fake checkers registered
// with CheckerSet::add, so these tests do not depend on the Avro checker.

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "broker_model/compat/checker_set.h"
#include "broker_model/compat/key_value/key_value_check.h"

using namespace cnx;
using namespace cnx::compat;
using S = CompatibilityStrategy;

namespace {

/// One call a fake checker received.
struct Call {
    std::vector<SchemaData> existing;
    SchemaData candidate;
    S strategy;
    bool list;
};

/// A component checker that records its calls. Verdicts come from the
/// candidate's data: "incompatible" ⇒ incompatible, "throw" ⇒ error.
class FakeCheck final : public SchemaCompatibilityCheck {
public:
    explicit FakeCheck(std::vector<Call>* calls) : calls_(calls) {}

    CheckResult checkCompatible(const SchemaData& existing, const SchemaData& candidate, S strategy,
                                const CheckOptions&) const override {
        calls_->push_back({{existing}, candidate, strategy, false});
        return decide(candidate);
    }
    CheckResult checkCompatible(std::span<const SchemaData> existing, const SchemaData& candidate, S strategy,
                                const CheckOptions&) const override {
        calls_->push_back({{existing.begin(), existing.end()}, candidate, strategy, true});
        return decide(candidate);
    }

private:
    static CheckResult decide(const SchemaData& candidate) {
        if (candidate.data.find("incompatible") != std::string::npos) {
            return CheckResult::incompatible("fake: cannot read", {{"type_mismatch", "/fields/0/type", "", "", ""}});
        }
        if (candidate.data.find("throw") != std::string::npos) {
            return CheckResult::error("org.apache.avro.AvroRuntimeException", "fake throw");
        }
        return CheckResult::compatible();
    }
    std::vector<Call>* calls_;
};

/// A CheckerSet whose AVRO and JSON checkers are fakes.
struct Fixture {
    std::vector<Call> calls;
    CheckerSet set;
    Fixture() {
        set.add(SchemaType::AVRO, std::make_unique<FakeCheck>(&calls));
        set.add(SchemaType::JSON, std::make_unique<FakeCheck>(&calls));
    }
    const SchemaCompatibilityCheck& kv() const { return set.forType(SchemaType::KEY_VALUE); }
};

SchemaData prim(SchemaType t) { return SchemaData{t, "", {}}; }
SchemaData avro(const std::string& def) { return SchemaData{SchemaType::AVRO, def, {{"__alwaysAllowNull", "true"}}}; }
SchemaData kv(const SchemaData& k, const SchemaData& v, std::string_view enc = "INLINE") {
    return encodeKeyValue(k, v, enc);
}

std::string int32be(std::int32_t v) {
    auto u = static_cast<std::uint32_t>(v);
    return {static_cast<char>(u >> 24), static_cast<char>(u >> 16), static_cast<char>(u >> 8), static_cast<char>(u)};
}

SchemaData rawKv(const std::string& data, SchemaProperties props = {}) {
    return SchemaData{SchemaType::KEY_VALUE, data, std::move(props)};
}

constexpr const char* kDifferentTypes =
    "Key schemas or Value schemas are different schema type, from key schema type is {fk} and to key schema is "
    "{tk}, from value schema is {fv} and to value schema is {tv}";

std::string differentTypes(std::string_view fk, std::string_view tk, std::string_view fv, std::string_view tv) {
    std::string s = kDifferentTypes;
    auto put = [&](std::string_view hole, std::string_view v) { s.replace(s.find(hole), hole.size(), v); };
    put("{fk}", fk);
    put("{tk}", tk);
    put("{fv}", fv);
    put("{tv}", tv);
    return s;
}

}  // namespace

TEST_CASE("KEY_VALUE checker verdicts (§6.6)", "[compat][key_value]") {
    Fixture fx;
    const auto strStr = kv(prim(SchemaType::STRING), prim(SchemaType::STRING));
    const auto strStrSeparated = kv(prim(SchemaType::STRING), prim(SchemaType::STRING), "SEPARATED");
    const auto strInt = kv(prim(SchemaType::STRING), prim(SchemaType::INT32));
    const auto intStr = kv(prim(SchemaType::INT32), prim(SchemaType::STRING));
    const auto avroAvro = kv(avro(R"({"type":"record","name":"K","fields":[]})"),
                             avro(R"({"type":"record","name":"V","fields":[]})"));
    const auto avroAvroBad = kv(avro(R"({"type":"record","name":"K","fields":[]})"), avro("incompatible"));
    const auto avroKeyBad = kv(avro("incompatible"), avro("v"));
    const auto avroThrows = kv(avro("k"), avro("throw"));
    const auto noTypes = rawKv(int32be(0) + int32be(0));  // no key.schema.type / value.schema.type ⇒ BYTES
    auto noKeyType = strStr;
    noKeyType.properties.erase("key.schema.type");

    struct Row {
        const char* rule;
        SchemaData from, to;
        S strategy;
        Verdict verdict;
        std::string message;
        std::string firstProblemPath;
    };
    const std::vector<Row> rows = {
        // ALWAYS_COMPATIBLE passes before anything is looked at, even non-KV schemas.
        {"ALWAYS_COMPATIBLE, non-KV both sides", prim(SchemaType::STRING), avro("x"), S::ALWAYS_COMPATIBLE,
         Verdict::compatible, "", ""},
        // New schema not KEY_VALUE.
        {"to not KV", strStr, prim(SchemaType::STRING), S::BACKWARD, Verdict::incompatible,
         "To schema is not a KEY_VALUE schema.", ""},
        // Existing schema not KEY_VALUE.
        {"from not KV", prim(SchemaType::STRING), strStr, S::BACKWARD, Verdict::incompatible,
         "From schema is not a KEY_VALUE schema.", ""},
        // Same primitive components: DEFAULT passes them.
        {"primitives, BACKWARD", strStr, strStr, S::BACKWARD, Verdict::compatible, "", ""},
        // Encoding is a property and is not compared (INLINE vs SEPARATED).
        {"encoding differs", strStr, strStrSeparated, S::FULL, Verdict::compatible, "", ""},
        // Value type differs.
        {"value type differs", strStr, strInt, S::BACKWARD, Verdict::incompatible,
         differentTypes("STRING", "STRING", "STRING", "INT32"), "/value"},
        // Key type differs.
        {"key type differs", strStr, intStr, S::FORWARD, Verdict::incompatible,
         differentTypes("STRING", "INT32", "STRING", "STRING"), "/key"},
        // Missing key.schema.type means BYTES.
        {"missing key type is BYTES", noKeyType, strStr, S::BACKWARD, Verdict::incompatible,
         differentTypes("BYTES", "STRING", "STRING", "STRING"), "/key"},
        {"missing both types are BYTES", noTypes, strStr, S::BACKWARD, Verdict::incompatible,
         differentTypes("BYTES", "STRING", "BYTES", "STRING"), "/key"},
        // The type check runs even for strategies DEFAULT would pass.
        {"types differ, FULL_TRANSITIVE", strInt, strStr, S::FULL_TRANSITIVE, Verdict::incompatible,
         differentTypes("STRING", "STRING", "INT32", "STRING"), "/value"},
        // ALWAYS_INCOMPATIBLE reaches DEFAULT for the key first.
        {"primitives, ALWAYS_INCOMPATIBLE", strStr, strStr, S::ALWAYS_INCOMPATIBLE, Verdict::incompatible,
         "Schema compatibility strategy is ALWAYS_INCOMPATIBLE", "/key"},
        // AVRO components go to the AVRO checker; its message and path (prefixed) come back.
        {"AVRO value incompatible", avroAvro, avroAvroBad, S::BACKWARD, Verdict::incompatible, "fake: cannot read",
         "/value/fields/0/type"},
        {"AVRO key incompatible", avroAvro, avroKeyBad, S::BACKWARD, Verdict::incompatible, "fake: cannot read",
         "/key/fields/0/type"},
        {"AVRO components compatible", avroAvro, avroAvro, S::FULL, Verdict::compatible, "", ""},
        // A component checker's error is the KV checker's error.
        {"AVRO component error", avroAvro, avroThrows, S::BACKWARD, Verdict::error, "fake throw", ""},
        // Malformed new schema: a runtime exception, not "incompatible".
        {"malformed to", strStr, rawKv("\x00\x00"), S::BACKWARD, Verdict::error, "", ""},
        // Malformed existing schema.
        {"malformed from", rawKv(int32be(-7) + "xx"), strStr, S::BACKWARD, Verdict::error, "-7", ""},
        // The new schema is decoded before existing types are looked at.
        {"malformed to beats non-KV from", prim(SchemaType::STRING), rawKv(""), S::BACKWARD, Verdict::error, "",
         ""},
    };
    for (const auto& row : rows) {
        INFO(row.rule);
        auto r = fx.kv().checkCompatible(row.from, row.to, row.strategy, CheckOptions{});
        CHECK(r.verdict == row.verdict);
        CHECK(r.message == row.message);
        if (!row.firstProblemPath.empty()) {
            REQUIRE_FALSE(r.problems.empty());
            CHECK(r.problems.front().path == row.firstProblemPath);
        }
    }
}

TEST_CASE("KEY_VALUE decode errors name the Java exception", "[compat][key_value]") {
    Fixture fx;
    const auto good = kv(prim(SchemaType::STRING), prim(SchemaType::STRING));
    auto check = [&](const SchemaData& to) { return fx.kv().checkCompatible(good, to, S::BACKWARD, {}); };
    auto r = check(rawKv("abc"));
    CHECK(r.exceptionClass == "java.nio.BufferUnderflowException");
    r = check(rawKv(int32be(-2)));
    CHECK(r.exceptionClass == "java.lang.NegativeArraySizeException");
    CHECK(r.message == "-2");
    auto badType = good;
    badType.properties["value.schema.type"] = "STRINGS";
    r = check(badType);
    CHECK(r.exceptionClass == "java.lang.IllegalArgumentException");
    CHECK(r.message == "No enum constant org.apache.pulsar.common.schema.SchemaType.STRINGS");
}

TEST_CASE("KEY_VALUE delegation: components, strategy, entry point and order (§6.6)", "[compat][key_value]") {
    Fixture fx;
    auto keyV = [](int n) {
        return SchemaData{SchemaType::AVRO, "key-v" + std::to_string(n), {{"k", std::to_string(n)}}};
    };
    auto valueV = [](int n) { return SchemaData{SchemaType::JSON, "value-v" + std::to_string(n), {}}; };
    std::vector<SchemaData> history{kv(keyV(1), valueV(1)), kv(keyV(2), valueV(2), "SEPARATED"),
                                    kv(keyV(3), valueV(3))};
    const auto candidate = kv(keyV(4), valueV(4));

    SECTION("list entry point: key then value, same strategy, newest first like Java's addFirst") {
        auto r = fx.kv().checkCompatible(history, candidate, S::BACKWARD_TRANSITIVE, {});
        CHECK(r.ok());
        REQUIRE(fx.calls.size() == 2);
        const auto& key = fx.calls[0];
        CHECK(key.list);
        CHECK(key.strategy == S::BACKWARD_TRANSITIVE);
        CHECK(key.candidate == keyV(4));  // bytes, type and JSON-decoded key.schema.properties
        REQUIRE(key.existing.size() == 3);
        CHECK(key.existing[0] == keyV(3));
        CHECK(key.existing[2] == keyV(1));
        const auto& value = fx.calls[1];
        CHECK(value.candidate == valueV(4));
        CHECK(value.existing.front() == valueV(3));
    }
    SECTION("pair entry point goes through the list path with one entry") {
        auto r = fx.kv().checkCompatible(history[1], candidate, S::FORWARD, {});
        CHECK(r.ok());
        REQUIRE(fx.calls.size() == 2);
        CHECK(fx.calls[0].list);
        CHECK(fx.calls[0].strategy == S::FORWARD);
        CHECK(fx.calls[0].existing == std::vector<SchemaData>{keyV(2)});
    }
    SECTION("key failure stops before the value check") {
        auto bad = kv(SchemaData{SchemaType::AVRO, "incompatible", {}}, valueV(4));
        auto r = fx.kv().checkCompatible(history, bad, S::FULL_TRANSITIVE, {});
        CHECK(r.verdict == Verdict::incompatible);
        CHECK(fx.calls.size() == 1);
    }
    SECTION("empty history: components are still checked, with empty lists") {
        std::vector<SchemaData> none;
        auto r = fx.kv().checkCompatible(none, candidate, S::BACKWARD_TRANSITIVE, {});
        CHECK(r.ok());
        REQUIRE(fx.calls.size() == 2);
        CHECK(fx.calls[0].existing.empty());
        // With primitive components DEFAULT fails ALWAYS_INCOMPATIBLE even on an empty list.
        auto prims = kv(prim(SchemaType::STRING), prim(SchemaType::STRING));
        r = fx.kv().checkCompatible(none, prims, S::ALWAYS_INCOMPATIBLE, {});
        CHECK(r.message == "Schema compatibility strategy is ALWAYS_INCOMPATIBLE");
    }
    SECTION("one non-KV entry anywhere in the list") {
        history.push_back(prim(SchemaType::STRING));
        auto r = fx.kv().checkCompatible(history, candidate, S::BACKWARD_TRANSITIVE, {});
        CHECK(r.message == "From schema is not a KEY_VALUE schema.");
        CHECK(fx.calls.empty());
    }
    SECTION("a KEY_VALUE component is checked by the KEY_VALUE checker again") {
        auto inner1 = kv(prim(SchemaType::STRING), prim(SchemaType::STRING));
        auto inner2 = kv(prim(SchemaType::STRING), prim(SchemaType::INT64));
        auto r = fx.kv().checkCompatible(kv(inner1, prim(SchemaType::BYTES)), kv(inner2, prim(SchemaType::BYTES)),
                                         S::BACKWARD, {});
        CHECK(r.message == differentTypes("STRING", "STRING", "STRING", "INT64"));
        CHECK(r.problems.front().path == "/key/value");
    }
}

TEST_CASE("KEY_VALUE layout decoding (KeyValue.decode, §6.6)", "[compat][key_value]") {
    const SchemaProperties types{{"key.schema.type", "AVRO"}, {"value.schema.type", "STRING"}};
    struct Row {
        const char* rule;
        std::string data;
        SchemaProperties props;
        bool ok;
        std::string error;  // Throwable.toString() of the Java exception
        std::string key, value;
    };
    const std::vector<Row> rows = {
        // Plain layout.
        {"key and value", int32be(3) + "abc" + int32be(2) + "de", types, true, "", "abc", "de"},
        // Zero-length components (primitive schemas).
        {"empty components", int32be(0) + int32be(0), types, true, "", "", ""},
        // Length -1 means absent (null in Java); decoded as empty data.
        {"absent key and value", int32be(-1) + int32be(-1), types, true, "", "", ""},
        // Bytes after the value are ignored.
        {"trailing bytes ignored", int32be(1) + "a" + int32be(1) + "b" + "junk", types, true, "", "a", "b"},
        // Empty data: getInt underflows.
        {"empty data", "", types, false, "java.nio.BufferUnderflowException", "", ""},
        // Truncated key length.
        {"3-byte header", std::string("\x00\x00\x01", 3), types, false, "java.nio.BufferUnderflowException", "", ""},
        // Negative length other than -1.
        {"key length -2", int32be(-2) + "ab", types, false, "java.lang.NegativeArraySizeException: -2", "", ""},
        {"value length INT_MIN", int32be(0) + int32be(INT32_MIN), types, false,
         "java.lang.NegativeArraySizeException: -2147483648", "", ""},
        // Length beyond the buffer.
        {"key length beyond buffer", int32be(10) + "abc", types, false, "java.nio.BufferUnderflowException", "", ""},
        {"value length beyond buffer", int32be(1) + "a" + int32be(5) + "abcd", types, false,
         "java.nio.BufferUnderflowException", "", ""},
        // Missing value length.
        {"value length truncated", int32be(1) + "a" + std::string("\x00\x00", 2), types, false,
         "java.nio.BufferUnderflowException", "", ""},
        // A length HotSpot cannot allocate at all.
        {"key length INT_MAX", int32be(INT32_MAX), types, false,
         "java.lang.OutOfMemoryError: Requested array size exceeds VM limit", "", ""},
        // The admin JSON text stored raw as KV data (#21645): '{"ke' read as a length.
        {"JSON text as data", R"({"key":"","value":""})", types, false, "java.nio.BufferUnderflowException", "", ""},
        // Unknown component type name.
        {"bad key type", int32be(0) + int32be(0), {{"key.schema.type", "avro"}}, false,
         "java.lang.IllegalArgumentException: No enum constant org.apache.pulsar.common.schema.SchemaType.avro", "",
         ""},
        // Present but empty type name is not "missing".
        {"empty value type", int32be(0) + int32be(0), {{"value.schema.type", ""}}, false,
         "java.lang.IllegalArgumentException: No enum constant org.apache.pulsar.common.schema.SchemaType.", "", ""},
        // Layout errors come before property errors.
        {"layout before type", "", {{"key.schema.type", "nope"}}, false, "java.nio.BufferUnderflowException", "", ""},
        // Component properties that are not a JSON object.
        {"key props not JSON", int32be(0) + int32be(0), {{"key.schema.properties", "{oops"}}, false, "", "", ""},
        {"key props an array", int32be(0) + int32be(0), {{"key.schema.properties", "[1,2]"}}, false,
         "java.lang.IllegalStateException: Not a JSON Object: [1,2]", "", ""},
        {"value props with object value", int32be(0) + int32be(0), {{"value.schema.properties", R"({"a":{}})"}},
         false, "java.lang.UnsupportedOperationException: JsonObject", "", ""},
    };
    for (const auto& row : rows) {
        INFO(row.rule);
        std::string error;
        auto decoded = decodeKeyValue(rawKv(row.data, row.props), &error);
        CHECK(decoded.has_value() == row.ok);
        if (row.ok && decoded) {
            CHECK(decoded->key.data == row.key);
            CHECK(decoded->value.data == row.value);
            CHECK(decoded->key.type == SchemaType::AVRO);
            CHECK(decoded->value.type == SchemaType::STRING);
        }
        if (!row.ok && !row.error.empty()) CHECK(error == row.error);
        if (!row.ok) CHECK_FALSE(error.empty());
    }
}

TEST_CASE("KEY_VALUE properties and encoding (KeyValueSchemaInfo)", "[compat][key_value]") {
    std::string error;
    SECTION("component properties are JSON-decoded; scalars become strings; empty text means none") {
        SchemaProperties props{{"key.schema.properties", R"({"a":"x","n":5,"b":true,"one":["y"]})"},
                               {"value.schema.properties", ""}};
        auto d = decodeKeyValue(rawKv(int32be(0) + int32be(0), props), &error);
        REQUIRE(d);
        CHECK(d->key.properties == SchemaProperties{{"a", "x"}, {"n", "5"}, {"b", "true"}, {"one", "y"}});
        CHECK(d->value.properties.empty());
        CHECK(d->key.type == SchemaType::BYTES);  // no key.schema.type
    }
    SECTION("kv.encoding.type: INLINE when missing or empty, else as given") {
        auto d = decodeKeyValue(rawKv(int32be(0) + int32be(0)), &error);
        REQUIRE(d);
        CHECK(d->encoding == "INLINE");
        d = decodeKeyValue(rawKv(int32be(0) + int32be(0), {{"kv.encoding.type", ""}}), &error);
        CHECK(d->encoding == "INLINE");
        d = decodeKeyValue(rawKv(int32be(0) + int32be(0), {{"kv.encoding.type", "SEPARATED"}}), &error);
        CHECK(d->encoding == "SEPARATED");
    }
    SECTION("not a KEY_VALUE schema") {
        CHECK_FALSE(decodeKeyValue(prim(SchemaType::STRING), &error));
        CHECK(error == "java.lang.IllegalArgumentException: Not a KeyValue schema");
    }
    SECTION("encodeKeyValue writes the layout and the properties; decode inverts it") {
        SchemaData key{SchemaType::AVRO, "{\"type\":\"string\"}", {{"__alwaysAllowNull", "true"}, {"x<", "a=b"}}};
        SchemaData value = prim(SchemaType::INT64);
        auto e = encodeKeyValue(key, value, "SEPARATED");
        CHECK(e.type == SchemaType::KEY_VALUE);
        CHECK(e.data == int32be(17) + key.data + int32be(0));
        CHECK(e.properties.at("key.schema.type") == "AVRO");
        CHECK(e.properties.at("value.schema.type") == "INT64");
        // Gson: sorted keys, compact, HTML-safe escapes.
        CHECK(e.properties.at("key.schema.properties") == R"({"__alwaysAllowNull":"true","x\u003c":"a\u003db"})");
        CHECK(e.properties.at("value.schema.properties") == "{}");
        CHECK(e.properties.at("kv.encoding.type") == "SEPARATED");
        auto d = decodeKeyValue(e, &error);
        REQUIRE(d);
        CHECK(d->key == key);
        CHECK(d->value == value);
        CHECK(d->encoding == "SEPARATED");
    }
}

TEST_CASE("KEY_VALUE decoding never crashes on random input", "[compat][key_value][fuzz]") {
    std::mt19937 rng(4242);  // fixed seed: failures replay exactly
    Fixture fx;
    const auto good = kv(prim(SchemaType::STRING), prim(SchemaType::STRING));
    for (int i = 0; i < 5000; ++i) {
        std::string data(static_cast<std::size_t>(rng() % 24), '\0');
        for (auto& c : data) c = static_cast<char>(rng() % 4 == 0 ? 0xFF : rng() % 8);
        std::string error;
        auto d = decodeKeyValue(rawKv(data, good.properties), &error);
        CHECK(d.has_value() == error.empty());
        auto r = fx.kv().checkCompatible(good, rawKv(data, good.properties), S::BACKWARD, {});
        CHECK((r.verdict == Verdict::error) == !d.has_value());
    }
}
