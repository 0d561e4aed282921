#include "sim/report/race_text.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "sim/report/shorten.h"

namespace cnx::sim {
namespace {

std::string countText(double n) {
    if (n < 1e15) return std::to_string(static_cast<long long>(std::llround(n)));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", n);
    return buf;
}

std::string branchLabel(const Step& step, std::size_t i) {
    std::string label = "branch " + std::to_string(i + 1) + " (" + step.action + ")";
    return step.id.empty() ? label : step.id + ": " + label;
}

}  // namespace

std::string raceSummary(const RaceReport& r) {
    const auto& s = r.stats;
    std::string out = r.exploration + ": " + std::to_string(s.explored) + " schedule" + (s.explored == 1 ? "" : "s");
    if (s.blocked) out += " (" + std::to_string(s.blocked) + " more cut short as equivalent)";
    if (s.naive > 0) out += std::string(" of ") + (s.naiveExact ? "" : "at least ") + countText(s.naive) + " interleavings";
    out += ", " + std::to_string(s.traces) + " distinct trace" + (s.traces == 1 ? "" : "s");
    out += ", " + std::to_string(r.outcomes.size()) + " outcome" + (r.outcomes.size() == 1 ? "" : "s");
    if (!r.stopped.empty()) out += "; NOT EXHAUSTIVE: " + r.stopped;
    return out;
}

std::string outcomeDetail(const RaceOutcome& o, const ConcurrentlyStep& race, const std::string& indent) {
    std::ostringstream out;
    std::string shown = race::formatChoices(o.choices);
    out << indent << "schedule '" << shown << "' (" << o.switches << " context switch" << (o.switches == 1 ? "" : "es")
        << "):\n";
    for (const auto& line : o.stages) out << indent << "  " << line << "\n";
    for (const auto& b : o.broken) out << indent << "invariant broken: " << b << "\n";
    out << indent << "replay: " << o.replay << "\n";
    out << indent << "trace:\n";
    for (std::size_t i = 0; i < o.results.size() && i < race.branches.size(); ++i) {
        const auto& res = o.results[i];
        out << indent << "  " << branchLabel(race.branches[i], i) << ": "
            << (res.ok ? std::string("ok") : res.error + ": " + elideEmbeddedJson(res.message)) << "\n";
        for (const auto& e : res.trace.entries())
            out << indent << "    " << e.section << " " << e.rule << ": " << elideEmbeddedJson(e.detail) << "\n";
    }
    return out.str();
}

std::string raceBlock(const StepResult& step, const std::string& indent, bool all) {
    std::ostringstream out;
    const auto& r = *step.race;
    const auto& race = std::get<ConcurrentlyStep>(step.step->body);
    out << indent << "explored: " << raceSummary(r) << "\n";
    for (const auto& o : r.outcomes) {
        bool bad = !o.allowed || !o.broken.empty();
        out << indent << "outcome " << o.text() << ": " << (r.outcomesAsserted ? (o.allowed ? "allowed" : "NOT ALLOWED") : "reached")
            << (o.broken.empty() ? "" : ", invariant broken") << ", " << o.schedules << " schedule"
            << (o.schedules == 1 ? "" : "s") << "\n";
        if (bad || all) out << outcomeDetail(o, race, indent + "  ");
    }
    for (const auto& u : r.unreached) out << indent << "not reached: " << u << "\n";
    for (const auto& n : r.notes) out << indent << "note: " << n << "\n";
    if (!r.stuck.empty()) out << indent << r.stuck << "\n";
    return out.str();
}

}  // namespace cnx::sim
