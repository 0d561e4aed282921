#pragma once
// The checker interface (reference §6.1): one checker per schema type, looked
// up by the *new* schema's type, with Pulsar's two entry points: against one
// existing schema (the "latest" paths) and against the live list (the
// transitive paths). A check returns a value, never throws: the verdict, the
// exception the broker would raise, and every problem found with a path into
// the schema so that traces can say why.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker_model/core/compatibility_strategy.h"
#include "broker_model/core/fast_paths.h"
#include "broker_model/core/problem.h"
#include "broker_model/core/schema_data.h"

namespace cnx::compat {

enum class Verdict {
    compatible,
    incompatible,  // IncompatibleSchemaException: the answer "no"
    error,         // the broker's validator threw instead of answering (§6.3); reported as an error
};

/// One reason a reader cannot read a writer (broker_model/core/problem.h).
using Problem = cnx::Problem;

struct CheckResult {
    Verdict verdict = Verdict::compatible;
    std::string exceptionClass;  // fully-qualified Java class of the root exception, empty when compatible
    std::string message;         // that exception's message (the root message clients see on subscribe)
    std::vector<Problem> problems;
    /// The index in the existing list (oldest first) of the schema the check
    /// failed on, when the checker knows it.
    std::optional<std::size_t> failedAgainst;

    bool ok() const { return verdict == Verdict::compatible; }
    static CheckResult compatible() { return {}; }
    static CheckResult incompatible(std::string message, std::vector<Problem> problems = {});
    static CheckResult error(std::string exceptionClass, std::string message);
};

/// Avro library release whose SchemaValidator behaviour a broker release
/// embeds (§6.3). The behaviour profile selects it.
enum class AvroVersion { v1_8_2, v1_9_1, v1_10_2, v1_11_3, v1_11_4, v1_12_0 };

std::string_view to_string_view(AvroVersion v);

/// Checker settings a behaviour profile selects (§6.3, §6.4).
struct CheckOptions {
    AvroVersion avro = AvroVersion::v1_12_0;
    bool jsonAllowLegacyJacksonFormat = false;  // 4.2.0 PIP-464: false = only Avro-format JSON definitions
    bool avroNamesAllowDollar = true;           // 4.2.0 #25193/#25255
    // #22720 (3.0.6, 4.0.0): SchemaValidationException wrapped as "Error during schema
    // compatibility check with strategy <S>: <class>: <text>". Before: "<class>: <text>".
    bool avroValidationMessageWithStrategy = true;
    // #22720 (3.0.6, 4.0.0), §6.5: "Protobuf root message change is not allowed under the '<S>'
    // strategy. Original message name: '<old full name>', new message name: '<new full name>'."
    // Before: "Protobuf root message isn't allow change!".
    bool protobufNativeRootMessageWithStrategy = true;
    // Not a behaviour of any release: whether the Avro checker takes its fast
    // paths (the quick parser, JsonTape's reader, the fast pass) or only their
    // references; the answer is the same (core/fast_paths.h). The registry
    // sets it from its broker's switch.
    FastPaths fastPaths = FastPaths::on;
};

class SchemaCompatibilityCheck {
public:
    virtual ~SchemaCompatibilityCheck() = default;

    /// Checks `candidate` against one existing schema (`checkCompatible(from, to, strategy)`).
    virtual CheckResult checkCompatible(const SchemaData& existing, const SchemaData& candidate,
                                        CompatibilityStrategy strategy, const CheckOptions& options) const = 0;

    /// Checks `candidate` against the live list, oldest first (`checkCompatible(Iterable from, to, strategy)`).
    virtual CheckResult checkCompatible(std::span<const SchemaData> existing, const SchemaData& candidate,
                                        CompatibilityStrategy strategy, const CheckOptions& options) const = 0;
};

/// Java class names of the exceptions a checker answers with (§1.5, §6.3). The
/// classes of the registry's own refusals are mapped from their kind
/// (broker_model/core/refusal.h).
namespace exception_class {
inline constexpr std::string_view kIncompatibleSchema =
    "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException";
inline constexpr std::string_view kAvroSchemaValidation = "org.apache.avro.SchemaValidationException";
inline constexpr std::string_view kAvroSchemaParse = "org.apache.avro.SchemaParseException";
inline constexpr std::string_view kAvroRuntime = "org.apache.avro.AvroRuntimeException";
}  // namespace exception_class

}  // namespace cnx::compat
