// PROTOBUF_NATIVE checker and definition validation (reference §6.5, §6.7),
// encoding apache/pulsar ProtobufNativeSchemaCompatibilityCheck.java,
// ProtobufNativeSchemaUtils.java (deserialize) and
// ProtobufNativeSchemaDataValidator.java. Fixtures are real FileDescriptorSets
// built from FileDescriptorProto objects.

#include <catch2/catch.hpp>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker_model/compat/protobuf_native/protobuf_native_check.h"

using namespace cnx;
using namespace cnx::compat;
using google::protobuf::FieldDescriptorProto;
using google::protobuf::FileDescriptorProto;
using google::protobuf::FileDescriptorSet;

namespace {

constexpr const char* kDeserializeFailed = "deserialize ProtobufNative Schema failed";
constexpr const char* kRootChanged = "Protobuf root message isn't allow change!";
constexpr const char* kUnknownStrategy = "Unknown SchemaCompatibilityStrategy.";
constexpr const char* kSerialization = "org.apache.pulsar.client.api.SchemaSerializationException";

std::string base64(const std::string& bytes) {
    static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        unsigned v = (unsigned char)bytes[i] << 16 | (unsigned char)bytes[i + 1] << 8 | (unsigned char)bytes[i + 2];
        out += {a[v >> 18], a[(v >> 12) & 63], a[(v >> 6) & 63], a[v & 63]};
    }
    if (bytes.size() - i == 1) {
        unsigned v = (unsigned char)bytes[i] << 16;
        out += {a[v >> 18], a[(v >> 12) & 63], '=', '='};
    } else if (bytes.size() - i == 2) {
        unsigned v = (unsigned char)bytes[i] << 16 | (unsigned char)bytes[i + 1] << 8;
        out += {a[v >> 18], a[(v >> 12) & 63], a[(v >> 6) & 63], '='};
    }
    return out;
}

void addMessage(FileDescriptorProto& f, const std::string& name, const std::string& fieldType = "") {
    auto* m = f.add_message_type();
    m->set_name(name);
    auto* id = m->add_field();
    id->set_name("id");
    id->set_number(1);
    id->set_type(FieldDescriptorProto::TYPE_INT64);
    id->set_label(FieldDescriptorProto::LABEL_OPTIONAL);
    if (!fieldType.empty()) {  // a field of message type `fieldType` (fully qualified, leading dot)
        auto* ref = m->add_field();
        ref->set_name("ref");
        ref->set_number(2);
        ref->set_type(FieldDescriptorProto::TYPE_MESSAGE);
        ref->set_type_name(fieldType);
        ref->set_label(FieldDescriptorProto::LABEL_OPTIONAL);
    }
}

FileDescriptorProto file(const std::string& name, const std::string& package,
                         const std::vector<std::string>& messages, const std::vector<std::string>& deps = {}) {
    FileDescriptorProto f;
    f.set_name(name);
    if (!package.empty()) f.set_package(package);
    f.set_syntax("proto3");
    for (const auto& d : deps) f.add_dependency(d);
    for (const auto& m : messages) addMessage(f, m);
    return f;
}

std::string setBytes(const std::vector<FileDescriptorProto>& files) {
    FileDescriptorSet set;
    for (const auto& f : files) *set.add_file() = f;
    return set.SerializeAsString();
}

std::string definitionFromBytes(const std::string& setBytes, const std::string& root, const std::string& rootFile) {
    nlohmann::json j{{"fileDescriptorSet", base64(setBytes)},
                     {"rootMessageTypeName", root},
                     {"rootFileDescriptorName", rootFile}};
    return j.dump();
}

std::string definition(const std::vector<FileDescriptorProto>& files, const std::string& root,
                       const std::string& rootFile) {
    return definitionFromBytes(setBytes(files), root, rootFile);
}

SchemaData pn(const std::string& def) { return SchemaData{SchemaType::PROTOBUF_NATIVE, def, {}}; }

// pkg.User in user.proto; v2 adds a field (same root).
const std::string kUserV1 = definition({file("user.proto", "pkg", {"User"})}, "pkg.User", "user.proto");
const std::string kUserV2 = [] {
    auto f = file("user.proto", "pkg", {"User"});
    auto* extra = f.mutable_message_type(0)->add_field();
    extra->set_name("email");
    extra->set_number(2);
    extra->set_type(FieldDescriptorProto::TYPE_STRING);
    return definition({f}, "pkg.User", "user.proto");
}();
const std::string kPerson = definition({file("user.proto", "pkg", {"Person"})}, "pkg.Person", "user.proto");
const std::string kUserOtherPackage = definition({file("user.proto", "other", {"User"})}, "other.User", "user.proto");

// root.proto imports mid.proto which imports leaf.proto; fields reference across files.
std::vector<FileDescriptorProto> chain() {
    auto leaf = file("leaf.proto", "pkg", {"Leaf"});
    auto mid = file("mid.proto", "pkg", {}, {"leaf.proto"});
    addMessage(mid, "Mid", ".pkg.Leaf");
    auto root = file("root.proto", "pkg", {}, {"mid.proto"});
    addMessage(root, "Root", ".pkg.Mid");
    return {root, mid, leaf};
}

// The checker options of a release before #22720 (the root-change text without names).
CheckOptions beforeNamedRootText() {
    CheckOptions o;
    o.protobufNativeRootMessageWithStrategy = false;
    return o;
}

CheckResult check(const std::string& from, const std::string& to, CompatibilityStrategy s) {
    return makeProtobufNativeCheck()->checkCompatible(pn(from), pn(to), s, beforeNamedRootText());
}

}  // namespace

TEST_CASE("PROTOBUF_NATIVE root-name rule per strategy (§6.5)", "[compat][protobuf_native]") {
    using S = CompatibilityStrategy;
    struct Row {
        const char* rule;
        std::string from, to;
        S strategy;
        Verdict verdict;
        const char* message;
    };
    const std::vector<Row> rows = {
        // Same root name, identical descriptor: passes for every real strategy.
        {"same root, BACKWARD", kUserV1, kUserV1, S::BACKWARD, Verdict::compatible, ""},
        // Same root name, changed fields: fields are never compared (only the root name).
        {"same root, field added, BACKWARD", kUserV1, kUserV2, S::BACKWARD, Verdict::compatible, ""},
        {"same root, field added, FORWARD", kUserV1, kUserV2, S::FORWARD, Verdict::compatible, ""},
        {"same root, field added, FULL", kUserV1, kUserV2, S::FULL, Verdict::compatible, ""},
        {"same root, field removed, FULL_TRANSITIVE", kUserV2, kUserV1, S::FULL_TRANSITIVE, Verdict::compatible, ""},
        // Renamed root: the six real strategies reject with the root-change text.
        {"renamed root, BACKWARD", kUserV1, kPerson, S::BACKWARD, Verdict::incompatible, kRootChanged},
        {"renamed root, BACKWARD_TRANSITIVE", kUserV1, kPerson, S::BACKWARD_TRANSITIVE, Verdict::incompatible,
         kRootChanged},
        {"renamed root, FORWARD", kUserV1, kPerson, S::FORWARD, Verdict::incompatible, kRootChanged},
        {"renamed root, FORWARD_TRANSITIVE", kUserV1, kPerson, S::FORWARD_TRANSITIVE, Verdict::incompatible,
         kRootChanged},
        {"renamed root, FULL", kUserV1, kPerson, S::FULL, Verdict::incompatible, kRootChanged},
        {"renamed root, FULL_TRANSITIVE", kUserV1, kPerson, S::FULL_TRANSITIVE, Verdict::incompatible, kRootChanged},
        // Same simple name, other package: the *full* name is compared.
        {"package changed, BACKWARD", kUserV1, kUserOtherPackage, S::BACKWARD, Verdict::incompatible, kRootChanged},
        // ALWAYS_COMPATIBLE passes even a renamed root.
        {"renamed root, ALWAYS_COMPATIBLE", kUserV1, kPerson, S::ALWAYS_COMPATIBLE, Verdict::compatible, ""},
        // Any other strategy: "Unknown SchemaCompatibilityStrategy.", even for an identical schema.
        {"identical, ALWAYS_INCOMPATIBLE", kUserV1, kUserV1, S::ALWAYS_INCOMPATIBLE, Verdict::incompatible,
         kUnknownStrategy},
        {"identical, UNDEFINED", kUserV1, kUserV1, S::UNDEFINED, Verdict::incompatible, kUnknownStrategy},
        // Java deserializes both sides before the switch: garbage is an error even under ALWAYS_COMPATIBLE.
        {"garbage existing, ALWAYS_COMPATIBLE", "not json", kUserV1, S::ALWAYS_COMPATIBLE, Verdict::error,
         nullptr},
        {"garbage new, BACKWARD", kUserV1, "{}", S::BACKWARD, Verdict::error, nullptr},
    };
    for (const auto& row : rows) {
        INFO(row.rule);
        auto r = check(row.from, row.to, row.strategy);
        CHECK(r.verdict == row.verdict);
        if (row.verdict == Verdict::incompatible) {
            CHECK(r.message == row.message);
            CHECK(r.exceptionClass ==
                  "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException");
        }
        if (row.verdict == Verdict::error) CHECK(r.exceptionClass == kSerialization);
    }
}

TEST_CASE("PROTOBUF_NATIVE list entry point is pairwise (§6.5)", "[compat][protobuf_native]") {
    auto checker = makeProtobufNativeCheck();
    using S = CompatibilityStrategy;
    std::vector<SchemaData> sameRoot{pn(kUserV1), pn(kUserV2)};
    std::vector<SchemaData> oneRenamed{pn(kUserV1), pn(kPerson), pn(kUserV2)};
    std::vector<SchemaData> empty;
    // Every entry has the root name: passes.
    CHECK(checker->checkCompatible(sameRoot, pn(kUserV2), S::BACKWARD_TRANSITIVE, {}).ok());
    // One entry differs: fails with the root-change text.
    auto r = checker->checkCompatible(oneRenamed, pn(kUserV2), S::FULL_TRANSITIVE, beforeNamedRootText());
    CHECK(r.verdict == Verdict::incompatible);
    CHECK(r.message == kRootChanged);
    // Empty list: no pair to check, so even ALWAYS_INCOMPATIBLE and a garbage candidate pass.
    CHECK(checker->checkCompatible(empty, pn(kUserV1), S::ALWAYS_INCOMPATIBLE, {}).ok());
    CHECK(checker->checkCompatible(empty, pn("garbage"), S::BACKWARD_TRANSITIVE, {}).ok());
    // A non-empty list under ALWAYS_INCOMPATIBLE fails on the first entry.
    r = checker->checkCompatible(sameRoot, pn(kUserV1), S::ALWAYS_INCOMPATIBLE, {});
    CHECK(r.message == kUnknownStrategy);
    // An undecodable entry anywhere in the list is an error.
    std::vector<SchemaData> withGarbage{pn(kUserV1), pn("[]")};
    CHECK(checker->checkCompatible(withGarbage, pn(kUserV1), S::BACKWARD_TRANSITIVE, {}).verdict == Verdict::error);
}

TEST_CASE("PROTOBUF_NATIVE definition decoding (§6.5, §6.7)", "[compat][protobuf_native]") {
    auto c = chain();
    auto leafOnly = file("leaf.proto", "pkg", {"Leaf"});
    auto selfImport = file("a.proto", "pkg", {"A"}, {"a.proto"});
    auto cycA = file("a.proto", "pkg", {"A"}, {"b.proto"});
    auto cycB = file("b.proto", "pkg", {"B"}, {"a.proto"});
    auto unresolved = file("bad.proto", "pkg", {});
    addMessage(unresolved, "Bad", ".pkg.Nowhere");
    auto nested = file("nested.proto", "pkg", {"Outer"});
    nested.mutable_message_type(0)->add_nested_type()->set_name("Inner");
    auto noPackage = file("plain.proto", "", {"Plain"});
    // descriptor.proto itself, as libprotobuf compiled it: a real-world file.
    FileDescriptorProto descriptorProto;
    google::protobuf::FileDescriptorProto::descriptor()->file()->CopyTo(&descriptorProto);

    struct Row {
        const char* rule;
        std::string definition;
        bool valid;
        const char* cause = "";  // expected in the SchemaSerializationException message
    };
    const std::vector<Row> rows = {
        // Root message of the root file, in its package.
        {"simple root", kUserV1, true},
        // Imports are built depth first whatever the order of files in the set.
        {"chain listed root first", definition(c, "pkg.Root", "root.proto"), true},
        {"chain listed leaf first", definition({c[2], c[1], c[0]}, "pkg.Root", "root.proto"), true},
        {"chain listed mid first", definition({c[1], c[0], c[2]}, "pkg.Root", "root.proto"), true},
        // Files not reachable from the root file are never built (even if broken).
        {"unreachable broken file ignored", definition({c[0], c[1], c[2], unresolved}, "pkg.Root", "root.proto"),
         true},
        // Nested root message: Outer.Inner resolved through findNestedTypeByName.
        {"nested root", definition({nested}, "pkg.Outer.Inner", "nested.proto"), true},
        // No package: the root name is the bare message name.
        {"no package", definition({noPackage}, "Plain", "plain.proto"), true},
        // A real descriptor (descriptor.proto, proto2 with options).
        {"descriptor.proto", definition({descriptorProto}, "google.protobuf.FileDescriptorSet",
                                        "google/protobuf/descriptor.proto"),
         true},
        // Root message defined in an imported file, not the root file: not found.
        {"root in another file", definition(c, "pkg.Mid", "root.proto"), false, "Root message was not found"},
        // Root message name absent from the root file.
        {"missing root message", definition({file("user.proto", "pkg", {"User"})}, "pkg.Nobody", "user.proto"),
         false, "Root message was not found"},
        // Root name outside the root file's package.
        {"root outside package", definition({file("user.proto", "pkg", {"User"})}, "User", "user.proto"), false, "Root message is outside its descriptor package"},
        // Trailing dot: resolves to pkg.User but the full name differs.
        {"root with trailing dot", definition({file("user.proto", "pkg", {"User"})}, "pkg.User.", "user.proto"),
         false, "Root message was not found"},
        // Root name equal to the package prefix only.
        {"root is the package", definition({file("user.proto", "pkg", {"User"})}, "pkg.", "user.proto"), false, "outside its descriptor package"},
        // Nested name that does not exist.
        {"missing nested root", definition({nested}, "pkg.Outer.Nope", "nested.proto"), false, "Root message was not found"},
        // Root file name not in the set.
        {"missing root file", definition({file("user.proto", "pkg", {"User"})}, "pkg.User", "other.proto"), false, "Missing root file descriptor"},
        // An import missing from the set.
        {"missing import", definition({c[0], c[1]}, "pkg.Root", "root.proto"), false, "Missing imported file descriptor"},
        // Import cycles (NEWEST: "Cyclic file descriptor imports").
        {"self import", definition({selfImport}, "pkg.A", "a.proto"), false, "Cyclic file descriptor imports"},
        {"import cycle", definition({cycA, cycB}, "pkg.A", "a.proto"), false, "Cyclic file descriptor imports"},
        // A descriptor libprotobuf refuses to build (unresolved field type).
        {"unresolved field type", definition({unresolved}, "pkg.Bad", "bad.proto"), false, "DescriptorValidationException"},
        // Garbage descriptor bytes.
        {"garbage descriptor bytes", definitionFromBytes("\xff\xff\xff\xff garbage", "pkg.User", "user.proto"),
         false, "InvalidProtocolBufferException"},
        // Garbage base64.
        {"garbage base64", R"({"fileDescriptorSet":"@@@@","rootMessageTypeName":"pkg.User",)"
                           R"("rootFileDescriptorName":"user.proto"})",
         false, "InvalidFormatException"},
        // Base64 without its padding: Jackson requires padding.
        {"unpadded base64", R"({"fileDescriptorSet":"QQ","rootMessageTypeName":"a","rootFileDescriptorName":"b"})",
         false, "base64"},
        // Not JSON, not an object, missing or mistyped properties.
        {"not JSON", "garbage", false, "JsonParseException"},
        {"empty definition", "", false},
        {"JSON array", "[1,2]", false},
        {"missing fileDescriptorSet", R"({"rootMessageTypeName":"pkg.User","rootFileDescriptorName":"user.proto"})",
         false, "NullPointerException"},
        {"fileDescriptorSet is a number", R"({"fileDescriptorSet":5})", false},
        {"missing root names", nlohmann::json{{"fileDescriptorSet", base64(setBytes({file("u.proto", "", {"U"})}))}}
                                   .dump(),
         false, "Missing root file descriptor"},
    };
    for (const auto& row : rows) {
        INFO(row.rule);
        auto error = protobufNativeDefinitionError(row.definition);
        if (row.valid) {
            CHECK_FALSE(error.has_value());
        } else {
            REQUIRE(error.has_value());
            CHECK(*error == kDeserializeFailed);
            // The checker turns the same failure into a runtime error, not "incompatible".
            auto r = check(row.definition, kUserV1, CompatibilityStrategy::BACKWARD);
            CHECK(r.verdict == Verdict::error);
            CHECK(r.exceptionClass == kSerialization);
            CHECK_THAT(r.message, Catch::Contains(row.cause));
        }
    }
}

TEST_CASE("PROTOBUF_NATIVE JSON and base64 leniency as Jackson reads them", "[compat][protobuf_native]") {
    const std::string b64 = base64(setBytes({file("user.proto", "pkg", {"User"})}));
    auto withSet = [](const std::string& set) {
        return R"({"fileDescriptorSet":")" + set +
               R"(","rootMessageTypeName":"pkg.User","rootFileDescriptorName":"user.proto"})";
    };
    // Unknown properties are ignored (Pulsar's ObjectMapperFactory mapper).
    CHECK_FALSE(protobufNativeDefinitionError(
        R"({"extra":1,"fileDescriptorSet":")" + b64 +
        R"(","rootMessageTypeName":"pkg.User","rootFileDescriptorName":"user.proto"})"));
    // Whitespace between 4-character groups is skipped.
    std::string spaced;
    for (std::size_t i = 0; i < b64.size(); i += 4) spaced += b64.substr(i, 4) + (i + 4 < b64.size() ? "\\n" : "");
    CHECK_FALSE(protobufNativeDefinitionError(withSet(spaced)));
    // Whitespace inside a group is an invalid character.
    CHECK(protobufNativeDefinitionError(withSet(b64.substr(0, 2) + " " + b64.substr(2))));
    // Content after the object is ignored (Jackson's FAIL_ON_TRAILING_TOKENS is off).
    CHECK_FALSE(protobufNativeDefinitionError(withSet(b64) + " trailing"));
    // Truncated base64 (drop the last character of a padded text).
    CHECK(protobufNativeDefinitionError(withSet(b64.substr(0, b64.size() - 1))));
}

TEST_CASE("PROTOBUF_NATIVE long import chains are built without deep recursion", "[compat][protobuf_native]") {
    // f0.proto imports f1.proto ... imports f1999.proto; listed leaf first.
    std::vector<FileDescriptorProto> files;
    const int n = 2000;
    for (int i = n - 1; i >= 0; --i) {
        std::vector<std::string> deps;
        if (i + 1 < n) deps.push_back("f" + std::to_string(i + 1) + ".proto");
        files.push_back(file("f" + std::to_string(i) + ".proto", "pkg", {"M" + std::to_string(i)}, deps));
    }
    CHECK_FALSE(protobufNativeDefinitionError(definition(files, "pkg.M0", "f0.proto")));
}

TEST_CASE("PROTOBUF_NATIVE never crashes on random input", "[compat][protobuf_native][fuzz]") {
    std::mt19937 rng(20240613);  // seed printed by the test name; replay by reusing it
    const std::string good = setBytes(chain());
    for (int i = 0; i < 2000; ++i) {
        std::string bytes = good;
        int edits = 1 + static_cast<int>(rng() % 8);
        for (int e = 0; e < edits; ++e) bytes[rng() % bytes.size()] = static_cast<char>(rng());
        if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
        auto def = definitionFromBytes(bytes, "pkg.Root", "root.proto");
        auto error = protobufNativeDefinitionError(def);
        auto r = check(def, def, CompatibilityStrategy::FULL);
        CHECK(error.has_value() == (r.verdict == Verdict::error));
        std::string raw(static_cast<std::size_t>(rng() % 64), '\0');
        for (auto& ch : raw) ch = static_cast<char>(rng());
        CHECK(protobufNativeDefinitionError(raw).has_value());
    }
}

TEST_CASE("PROTOBUF_NATIVE root-change text names the strategy and both roots from #22720 (§6.5)",
          "[compat][protobuf_native][ref-6.5]") {
    using S = CompatibilityStrategy;
    auto checker = makeProtobufNativeCheck();
    CheckOptions newer;  // 3.0.6+, 4.0.0+
    REQUIRE(newer.protobufNativeRootMessageWithStrategy);
    // <a> is the existing root's full name, <b> the new one's; <S> the strategy's name.
    auto r = checker->checkCompatible(pn(kUserV1), pn(kPerson), S::BACKWARD, newer);
    CHECK(r.verdict == Verdict::incompatible);
    CHECK(r.message ==
          "Protobuf root message change is not allowed under the 'BACKWARD' strategy. Original message name: "
          "'pkg.User', new message name: 'pkg.Person'.");
    // Full names: the same simple name in another package differs and is shown qualified.
    r = checker->checkCompatible(pn(kUserV1), pn(kUserOtherPackage), S::FULL, newer);
    CHECK(r.message ==
          "Protobuf root message change is not allowed under the 'FULL' strategy. Original message name: "
          "'pkg.User', new message name: 'other.User'.");
    // Lists are checked pair by pair, oldest first: the first differing entry is <a>.
    std::vector<SchemaData> list{pn(kUserV1), pn(kPerson)};
    r = checker->checkCompatible(list, pn(kUserOtherPackage), S::FORWARD_TRANSITIVE, newer);
    CHECK(r.message ==
          "Protobuf root message change is not allowed under the 'FORWARD_TRANSITIVE' strategy. Original message "
          "name: 'pkg.User', new message name: 'other.User'.");
    // The other texts are unchanged.
    CHECK(checker->checkCompatible(pn(kUserV1), pn(kUserV1), S::ALWAYS_INCOMPATIBLE, newer).message == kUnknownStrategy);
    CHECK(checker->checkCompatible(pn(kUserV1), pn(kPerson), S::ALWAYS_COMPATIBLE, newer).ok());
}
