#pragma once
// A JSON Schema (draft 2020-12) of the scenario format, generated from the
// loader's own field tables (format.h) and vocabulary (vocabulary.h), so an
// editor checks the keys and choices the loader checks. `cnxsim schema`
// prints it; doc/scenario.schema.json is its committed copy (a ctest keeps the
// two equal). Each YAML document of a file is validated on its own. Rules that
// span keys or need the scenario's context (names opened by earlier steps,
// topic name expansion, release profiles) stay the loader's.

#include <string>

namespace cnx::sim::load {

/// The schema as pretty-printed JSON text, ending in a newline.
std::string scenarioJsonSchema();

}  // namespace cnx::sim::load
