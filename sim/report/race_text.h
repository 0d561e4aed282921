#pragma once
// How a race step reads in failure blocks, `explain` and reports: how it was
// explored (schedules run, cut short, the naive count), every distinct
// outcome, and for each failing one its minimal schedule stage by stage, the
// line that replays exactly it and the branches' decision traces on it.

#include <string>

#include "sim/run/runner.h"

namespace cnx::sim {

/// "exhaustive: 12 schedules (9 cut short as equivalent) of 1680 interleavings, 4 traces".
std::string raceSummary(const RaceReport& report);

/// The lines under a race step, each after `indent`. `all`: every outcome's
/// schedule and trace (explain); otherwise only failing outcomes get them.
std::string raceBlock(const StepResult& step, const std::string& indent, bool all);

/// One outcome's schedule, replay line and trace: the part a replay reprints byte for byte.
std::string outcomeDetail(const RaceOutcome& outcome, const ConcurrentlyStep& race, const std::string& indent);

}  // namespace cnx::sim
