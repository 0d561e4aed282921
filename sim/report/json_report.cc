#include "sim/report/json_report.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "sim/io/file_write.h"
#include "sim/report/reports.h"
#include "sim/report/shorten.h"
#include "sim/run/expectation.h"

namespace cnx::sim {
namespace {

const char* statusName(StepStatus s) {
    switch (s) {
        case StepStatus::passed: return "passed";
        case StepStatus::failed: return "failed";
        case StepStatus::unasserted: return "unasserted";
        case StepStatus::notAsserted: return "not-asserted";
    }
    return "unasserted";
}

nlohmann::json stepJson(const StepResult& s) {
    nlohmann::json j;
    j["index"] = s.index + 1;
    j["label"] = s.label();
    j["action"] = s.step->action;
    j["line"] = s.step->pos.line;
    j["column"] = s.step->pos.column;
    j["status"] = statusName(s.status);
    const auto& o = s.observed;
    j["ok"] = o.ok;
    j["error"] = o.ok ? nlohmann::json(nullptr) : nlohmann::json(o.error);
    j["message"] = o.ok ? nlohmann::json(nullptr) : nlohmann::json(oneLineMessage(o.message));
    j["http_status"] = o.httpStatus ? nlohmann::json(*o.httpStatus) : nlohmann::json(nullptr);
    j["schema_version"] = o.schemaVersion ? nlohmann::json(*o.schemaVersion) : nlohmann::json(nullptr);
    j["expected"] = s.expected ? nlohmann::json(renderExpect(*s.expected)) : nlohmann::json(nullptr);
    j["why"] = s.why.empty() ? nlohmann::json(nullptr) : nlohmann::json(elideEmbeddedJson(s.why));
    j["problems"] = nlohmann::json::array();
    for (const auto& p : o.problems) j["problems"].push_back(p.summary());
    j["not_modelled"] = s.notModelled;
    return j;
}

}  // namespace

std::string jsonLines(const std::vector<ScenarioResult>& results, std::uint64_t seed) {
    std::string out;
    for (const auto& r : results) {
        nlohmann::json j;
        j["file"] = r.file;
        j["scenario"] = r.scenario->name;
        j["version"] = r.version;
        j["profile"] = r.profile;
        j["seed"] = seed;
        j["passed"] = r.passed;
        j["seconds"] = r.seconds;
        j["reason"] = r.passed ? nlohmann::json(nullptr) : nlohmann::json(shortReason(r));
        j["setup_error"] = r.setupError.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.setupError);
        j["steps"] = nlohmann::json::array();
        for (const auto& s : r.steps) j["steps"].push_back(stepJson(s));
        // Invalid UTF-8 from a scenario's bytes becomes U+FFFD rather than an exception.
        out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    return out;
}

std::optional<std::string> writeJsonLines(const std::string& path, const std::vector<ScenarioResult>& results,
                                          std::uint64_t seed) {
    std::filesystem::path target(path);
    if (target.has_parent_path() && !std::filesystem::is_directory(target.parent_path())) {
        std::error_code ec;
        std::filesystem::create_directories(target.parent_path(), ec);
        if (ec) return "cannot create the folder " + target.parent_path().string() + ": " + ec.message();
    }
    return writeFileAtomically(target, jsonLines(results, seed));
}

}  // namespace cnx::sim
