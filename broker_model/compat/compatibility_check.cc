#include "broker_model/compat/compatibility_check.h"

namespace cnx::compat {

CheckResult CheckResult::incompatible(std::string message, std::vector<Problem> problems) {
    CheckResult r;
    r.verdict = Verdict::incompatible;
    r.exceptionClass = std::string(exception_class::kIncompatibleSchema);
    r.message = std::move(message);
    r.problems = std::move(problems);
    return r;
}

CheckResult CheckResult::error(std::string exceptionClass, std::string message) {
    CheckResult r;
    r.verdict = Verdict::error;
    r.exceptionClass = std::move(exceptionClass);
    r.message = std::move(message);
    return r;
}

std::string_view to_string_view(AvroVersion v) {
    switch (v) {
        case AvroVersion::v1_8_2: return "1.8.2";
        case AvroVersion::v1_9_1: return "1.9.1";
        case AvroVersion::v1_10_2: return "1.10.2";
        case AvroVersion::v1_11_3: return "1.11.3";
        case AvroVersion::v1_11_4: return "1.11.4";
        case AvroVersion::v1_12_0: return "1.12.0";
    }
    return "?";
}

}  // namespace cnx::compat
