#pragma once
// Jackson-compatible JSON text (reference §6.3: the incompatibility message
// embeds `Schema.toString(true)`, i.e. Jackson's DefaultPrettyPrinter output,
// and parse messages embed `JsonNode.toString()`).
//
// Jackson behaviour modelled (jackson-core DefaultPrettyPrinter): objects put
// each entry on a new line indented by two spaces per object level, with
// " : " between name and value; arrays stay on one line ("[ a, b ]"); empty
// containers print as "{ }" / "[ ]". Doubles print as Java's Double.toString.

#include <string>
#include <string_view>
#include <vector>

#include "broker_model/compat/avro/avro_schema.h"

namespace cnx::compat::avro {

/// A streaming writer with Jackson's separators (compact or pretty).
class JsonWriter {
public:
    explicit JsonWriter(bool pretty) : pretty_(pretty) {}

    void startObject();
    void endObject();
    void startArray();
    void endArray();
    void fieldName(std::string_view name);
    void string(std::string_view s);
    void number(std::int64_t v);
    void value(const Json& j);  // any JSON tree (writeTree)
    void stringField(std::string_view name, std::string_view v) {
        fieldName(name);
        string(v);
    }

    const std::string& text() const { return out_; }

private:
    struct Level {
        bool object;
        int count;
        bool awaitingValue;  // object: a field name was written
    };
    void beforeValue();
    void indent();
    void rawNumber(std::string_view digits);

    bool pretty_;
    int nesting_ = 0;
    std::vector<Level> stack_;
    std::string out_;
};

/// Java `Double.toString(d)` (shortest round-trip digits, Java layout).
std::string javaDoubleToString(double d);

/// Appends `s` quoted and escaped as Jackson does.
void appendJacksonString(std::string& out, std::string_view s);

}  // namespace cnx::compat::avro
