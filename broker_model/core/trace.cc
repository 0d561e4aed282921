#include "broker_model/core/trace.h"

#include "broker_model/core/text_bound.h"

namespace cnx {
namespace {

constexpr std::size_t kFirstReserve = 8;

}  // namespace

void Trace::add(TraceText section, TraceText rule, std::string detail) {
    if (!detailed()) return;
    // A request's trace has a handful of entries: one allocation, not one per doubling.
    if (entries_.capacity() == 0) entries_.reserve(kFirstReserve);
    // A detail embedding a client's 4 MiB name or schema is kept cut (issue 40 item 5):
    // a connection keeps ServerCnx::kKeptTraces traces.
    if (detail.size() > kTraceDetailBytes) detail = boundedText(detail, kTraceDetailBytes);
    entries_.emplace_back(std::move(section), std::move(rule), std::move(detail));
}

void Trace::notModelled(TraceText section, std::string text, std::string detail) {
    if (detail.size() > kTraceDetailBytes) detail = boundedText(detail, kTraceDetailBytes);
    entries_.emplace_back(std::move(section), std::move(text), std::move(detail), true);
}

void Trace::problem(TraceText section, Problem problem) {
    TraceEntry e{std::move(section), "problem", problem.summary()};
    e.problem = std::make_shared<const Problem>(std::move(problem));
    entries_.push_back(std::move(e));
}

std::vector<Problem> Trace::problems() const {
    std::vector<Problem> out;
    for (const auto& e : entries_) {
        if (e.problem) out.push_back(*e.problem);
    }
    return out;
}

std::vector<std::string> Trace::gaps() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) {
        if (!e.notModelled) continue;
        bool seen = false;
        for (const auto& g : out) seen = seen || e.rule.view() == g;
        if (!seen) out.push_back(e.rule.str());
    }
    return out;
}

void Trace::append(const Trace& other, std::string_view detailPrefix) {
    entries_.reserve(entries_.size() + other.entries_.size());
    for (auto e : other.entries_) {
        e.detail.insert(0, detailPrefix);
        entries_.push_back(std::move(e));
    }
}

void Trace::append(Trace&& other, std::string_view detailPrefix) {
    if (entries_.empty() && detailPrefix.empty()) {
        entries_ = std::move(other.entries_);
        other.entries_.clear();
        return;
    }
    entries_.reserve(entries_.size() + other.entries_.size());
    for (auto& e : other.entries_) {
        if (!detailPrefix.empty()) e.detail.insert(0, detailPrefix);
        entries_.push_back(std::move(e));
    }
    other.entries_.clear();
}

std::string Trace::format(const std::string& indent) const {
    std::string out;
    for (const auto& e : entries_) {
        out.append(indent).append(e.section.view()).append(" ").append(e.rule.view()).append(": ").append(e.detail).append("\n");
    }
    return out;
}

}  // namespace cnx
