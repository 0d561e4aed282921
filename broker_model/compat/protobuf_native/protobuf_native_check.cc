#include "broker_model/compat/protobuf_native/protobuf_native_check.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/stubs/logging.h>

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker_model/compat/json/json_nesting.h"

namespace cnx::compat {
namespace {

// The exception `ProtobufNativeSchemaUtils.deserialize` throws for every
// failure (§6.5): `new SchemaSerializationException(e)`, whose message is the
// cause's `toString()` ("<class>: <message>").
constexpr std::string_view kSchemaSerializationException = "org.apache.pulsar.client.api.SchemaSerializationException";

// §6.7 validator texts (`ProtobufNativeSchemaDataValidator`).
constexpr std::string_view kDeserializeFailed = "deserialize ProtobufNative Schema failed";

// §6.5 checker texts (`ProtobufNativeSchemaCompatibilityCheck`).
constexpr std::string_view kRootMessageChanged = "Protobuf root message isn't allow change!";
constexpr std::string_view kUnknownStrategy = "Unknown SchemaCompatibilityStrategy.";

/// Why deserialize failed: the cause wrapped by SchemaSerializationException,
/// as Java's Throwable.toString() renders it.
struct DeserializeFailure {
    std::string cause;
};

DeserializeFailure fail(std::string_view causeClass, std::string_view message) {
    return {std::string(causeClass) + ": " + std::string(message)};
}

// A SchemaSerializationException thrown inside deserialize's try block is
// caught and wrapped again, so its toString() is the cause.
DeserializeFailure failInside(std::string_view message) { return fail(kSchemaSerializationException, message); }

// ---------------------------------------------------------------------------
// Base64 as Jackson decodes a `byte[]` property (Base64Variants.MIME_NO_LINEFEEDS):
// whitespace (<= ' ') is skipped between 4-character groups only, padding is
// required for a partial final group, and a padded group may be followed by
// more groups. Anything else is an invalid-character / unexpected-end error.

constexpr std::array<int, 256> kBase64Values = [] {
    std::array<int, 256> v{};
    for (auto& x : v) x = -1;
    constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i) v[static_cast<unsigned char>(alphabet[i])] = static_cast<int>(i);
    v[static_cast<unsigned char>('=')] = -2;  // padding
    return v;
}();

int base64Value(char c) { return kBase64Values[static_cast<unsigned char>(c)]; }

class Base64Reader {
public:
    explicit Base64Reader(std::string_view in) : in_(in) {}

    /// Decodes everything; nullopt with `error_` set on malformed input.
    std::optional<std::string> decode() {
        while (skipWhitespace()) {
            if (!decodeGroup()) return std::nullopt;
        }
        return out_;
    }
    const std::string& error() const { return error_; }

private:
    bool skipWhitespace() {
        while (pos_ < in_.size() && static_cast<unsigned char>(in_[pos_]) <= ' ') ++pos_;
        return pos_ < in_.size();
    }
    bool invalid(const char* what) {
        error_ = std::string("Illegal base64 input: ") + what;
        return false;
    }
    // One character of the group that must be a data character; -1 on error.
    int dataChar() {
        if (pos_ >= in_.size()) {
            invalid("unexpected end of base64-encoded String");
            return -1;
        }
        int bits = base64Value(in_[pos_++]);
        if (bits < 0) invalid("illegal character in base64 content");
        return bits < 0 ? -1 : bits;
    }
    bool padding() {
        if (pos_ >= in_.size()) return invalid("unexpected end of base64-encoded String (padding expected)");
        if (in_[pos_++] != '=') return invalid("expected padding character '='");
        return true;
    }
    bool decodeGroup() {
        int a = dataChar();
        if (a < 0) return false;
        int b = dataChar();
        if (b < 0) return false;
        unsigned bits = (static_cast<unsigned>(a) << 6) | static_cast<unsigned>(b);
        if (pos_ >= in_.size()) return invalid("unexpected end of base64-encoded String (padding expected)");
        int c = base64Value(in_[pos_++]);
        if (c == -2) {  // "xx==": one byte
            if (!padding()) return false;
            out_.push_back(static_cast<char>((bits >> 4) & 0xFF));
            return true;
        }
        if (c < 0) return invalid("illegal character in base64 content");
        bits = (bits << 6) | static_cast<unsigned>(c);
        if (pos_ >= in_.size()) return invalid("unexpected end of base64-encoded String (padding expected)");
        int d = base64Value(in_[pos_++]);
        if (d == -2) {  // "xxx=": two bytes
            bits >>= 2;
            out_.push_back(static_cast<char>((bits >> 8) & 0xFF));
            out_.push_back(static_cast<char>(bits & 0xFF));
            return true;
        }
        if (d < 0) return invalid("illegal character in base64 content");
        bits = (bits << 6) | static_cast<unsigned>(d);
        out_.push_back(static_cast<char>((bits >> 16) & 0xFF));
        out_.push_back(static_cast<char>((bits >> 8) & 0xFF));
        out_.push_back(static_cast<char>(bits & 0xFF));
        return true;
    }

    std::string_view in_;
    std::size_t pos_ = 0;
    std::string out_;
    std::string error_;
};

// ---------------------------------------------------------------------------
// `ProtobufNativeSchemaData` read with Pulsar's Jackson mapper (NEWEST:
// ObjectMapperFactory, unknown properties ignored, trailing content ignored).

struct NativeSchemaData {
    std::string fileDescriptorSet;  // decoded bytes
    std::optional<std::string> rootMessageTypeName;
    std::optional<std::string> rootFileDescriptorName;
};

constexpr std::string_view kJacksonMismatch = "com.fasterxml.jackson.databind.exc.MismatchedInputException";
constexpr std::string_view kJacksonInvalidFormat = "com.fasterxml.jackson.databind.exc.InvalidFormatException";

// Jackson coerces JSON scalars to a String property; null stays null.
std::variant<std::optional<std::string>, DeserializeFailure> stringProperty(const nlohmann::json& j,
                                                                           const char* name) {
    auto it = j.find(name);
    if (it == j.end() || it->is_null()) return std::optional<std::string>{};
    if (it->is_string()) return std::optional<std::string>{it->get<std::string>()};
    if (it->is_object() || it->is_array()) {
        return fail(kJacksonMismatch, std::string("Cannot deserialize value of type `java.lang.String` (property \"") +
                                          name + "\")");
    }
    return std::optional<std::string>{it->dump()};
}

std::variant<std::string, DeserializeFailure> descriptorSetBytes(const nlohmann::json& j) {
    auto it = j.find("fileDescriptorSet");
    // A missing or null byte[] reaches FileDescriptorSet.parseFrom(null).
    if (it == j.end() || it->is_null()) return fail("java.lang.NullPointerException", "fileDescriptorSet is null");
    if (!it->is_string()) {
        return fail(kJacksonMismatch, "Cannot deserialize value of type `byte[]` (property \"fileDescriptorSet\")");
    }
    const auto& text = it->get_ref<const std::string&>();
    Base64Reader reader(text);
    auto bytes = reader.decode();
    if (!bytes) return fail(kJacksonInvalidFormat, "Cannot deserialize value of type `byte[]`: " + reader.error());
    return *bytes;
}

std::variant<NativeSchemaData, DeserializeFailure> readSchemaData(std::string_view definition) {
    // Jackson 2.15+ refuses deeper nesting (issue 7 item 6); older ones recurse on.
    if (jsonNestsDeeperThan(definition)) return DeserializeFailure{jacksonNestingMessage()};
    nlohmann::json j;
    std::istringstream in{std::string(definition)};
    try {
        in >> j;  // operator>> does not insist on end of input, like Jackson's readValue
    } catch (const nlohmann::json::exception& e) {
        return fail("com.fasterxml.jackson.core.JsonParseException", e.what());
    }
    if (!j.is_object()) {
        return fail(kJacksonMismatch, "Cannot deserialize value of type "
                                      "`org.apache.pulsar.common.protocol.schema.ProtobufNativeSchemaData`");
    }
    NativeSchemaData out;
    auto bytes = descriptorSetBytes(j);
    if (auto* f = std::get_if<DeserializeFailure>(&bytes)) return *f;
    out.fileDescriptorSet = std::move(std::get<std::string>(bytes));
    auto root = stringProperty(j, "rootMessageTypeName");
    if (auto* f = std::get_if<DeserializeFailure>(&root)) return *f;
    out.rootMessageTypeName = std::get<std::optional<std::string>>(root);
    auto file = stringProperty(j, "rootFileDescriptorName");
    if (auto* f = std::get_if<DeserializeFailure>(&file)) return *f;
    out.rootFileDescriptorName = std::get<std::optional<std::string>>(file);
    return out;
}

// ---------------------------------------------------------------------------
// Building the root file and its imports, depth first in dependency order, as
// `deserializeFileDescriptor` does (NEWEST: missing imports and import cycles
// are errors; older releases overflowed the stack on a cycle). Iterative, so a
// long import chain cannot overflow our stack.

class SilentErrors final : public google::protobuf::DescriptorPool::ErrorCollector {
public:
    void AddError(const std::string& filename, const std::string& element, const google::protobuf::Message*,
                  ErrorLocation, const std::string& message) override {
        if (first_.empty()) first_ = filename + ": " + element + ": " + message;
    }
    const std::string& first() const { return first_; }

private:
    std::string first_;
};

using ProtoByName = std::map<std::string, const google::protobuf::FileDescriptorProto*>;

class FileBuilder {
public:
    FileBuilder(const ProtoByName& protos, google::protobuf::DescriptorPool& pool) : protos_(protos), pool_(pool) {}

    /// Builds `root` and everything it imports; the root's descriptor or the failure.
    std::variant<const google::protobuf::FileDescriptor*, DeserializeFailure> build(
        const google::protobuf::FileDescriptorProto& root) {
        if (auto f = enter(&root)) return *f;
        while (!stack_.empty()) {
            if (auto f = step()) return *f;
        }
        return pool_.FindFileByName(root.name());
    }

private:
    struct Frame {
        const google::protobuf::FileDescriptorProto* proto;
        int nextDependency = 0;
    };

    std::optional<DeserializeFailure> enter(const google::protobuf::FileDescriptorProto* proto) {
        if (proto == nullptr) return failInside("Missing imported file descriptor");
        if (!visiting_.insert(proto->name()).second) return failInside("Cyclic file descriptor imports");
        stack_.push_back({proto});
        return std::nullopt;
    }

    // Descends into the next dependency not yet built, or builds the file on top.
    std::optional<DeserializeFailure> step() {
        Frame& top = stack_.back();
        while (top.nextDependency < top.proto->dependency_size()) {
            const std::string& dep = top.proto->dependency(top.nextDependency++);
            if (pool_.FindFileByName(dep) != nullptr) continue;
            auto it = protos_.find(dep);
            return enter(it == protos_.end() ? nullptr : it->second);
        }
        return buildTop();
    }

    std::optional<DeserializeFailure> buildTop() {
        const auto* proto = stack_.back().proto;
        SilentErrors errors;
        if (pool_.BuildFileCollectingErrors(*proto, &errors) == nullptr) {
            // buildFrom's DescriptorValidationException, wrapped by a SchemaSerializationException.
            return failInside("com.google.protobuf.Descriptors$DescriptorValidationException: " + errors.first());
        }
        visiting_.erase(proto->name());
        stack_.pop_back();
        return std::nullopt;
    }

    const ProtoByName& protos_;
    google::protobuf::DescriptorPool& pool_;
    std::vector<Frame> stack_;
    std::set<std::string> visiting_;
};

// §6.5 root lookup (NEWEST `deserialize`): the name must lie in the root
// file's package, is resolved as a top-level message of the root file and then
// nested messages, and the result's full name must equal it.
// Java `String.split("\\.")`: trailing empty strings are dropped, so "." gives none.
std::vector<std::string> splitLikeJava(std::string_view s) {
    std::vector<std::string> parts{""};
    for (char c : s) {
        if (c == '.') parts.emplace_back();
        else parts.back().push_back(c);
    }
    while (!parts.empty() && parts.back().empty()) parts.pop_back();
    return parts;
}

std::variant<std::string, DeserializeFailure> findRoot(const google::protobuf::FileDescriptor& file,
                                                       const std::optional<std::string>& rootName) {
    std::string prefix = file.package().empty() ? "" : file.package() + ".";
    if (!rootName || rootName->rfind(prefix, 0) != 0 || rootName->size() == prefix.size()) {
        return failInside("Root message is outside its descriptor package");
    }
    auto paths = splitLikeJava(std::string_view(*rootName).substr(prefix.size()));
    if (paths.empty()) return fail("java.lang.ArrayIndexOutOfBoundsException", "Index 0 out of bounds for length 0");
    const google::protobuf::Descriptor* d = file.FindMessageTypeByName(paths[0]);
    for (std::size_t i = 1; i < paths.size(); ++i) {
        if (d == nullptr) return failInside("Root message was not found");
        d = d->FindNestedTypeByName(paths[i]);
    }
    if (d == nullptr || d->full_name() != *rootName) return failInside("Root message was not found");
    return d->full_name();
}

/// `ProtobufNativeSchemaUtils.deserialize`: the root message's full name, or why it failed.
std::variant<std::string, DeserializeFailure> deserialize(std::string_view definition) {
    auto data = readSchemaData(definition);
    if (auto* f = std::get_if<DeserializeFailure>(&data)) return *f;
    const auto& schema = std::get<NativeSchemaData>(data);

    google::protobuf::FileDescriptorSet set;
    bool parsed = false;
    {
        // Keeps libprotobuf from logging the invalid UTF-8 it accepts in proto2
        // string fields (Java accepts them too; names then fail to build).
        google::protobuf::LogSilencer quiet;
        parsed = set.ParseFromString(schema.fileDescriptorSet);
    }
    if (!parsed) {
        return fail("com.google.protobuf.InvalidProtocolBufferException",
                    "Protocol message contained an invalid tag (zero).");  // text UNCONFIRMED; varies by input
    }
    ProtoByName protos;
    for (const auto& f : set.file()) protos[f.name()] = &f;  // HashMap.put: a later duplicate wins
    auto root = schema.rootFileDescriptorName ? protos.find(*schema.rootFileDescriptorName) : protos.end();
    if (root == protos.end()) return failInside("Missing root file descriptor");

    google::protobuf::DescriptorPool pool;  // no underlay: only the set's files, like buildFrom
    auto built = FileBuilder(protos, pool).build(*root->second);
    if (auto* f = std::get_if<DeserializeFailure>(&built)) return *f;
    return findRoot(*std::get<const google::protobuf::FileDescriptor*>(built), schema.rootMessageTypeName);
}

// ---------------------------------------------------------------------------
// The checker.

CheckResult serializationError(const DeserializeFailure& f) {
    // §6.5: a runtime exception, not IncompatibleSchemaException.
    return CheckResult::error(std::string(kSchemaSerializationException), f.cause);
}

// §6.5: the text of a changed root message. From #22720 (3.0.6, 4.0.0) it names the
// strategy and the full names of the existing (`from`) and new (`to`) root messages.
std::string rootMessageChangedText(const std::string& from, const std::string& to, CompatibilityStrategy strategy,
                                   const CheckOptions& options) {
    if (!options.protobufNativeRootMessageWithStrategy) return std::string(kRootMessageChanged);
    return "Protobuf root message change is not allowed under the '" + std::string(to_string_view(strategy)) +
           "' strategy. Original message name: '" + from + "', new message name: '" + to + "'.";
}

// §6.5: the only rule for the six real strategies.
CheckResult checkRootMessageChange(const std::string& from, const std::string& to, CompatibilityStrategy strategy,
                                   const CheckOptions& options) {
    if (from == to) return CheckResult::compatible();
    return CheckResult::incompatible(rootMessageChangedText(from, to, strategy, options),
                                     {{"root_message_changed", "/rootMessageTypeName",
                                       "root message changed from " + from + " to " + to, to, from}});
}

CheckResult decide(const std::string& from, const std::string& to, CompatibilityStrategy strategy,
                   const CheckOptions& options) {
    switch (strategy) {
        case CompatibilityStrategy::BACKWARD_TRANSITIVE:
        case CompatibilityStrategy::BACKWARD:
        case CompatibilityStrategy::FORWARD_TRANSITIVE:
        case CompatibilityStrategy::FORWARD:
        case CompatibilityStrategy::FULL_TRANSITIVE:
        case CompatibilityStrategy::FULL:
            return checkRootMessageChange(from, to, strategy, options);
        case CompatibilityStrategy::ALWAYS_COMPATIBLE:
            return CheckResult::compatible();
        case CompatibilityStrategy::ALWAYS_INCOMPATIBLE:
        case CompatibilityStrategy::UNDEFINED:
            return CheckResult::incompatible(std::string(kUnknownStrategy),
                                             {{"unknown_strategy", "", "the checker has no rule for this strategy",
                                               "", ""}});
    }
    return CheckResult::incompatible(std::string(kUnknownStrategy));
}

class ProtobufNativeCheck final : public SchemaCompatibilityCheck {
public:
    // Java deserializes `from`, then `to`, *before* looking at the strategy:
    // an undecodable descriptor is an error even under ALWAYS_COMPATIBLE.
    CheckResult checkCompatible(const SchemaData& existing, const SchemaData& candidate,
                                CompatibilityStrategy strategy, const CheckOptions& options) const override {
        auto from = deserialize(existing.data);
        if (auto* f = std::get_if<DeserializeFailure>(&from)) return serializationError(*f);
        auto to = deserialize(candidate.data);
        if (auto* f = std::get_if<DeserializeFailure>(&to)) return serializationError(*f);
        return decide(std::get<std::string>(from), std::get<std::string>(to), strategy, options);
    }

    // §6.5: pairwise against each entry, oldest first; an empty list passes.
    CheckResult checkCompatible(std::span<const SchemaData> existing, const SchemaData& candidate,
                                CompatibilityStrategy strategy, const CheckOptions& options) const override {
        for (std::size_t i = 0; i < existing.size(); ++i) {
            auto r = checkCompatible(existing[i], candidate, strategy, options);
            if (!r.ok()) r.failedAgainst = i;
            if (!r.ok()) return r;
        }
        return CheckResult::compatible();
    }
};

}  // namespace

std::unique_ptr<SchemaCompatibilityCheck> makeProtobufNativeCheck() { return std::make_unique<ProtobufNativeCheck>(); }

// §6.7 `ProtobufNativeSchemaDataValidator`: every deserialize failure gives
// `deserialize ProtobufNative Schema failed`. Its second text ("protobuf root
// message descriptor is null , ...") needs deserialize to return null, which no
// read version does (NEWEST throws "Root message was not found"; older ones hit
// a NullPointerException in the debug log line), so it is not produced here.
std::optional<std::string> protobufNativeDefinitionError(std::string_view definition) {
    auto result = deserialize(definition);
    if (std::holds_alternative<DeserializeFailure>(result)) return std::string(kDeserializeFailed);
    return std::nullopt;
}

namespace {

std::string base64(std::string_view bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
        if (i + 1 < bytes.size()) n |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
        out += kAlphabet[(n >> 18) & 63];
        out += kAlphabet[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
    }
    return out;
}

std::string qualifiedName(const google::protobuf::FileDescriptorProto& f, const std::string& message) {
    if (f.package().empty() || message.starts_with(f.package() + ".")) return message;
    return f.package() + "." + message;
}

}  // namespace

std::string protobufNativeDefinition(std::string_view fileDescriptorSet, std::string_view rootMessageTypeName,
                                     std::string_view rootFileDescriptorName) {
    nlohmann::ordered_json definition{{"fileDescriptorSet", base64(fileDescriptorSet)},
                                      {"rootMessageTypeName", std::string(rootMessageTypeName)},
                                      {"rootFileDescriptorName", std::string(rootFileDescriptorName)}};
    // replace: one U+FFFD per invalid sequence, close to Java's CharsetDecoder (UNCONFIRMED per byte).
    return definition.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string protobufNativeDefinitionWithDefaultRoot(std::string_view fileDescriptorSet) {
    google::protobuf::FileDescriptorSet set;
    bool parsed = false;
    {
        google::protobuf::LogSilencer quiet;
        parsed = set.ParseFromArray(fileDescriptorSet.data(), static_cast<int>(fileDescriptorSet.size()));
    }
    if (!parsed || set.file_size() == 0) return protobufNativeDefinition(fileDescriptorSet, "", "");
    const auto& file = set.file(set.file_size() - 1);
    std::string message = file.message_type_size() > 0 ? qualifiedName(file, file.message_type(0).name()) : "";
    return protobufNativeDefinition(fileDescriptorSet, message, file.name());
}

}  // namespace cnx::compat
