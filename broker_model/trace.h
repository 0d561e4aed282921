#pragma once
// The decision trace: every rule the model applied to a request, the inputs it
// looked at, and the reference section it follows. Reports and
// `cnxsim explain` print it; nothing in the model reads it back.

#include <memory>
#include <string>
#include <vector>

namespace cnx {

struct TraceEntry {
    std::string section;  // reference section, e.g. "§3.5"
    std::string rule;     // e.g. "addSchemaIfIdleOrCheckCompatible"
    std::string detail;   // inputs and decision, e.g. "hasSchema=false producers=0 ... -> register"
};

class Trace {
public:
    void add(std::string section, std::string rule, std::string detail);
    const std::vector<TraceEntry>& entries() const { return entries_; }
    bool empty() const { return entries_.empty(); }
    /// One line per entry: "  §3.5 rule: detail".
    std::string format(const std::string& indent = "  ") const;

private:
    std::vector<TraceEntry> entries_;
};

using TracePtr = std::shared_ptr<Trace>;

}  // namespace cnx
