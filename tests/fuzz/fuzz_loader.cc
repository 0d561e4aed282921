// libFuzzer target: the scenario loader (the path `cnxsim lint` takes on a
// file's text), and the runner on what loads.
//
// Input: the bytes of a scenario YAML file. Every problem must come back as
// a `file:line:column: message` value, never as a crash, a hang or an
// exception. Scenarios that load are run on their first broker version when
// they are small, so that whatever the loader accepts, the model survives.
//
// And the quick YAML tree (sim/scenario/load/yaml_quick_tree.h): wherever it
// takes a text, yaml-cpp must parse that text to the same tree, node for
// node and mark for mark, else the target traps.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "sim/run/runner.h"
#include "sim/scenario/load/yaml_quick_tree.h"
#include "sim/scenario/loader.h"

namespace {

// Small enough that one input runs in milliseconds under the sanitizers.
constexpr std::size_t kMaxStepsRun = 64;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto why = cnx::sim::load::quickTreeDifference(text); !why.empty()) {
        std::fprintf(stderr, "fuzz_loader: %s\n", why.c_str());
        __builtin_trap();
    }
    auto result = cnx::sim::loadScenarioText(text, "fuzz.yaml", "/nonexistent-cnxsim-fuzz");
    for (const auto& error : result.errors) {
        if (error.message.empty() || error.pos.line < 1 || error.pos.column < 1) {
            std::fprintf(stderr, "fuzz_loader: an error without a message or a position: %s\n", error.format().c_str());
            std::abort();
        }
    }
    for (const auto& scenario : result.scenarios) {
        if (scenario.steps.size() > kMaxStepsRun) continue;
        auto versions = cnx::sim::versionsOf(scenario);
        if (versions.empty()) continue;
        cnx::sim::RunOptions options;
        options.maxInterleavings = 20;  // races are explored, but briefly
        cnx::sim::runScenario(scenario, "fuzz.yaml", versions.front(), options);
    }
    return 0;
}
