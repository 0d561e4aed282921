#pragma once
// A recorded session as the recorder hands it to the writer: the header (a
// scenario without steps: broker version and config, namespaces, topics,
// clients, schema aliases) and the steps in the order the broker received
// them, each with the outcome it observed. Plain data (doc/recording.md).

#include <string>
#include <vector>

#include "sim/scenario/observed.h"
#include "sim/scenario/scenario.h"

namespace cnx::record {

struct RecordedStep {
    sim::Step step;                  // action and body; `expect` is written from `observed`
    sim::Observed observed;
    std::vector<std::string> notes;  // comment lines written above the step
    bool expect = true;              // false: no answer was seen, nothing to assert
    bool dropped = false;            // a publish whose every message counted in a later one: not written
};

struct Recording {
    sim::Scenario header;                    // `steps` unused
    std::vector<std::string> headerComments;  // the lines at the top (without "# ")
    std::vector<RecordedStep> steps;
    std::size_t firstStep = 0;               // the index of steps[0] in the session (SessionRecorder::recordingFrom)
    // Where definitions too long for one YAML value go, relative to the
    // recording's folder (scenario_writer.h, definitionFiles); "": all inline.
    std::string definitionFolder;
    std::vector<std::string> trailingNotes;  // comment lines after the last step
};

}  // namespace cnx::record
