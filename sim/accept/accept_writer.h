#pragma once
// `cnxsim run --accept[=all]`: writes observed outcomes into scenario files as
// `expect:` values by editing the file's text, never by re-emitting YAML, so
// that every comment, blank line and the layout elsewhere stay byte-for-byte.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cnx::sim {

/// One `expect` to write. Positions are 1-based, as in SourcePos.
struct AcceptEdit {
    int stepLine = 0;               // the step mapping's first key (Step::pos)
    int stepColumn = 0;
    std::optional<int> expectLine;  // the existing `expect` key (ExpectSpec::pos) when replacing; nullopt inserts
    std::string expectYaml;         // one line of flow-style YAML: `ok`, `{ error: IncompatibleSchema, message: "..." }`
};

/// Applies `edits` to `text` (a scenario file's content). A block-style step
/// gets `expect: ...` as a new line after its last line, indented like its
/// keys and before its trailing blank and comment lines; a flow-style step
/// (`- { producer: {...} }`) gets `, expect: ...` before its closing brace. An
/// existing value, however many lines it spans, is replaced up to the next
/// key of the step or the next step; a comment on the `expect` line is kept.
/// Returns an error message, leaving `text` unchanged, when an edit does not
/// match the text.
std::optional<std::string> applyAcceptEditsToText(std::string& text, std::vector<AcceptEdit> edits);

/// Reads `file`, applies `edits` as above and replaces the file atomically
/// with writeFileAtomically (sim/io/file_write.h), keeping its permissions. A
/// symbolic link is followed to the file it names, which is replaced (the
/// link stays a link); a read-only file (no write bit, or no write access)
/// or a non-regular one is refused. Returns an error message on failure; the
/// file is then untouched.
std::optional<std::string> applyAcceptEdits(const std::filesystem::path& file, std::vector<AcceptEdit> edits);

}  // namespace cnx::sim
