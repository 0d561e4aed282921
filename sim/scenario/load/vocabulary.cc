#include "sim/scenario/load/vocabulary.h"

#include <algorithm>

#include "broker_model/core/schema_type.h"

namespace cnx::sim::load {

std::string inQuotes(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string joined(Names names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
        out += names[i];
    }
    return out;
}

bool contains(Names names, std::string_view s) { return std::find(names.begin(), names.end(), s) != names.end(); }

Names schemaTypeNames() {
    std::size_t count = 0;
    const std::string_view* names = allSchemaTypeNames(count);
    return {names, count};
}

const std::vector<std::string_view>& primitiveNames() {
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> out;
        for (std::string_view n : schemaTypeNames()) {
            auto t = schemaTypeFromName(n);
            if (t && isPrimitive(*t) && *t != SchemaType::NONE) out.push_back(n);
        }
        return out;
    }();
    return names;
}

}  // namespace cnx::sim::load
