#pragma once
// "Can `reader` read data written with `writer`?" exactly as Avro's
// SchemaValidator decides it (reference §6.3): ValidateMutualRead.canRead
// builds the resolving grammar (ResolvingGrammarGenerator, which from Avro 1.9
// delegates the type rules to org.apache.avro.Resolver) and answers
// "incompatible" iff Symbol.hasErrors finds an error symbol. The validator can
// also *throw* (a default that does not encode, a non-terminating grammar):
// that is Verdict::error.

#include <cstdint>
#include <optional>
#include <vector>

#include "broker_model/compat/avro/avro_schema.h"
#include "broker_model/compat/compatibility_check.h"

namespace cnx::compat::avro {

struct Resolution {
    Verdict verdict = Verdict::compatible;
    std::vector<Problem> problems;       // every error symbol reachable in the grammar, reader paths
    std::optional<JavaException> thrown;  // set iff verdict == error
    /// The work it took: pairs the fast pass visited, calls of the Resolver's
    /// type rules, reader-union branches scanned, and actions the problem
    /// collector walked. Linear in the two schemas for acyclic ones (issue 7
    /// item 9); tests hold it to that rather than timing the check.
    std::uint64_t work = 0;
};

/// Resolves `writer` against `reader` with the grammar rules of `version`.
/// `fast` off: the full resolution always, without the fast pass
/// (avro_fast_pass.h), which answers the same where it answers.
Resolution canRead(const Schema& writer, const Schema& reader, AvroVersion version, FastPaths fast = FastPaths::on);

}  // namespace cnx::compat::avro
