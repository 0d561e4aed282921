#pragma once
// The gate in front of yaml-cpp. yaml-cpp 0.7.0 (Debian 12) cannot survive
// every input: a stray `,` in block context makes `LoadAll` loop allocating
// until bad_alloc (yaml-cpp#1040), its depth guard carries no position, and
// it is slow on huge scalars. So every scenario text is first read with
// libyaml's event parser, which streams in bounded memory and reports
// positions; only text it accepts, within the limits below, reaches yaml-cpp.
// The same pass can hand its events on (YamlEventObserver): the loader builds
// its tree from them when they are plain enough that yaml-cpp would build the
// same one (sim/scenario/load/yaml_quick_tree.h), and parses with yaml-cpp
// only the texts it declines.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

struct yaml_event_s;  // libyaml's yaml_event_t

namespace cnx::sim {

/// The limits of scenario YAML (doc/scenario-format.md "Limits").
struct YamlLimits {
    int maxDepth = 256;                      // nested collections, block or flow
    std::size_t maxScalarBytes = 1u << 20;   // one scalar (1 MiB)
    std::size_t maxNodes = 1'000'000;        // nodes in a file, aliases counted as what they expand to
};

/// A problem found before parsing; `line`/`column` are 1-based.
struct YamlProblem {
    int line = 1;
    int column = 1;
    std::string message;
};

/// Sees the events of a precheck, in order, each after the checks passed it.
/// The event lives only for the call.
class YamlEventObserver {
public:
    virtual ~YamlEventObserver() = default;
    virtual void observe(const yaml_event_s& event) = 0;
};

/// Checks that `text` is well-formed YAML within `limits`: syntax as libyaml
/// reads it, no plain scalar that yaml-cpp would read as a document marker,
/// no undefined or self-containing alias, no deeper nesting, no
/// longer scalar and no more (expanded) nodes than allowed. Returns the first
/// problem, or nullopt. Runs in time linear in `text` (depth is bounded) and
/// memory bounded by the largest scalar plus the anchors defined.
/// `documents`, when given, receives the number of documents libyaml read;
/// `observer`, when given, sees every event that passed the checks.
std::optional<YamlProblem> precheckYaml(std::string_view text, const YamlLimits& limits = {},
                                        std::size_t* documents = nullptr, YamlEventObserver* observer = nullptr);

/// yaml-cpp 0.7.0's `LoadAll` never ends on some texts libyaml accepts (a node
/// property, then a line starting with ',': each call yields another empty
/// document, yaml-cpp#1040 / PR #1319). So the loader's one yaml-cpp pass
/// (load::YamlDocuments::parse) reads at most the `documents` documents
/// libyaml found; one more is refused with this message, at its start.
std::string yamlCppExtraDocumentMessage(std::size_t documents);

}  // namespace cnx::sim
