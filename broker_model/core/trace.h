#pragma once
// The decision trace: every rule the model applied to a request, the inputs it
// looked at, and the reference section it follows. Reports and
// `cnxsim explain` print it; nothing in the model reads it back.
//
// Who reads a trace decides what it keeps. `explain`, the serve adapter and the
// report of a failing step read every detail; a passing step is read only for
// its outcome: the gaps met (notModelled) and a refusal's checker problems.
// A trace made with TraceDetail::outcomesOnly (by whoever makes it: the
// broker's connections and admin API as Broker::setTraceDetail says, which the
// runner sets, sim/run/runner.cc) keeps nothing from add() and its lazy forms
// do not even build the detail, while notModelled() and problem() record as
// always. The mode travels with the trace, never with the thread.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "broker_model/core/problem.h"
#include "broker_model/core/trace_text.h"

namespace cnx {

struct TraceEntry {
    TraceEntry() = default;
    /// A constructor (not aggregate initialisation), so that an entry is built
    /// in place in its trace: clang 14 has no parenthesized aggregate init.
    TraceEntry(TraceText section_, TraceText rule_, std::string detail_, bool notModelled_ = false)
        : section(std::move(section_)), rule(std::move(rule_)), detail(std::move(detail_)), notModelled(notModelled_) {}

    TraceText section;    // reference section, e.g. "§3.5"
    TraceText rule;       // e.g. "addSchemaIfIdleOrCheckCompatible"
    std::string detail;   // inputs and decision, e.g. "hasSchema=false producers=0 ... -> register"
    bool notModelled = false;  // the decision met a known gap (gaps.h): `rule` is "not modelled: #NNNN (...)"
    // A checker's problem behind a refusal (`rule` is "problem"); held apart,
    // as few entries have one and entries are moved on every request.
    std::shared_ptr<const Problem> problem = nullptr;
};

/// What a trace keeps: every detail, or (outcomesOnly) the gaps and problems alone.
enum class TraceDetail : bool { outcomesOnly, all };

class Trace {
public:
    /// A trace that keeps every detail.
    Trace() = default;
    explicit Trace(TraceDetail detail) noexcept : detailed_(detail == TraceDetail::all) {}

    /// Whether this trace keeps details: false when made with TraceDetail::outcomesOnly.
    bool detailed() const noexcept { return detailed_; }

    /// Records a rule applied; nothing when outcomes only are kept.
    void add(TraceText section, TraceText rule, std::string detail);
    /// The same with a literal detail: no string is made when outcomes only are kept.
    template <std::size_t N>
    void add(TraceText section, TraceText rule, const char (&detail)[N]) {
        if (detailed()) add(std::move(section), std::move(rule), std::string(detail, N - 1));
    }
    /// The same with a detail built by `detail()`, called only when details are kept:
    /// `trace.add("§3.5", "rule", [&] { return concat(...); })`.
    template <class MakeDetail>
        requires std::is_invocable_r_v<std::string, MakeDetail&>
    void add(TraceText section, TraceText rule, MakeDetail&& detail) {
        if (detailed()) add(std::move(section), std::move(rule), std::string(detail()));
    }
    /// Records that the decision met a known gap: `text` is "not modelled: #NNNN (...)".
    void notModelled(TraceText section, std::string text, std::string detail);
    /// Records one problem of the checker that refused: "<section> problem: PATH: detail"
    /// (never the schema fragments), the problem itself kept as data.
    void problem(TraceText section, Problem problem);
    /// Every recorded problem, in order.
    std::vector<Problem> problems() const;
    /// The distinct "not modelled: ..." texts, in order of first appearance.
    std::vector<std::string> gaps() const;
    /// Appends every entry of `other`, each detail after `detailPrefix`.
    void append(const Trace& other, std::string_view detailPrefix = {});
    /// The same, taking `other`'s entries instead of copying them.
    void append(Trace&& other, std::string_view detailPrefix = {});
    const std::vector<TraceEntry>& entries() const { return entries_; }
    bool empty() const { return entries_.empty(); }
    /// One line per entry: "  §3.5 rule: detail".
    std::string format(const std::string& indent = "  ") const;

private:
    std::vector<TraceEntry> entries_;
    bool detailed_ = true;
};

using TracePtr = std::shared_ptr<Trace>;

}  // namespace cnx
