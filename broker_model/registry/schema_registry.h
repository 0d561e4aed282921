#pragma once
// The schema registry (reference §4): one versioned history per schema-id,
// soft-delete markers, hard delete, the live list, de-duplication, the
// compatibility primitives and the consumer check. Storage reads and writes
// are separate continuations on the scheduler (§4.11), so concurrent
// registrations interleave exactly where the broker's do.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broker_model/core/broker_error.h"
#include "broker_model/compat/checker_set.h"
#include "broker_model/runtime/scheduler.h"
#include "broker_model/profile/profile.h"
#include "broker_model/core/schema_data.h"
#include "broker_model/core/trace.h"

namespace cnx {

/// One stored entry (§4.1): a schema, or a soft-delete marker.
struct StoredSchema {
    SchemaVersion version = 0;
    SchemaData schema;
    bool deleted = false;
    std::int64_t timestamp = 0;  // ms since the epoch when stored (SchemaRegistry::setClock; 0 in the simulator)
};

class SchemaRegistry {
public:
    using VersionCallback = std::function<void(Result<SchemaVersion>)>;
    using CheckCallback = std::function<void(std::optional<BrokerError>)>;

    /// `profile` and `scheduler` must outlive the registry; the profile may be
    /// replaced with setProfile (a broker upgrade keeps the stored state).
    /// `fastPaths` goes into every check's options (core/fast_paths.h).
    SchemaRegistry(const BehaviourProfile& profile, Scheduler& scheduler, FastPaths fastPaths = FastPaths::on);

    void setProfile(const BehaviourProfile& profile) { profile_ = &profile; }
    /// Where stored schemas take their timestamp from (ms since the epoch). Without one
    /// they carry 0, so a scenario's answers do not depend on when it runs.
    void setClock(std::function<std::int64_t()> clock) { clock_ = std::move(clock); }
    /// The JSON legacy-format switch from broker.conf (PIP-464).
    void setAllowLegacyJsonFormat(bool allow) { allowLegacyJson_ = allow; }
    /// Forgets every stored schema (a fresh metadata store); generations keep counting.
    void clear() { locators_.clear(); }

    // --- reads (synchronous views of the stored state) ---

    /// Every stored entry of `id`, markers included, oldest first.
    const std::vector<StoredSchema>& history(const std::string& id) const;
    /// §4.2 `trimDeletedSchemaAndGetList`: entries after the last marker, a
    /// view of history(id) (no copies): valid until `id`'s entries change.
    std::span<const StoredSchema> liveList(const std::string& id) const;
    /// §3.2 `getSchema(id)`: the latest entry, nullopt if none or a marker
    /// (2.4.0 returned the marker itself: see hasSchema).
    std::optional<StoredSchema> latest(const std::string& id) const;
    /// §3.2 `hasSchema`: a live latest entry, or (2.4.0) any latest entry, marker included.
    bool hasSchema(const std::string& id) const;
    /// §4.1 get-by-version: only versions in the live list (2.5.2/2.6.0+), any
    /// stored entry (markers included) before.
    std::optional<StoredSchema> byVersion(const std::string& id, SchemaVersion version) const;

    // --- asynchronous operations (callbacks run on the scheduler) ---

    /// §4.10 validator + §4.3 `putSchemaIfAbsent`.
    void putSchemaIfAbsent(const std::string& id, const SchemaData& schema, CompatibilityStrategy strategy,
                           TracePtr trace, VersionCallback done);
    /// §4.8 the auto-update-disabled lookup: an equal live schema's version, or the refusal.
    void findExistingVersion(const std::string& id, const SchemaData& schema, TracePtr trace, VersionCallback done);
    /// §4.7 `checkConsumerCompatibility`.
    void checkConsumerCompatibility(const std::string& id, const SchemaData& schema, CompatibilityStrategy strategy,
                                    TracePtr trace, CheckCallback done);
    /// §7.4 admin test-compatibility: validator + `checkCompatible` routed by strategy (§4.6).
    void checkCompatible(const std::string& id, const SchemaData& schema, CompatibilityStrategy strategy,
                         TracePtr trace, CheckCallback done);

    /// The metadata version of `id`'s locator (changes on every write): what a
    /// conditional write compares with the version it read.
    std::uint64_t locatorVersion(const std::string& id) const { return generationOf(id); }

    // --- writes (synchronous: admin paths post them themselves) ---

    /// A history as an earlier broker stored it (`cnxsim compat --existing`): appends
    /// `schema` to `id`'s history without validating or checking it, unless the
    /// profile's de-duplication (§4.3, §4.4) finds an equal live entry, whose version
    /// is returned. A stored schema is never validated again: the broker validates
    /// only the schema being registered (§6.7), e.g. a top-level AVRO union stored
    /// before #24103.
    SchemaVersion storeAsHistory(const std::string& id, const SchemaData& schema);

    /// §4.9: soft delete appends a marker and returns its version; force
    /// removes the history and returns -1.
    SchemaVersion deleteSchema(const std::string& id, bool force);

    /// §4.3 v2.4: the boolean compatibility check (hash shortcut or checker
    /// against the latest; the checker against the stored history for
    /// transitive strategies). Shared by 2.4 producers and consumers.
    /// `problems`, when given, gets the checker's problems of a false answer
    /// (the caller refuses with them and records them, see recordProblems).
    bool legacyIsCompatible(const std::string& id, const SchemaData& schema, CompatibilityStrategy strategy,
                            Trace& trace, std::vector<Problem>* problems = nullptr) const;
    /// Attaches `problems` to `refusal` and records them in `trace`, one line each
    /// under the section of the checker of `type` (§6.1).
    static void recordProblems(BrokerError& refusal, std::vector<Problem> problems, SchemaType type, Trace& trace);

    /// For a race's `admitted-schemas-compatible` invariant: the first live
    /// version that is not compatible with the live versions before it under
    /// `strategy` (transitive strategies: all before it; others: the one before),
    /// as "v2 vs v1: <checker message>"; nullopt when every version is. No hash
    /// shortcut: an identical second version fails ALWAYS_INCOMPATIBLE.
    std::optional<std::string> firstInadmissibleVersion(const std::string& id, CompatibilityStrategy strategy) const;

    /// §4.6 primitives, exposed for tests.
    std::optional<BrokerError> checkWithLatest(const std::string& id, const SchemaData& schema,
                                               CompatibilityStrategy strategy, Trace& trace) const;
    std::optional<BrokerError> checkWithAll(const std::string& id, const SchemaData& schema,
                                            CompatibilityStrategy strategy, Trace& trace) const;

private:
    std::function<std::int64_t()> clock_;
    struct Locator {
        std::vector<StoredSchema> entries;
        std::uint64_t generation = 0;  // metadata version of the locator node; changes on every write
    };
    struct Decision {
        enum class Kind { existing, append, reject } kind = Kind::append;
        SchemaVersion version = kNoVersion;
        BrokerError error;
    };

    Decision decidePut(const std::string& id, const SchemaData& schema, CompatibilityStrategy strategy,
                       Trace& trace) const;
    Decision decidePutLegacy(const std::string& id, const SchemaData& schema, CompatibilityStrategy strategy,
                             Trace& trace) const;
    std::optional<SchemaVersion> storageDedup(const std::string& id, const SchemaData& schema) const;
    /// One putSchemaIfAbsent, shared by its read and write stages (copied once, not per stage).
    struct PutRequest {
        std::string id;
        SchemaData schema;
        CompatibilityStrategy strategy;
        TracePtr trace;
        VersionCallback done;
    };
    void readAndDecide(std::shared_ptr<const PutRequest> put);
    void write(std::shared_ptr<const PutRequest> put, std::uint64_t seen);
    SchemaVersion append(const std::string& id, const SchemaData& schema, bool deleted);
    std::uint64_t generationOf(const std::string& id) const;
    std::optional<BrokerError> typeMismatch(const SchemaData& existing, const SchemaData& schema) const;
    /// The refusal a checker result makes (nullopt: compatible), carrying its problems,
    /// each also recorded in `trace` under the section of the checker of `type`.
    std::optional<BrokerError> runChecker(const compat::CheckResult& r, bool wrapErrors, SchemaType type,
                                          Trace& trace) const;
    compat::CheckOptions options() const;

    const BehaviourProfile* profile_;
    Scheduler& scheduler_;
    const compat::CheckerSet& checkers_ = compat::CheckerSet::standard();
    std::map<std::string, Locator> locators_;
    std::uint64_t nextGeneration_ = 1;
    bool allowLegacyJson_ = false;
    FastPaths fastPaths_ = FastPaths::on;
};

}  // namespace cnx
