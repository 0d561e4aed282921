#include "broker_model/trace.h"

namespace cnx {

void Trace::add(std::string section, std::string rule, std::string detail) {
    entries_.push_back({std::move(section), std::move(rule), std::move(detail)});
}

std::string Trace::format(const std::string& indent) const {
    std::string out;
    for (const auto& e : entries_) {
        out += indent + e.section + " " + e.rule + ": " + e.detail + "\n";
    }
    return out;
}

}  // namespace cnx
