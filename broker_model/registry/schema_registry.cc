#include "broker_model/registry/schema_registry.h"

#include <span>

#include "broker_model/registry/definition_validator.h"
#include "broker_model/registry/schema_equality.h"

namespace cnx {
namespace {

std::string typeName(SchemaType t) { return std::string(to_string_view(t)); }
std::string strategyName(CompatibilityStrategy s) { return std::string(to_string_view(s)); }

BrokerError incompatible(std::string message) { return {RefusalKind::incompatibleSchema, std::move(message)}; }

// §4.5: the Avro parser of the equality lookup threw; the exception escapes.
BrokerError parseError(std::string message) {
    return {RefusalKind::checkerError, std::move(message), std::string(compat::exception_class::kAvroSchemaParse)};
}

// The reference section of the checker of `type` (§6.1), for its problem lines.
std::string checkerSection(SchemaType type) {
    switch (type) {
        case SchemaType::AVRO: return "§6.3";
        case SchemaType::JSON: return "§6.4";
        case SchemaType::PROTOBUF_NATIVE: return "§6.5";
        case SchemaType::KEY_VALUE: return "§6.6";
        default: return "§6.2";
    }
}

std::vector<SchemaData> schemasOf(std::span<const StoredSchema> list) {
    std::vector<SchemaData> out;
    out.reserve(list.size());
    for (const auto& e : list) out.push_back(e.schema);
    return out;
}

// The versions of a list as a trace writes them. A long history is written by
// its ends: the text of every upload's trace listed every live version, which
// made each upload's cost grow with the history where the broker's does not
// (issue 40 item 4).
std::string versionsOf(std::span<const StoredSchema> list) {
    constexpr std::size_t kHead = 3, kTail = 2;
    std::string out = "[";
    auto put = [&out](const StoredSchema& e) { out += (out.size() > 1 ? "," : "") + std::to_string(e.version); };
    if (list.size() <= kHead + kTail + 1) {
        for (const auto& e : list) put(e);
        return out + "]";
    }
    for (std::size_t i = 0; i < kHead; ++i) put(list[i]);
    out += ",...";
    for (std::size_t i = list.size() - kTail; i < list.size(); ++i) put(list[i]);
    return out + "] (" + std::to_string(list.size()) + " versions)";
}

}  // namespace

SchemaRegistry::SchemaRegistry(const BehaviourProfile& profile, Scheduler& scheduler, FastPaths fastPaths)
    : profile_(&profile), scheduler_(scheduler), fastPaths_(fastPaths) {}

const std::vector<StoredSchema>& SchemaRegistry::history(const std::string& id) const {
    static const std::vector<StoredSchema> kEmpty;
    scheduler_.touch("schema", id, false);
    auto it = locators_.find(id);
    return it == locators_.end() ? kEmpty : it->second.entries;
}

// §4.2: keep only the entries after the last delete marker.
std::span<const StoredSchema> SchemaRegistry::liveList(const std::string& id) const {
    std::span<const StoredSchema> all = history(id);
    std::size_t start = 0;
    for (std::size_t i = all.size(); i-- > 0;) {
        if (all[i].deleted) {
            start = i + 1;
            break;
        }
    }
    return all.subspan(start);
}

std::optional<StoredSchema> SchemaRegistry::latest(const std::string& id) const {
    const auto& all = history(id);
    if (all.empty() || all.back().deleted) return std::nullopt;
    return all.back();
}

bool SchemaRegistry::hasSchema(const std::string& id) const {
    const auto& all = history(id);
    if (all.empty()) return false;
    return !all.back().deleted || profile_->softDeleteMarkerIsSchema;
}

std::optional<StoredSchema> SchemaRegistry::byVersion(const std::string& id, SchemaVersion version) const {
    auto entries = profile_->getByVersionLiveOnly ? liveList(id) : std::span<const StoredSchema>(history(id));  // #6764
    for (const auto& e : entries) {
        if (e.version == version) return e;
    }
    return std::nullopt;
}

compat::CheckOptions SchemaRegistry::options() const {
    auto o = profile_->checkOptions;
    o.jsonAllowLegacyJacksonFormat = o.jsonAllowLegacyJacksonFormat || allowLegacyJson_;  // PIP-464 broker key
    o.fastPaths = fastPaths_;
    return o;
}

std::uint64_t SchemaRegistry::generationOf(const std::string& id) const {
    scheduler_.touch("schema", id, false);
    auto it = locators_.find(id);
    return it == locators_.end() ? 0 : it->second.generation;
}

SchemaVersion SchemaRegistry::append(const std::string& id, const SchemaData& schema, bool deleted) {
    scheduler_.touch("schema", id, true);
    auto& loc = locators_[id];
    SchemaVersion v = loc.entries.empty() ? 0 : loc.entries.back().version + 1;
    StoredSchema entry{v, schema, deleted, clock_ ? clock_() : 0};
    // §4.1: the stored type is the Java value + 1; negative Java types (BYTES,
    // AUTO, ...) are stored, and so read back, as NONE.
    if (static_cast<int>(entry.schema.type) < 0) entry.schema.type = SchemaType::NONE;
    loc.entries.push_back(std::move(entry));
    loc.generation = nextGeneration_++;
    return v;
}

SchemaVersion SchemaRegistry::storeAsHistory(const std::string& id, const SchemaData& schema) {
    if (!profile_->pip44Registry) {
        if (auto v = storageDedup(id, schema)) return *v;  // §4.4 v2.4: storage-level hash
    } else if (auto found = findEqualSchema(*profile_, liveList(id), schema, fastPaths_); found.version) {
        return *found.version;  // §4.3 step 1 (an equality that throws finds nothing here)
    }
    return append(id, schema, false);
}

SchemaVersion SchemaRegistry::deleteSchema(const std::string& id, bool force) {
    scheduler_.touch("schema", id, true);
    if (force) {
        locators_.erase(id);  // §4.9 hard delete: the next schema gets version 0
        return kNoVersion;
    }
    // §4.9 soft delete: a marker {deleted, NONE, empty}, appended unconditionally.
    return append(id, SchemaData{SchemaType::NONE, "", {}}, true);
}

// --- §4.6 compatibility primitives -------------------------------------------

std::optional<BrokerError> SchemaRegistry::typeMismatch(const SchemaData& existing, const SchemaData& schema) const {
    if (existing.type == schema.type) return std::nullopt;
    switch (profile_->typeCheckRule) {
        case TypeCheckRule::none: return std::nullopt;  // 2.4.x: the checker of the new type decides
        case TypeCheckRule::strict:
            return incompatible("Incompatible schema: exists schema type " + typeName(existing.type) +
                                ", new schema type " + typeName(schema.type));
        case TypeCheckRule::primitiveOnly:
            if (!isPrimitive(existing.type)) return std::nullopt;
            return incompatible("Incompatible primitive schema: exists schema type " + typeName(existing.type) +
                                ", new schema type " + typeName(schema.type));
    }
    return std::nullopt;
}

std::optional<BrokerError> SchemaRegistry::runChecker(const compat::CheckResult& r, bool wrapErrors, SchemaType type,
                                                      Trace& trace) const {
    std::optional<BrokerError> e;
    switch (r.verdict) {
        case compat::Verdict::compatible: return std::nullopt;
        case compat::Verdict::incompatible: e = BrokerError{RefusalKind::incompatibleSchema, r.message}; break;
        case compat::Verdict::error:
            // §4.6: on the "all" path non-incompatibility exceptions are wrapped as
            // IncompatibleSchemaException("<class>: <text>"); on the latest path they
            // escape and map to UnknownError (§1.5).
            if (wrapErrors) e = BrokerError{RefusalKind::checkerErrorWrapped, r.exceptionClass + ": " + r.message};
            else e = BrokerError{RefusalKind::checkerError, r.message, r.exceptionClass};
            break;
    }
    // The checker's problems travel with the refusal and are recorded where it was decided.
    recordProblems(*e, r.problems, type, trace);
    return e;
}

void SchemaRegistry::recordProblems(BrokerError& refusal, std::vector<Problem> problems, SchemaType type, Trace& trace) {
    for (const auto& p : problems) trace.problem(checkerSection(type), p);
    refusal.problems = std::move(problems);
}

std::optional<BrokerError> SchemaRegistry::checkWithLatest(const std::string& id, const SchemaData& schema,
                                                           CompatibilityStrategy strategy, Trace& trace) const {
    if (profile_->alwaysCompatibleShortCircuit && strategy == CompatibilityStrategy::ALWAYS_COMPATIBLE) {
        trace.add("§4.6", "checkCompatibilityWithLatest", "ALWAYS_COMPATIBLE -> pass (no type check)");
        return std::nullopt;
    }
    auto existing = latest(id);
    if (!existing) {
        if (profile_->checkWithLatestPassesWithoutSchema) {
            trace.add("§4.6", "checkCompatibilityWithLatest", "no live schema -> pass (#22720)");
            return std::nullopt;
        }
        trace.add("§4.6", "checkCompatibilityWithLatest", "no live schema -> fail");
        return incompatible("Do not have existing schema.");
    }
    if (auto err = typeMismatch(existing->schema, schema)) {
        trace.add("§4.6", "checkCompatible", [&] {
            return "latest v" + std::to_string(existing->version) + " type " + typeName(existing->schema.type) +
                   " != " + typeName(schema.type);
        });
        return err;
    }
    if (profile_->typeCheckRule == TypeCheckRule::primitiveOnly && isPrimitive(existing->schema.type)) {
        // 2.5.0-2.7.1: an existing primitive of the same type passes without any checker.
        trace.add("§4.6", "checkCompatible", [&] {
            return "latest v" + std::to_string(existing->version) + " is primitive " +
                   typeName(existing->schema.type) + ", same type -> pass";
        });
        return std::nullopt;
    }
    bool sameHash = existing->schema.data == schema.data &&
                    (!profile_->hashIncludesType || existing->schema.type == schema.type);  // #10573
    if (sameHash) {
        trace.add("§4.6", "checkCompatible",
                  [&] {
                      return "same hash as latest v" + std::to_string(existing->version) + " -> pass without checker";
                  });
        return std::nullopt;
    }
    auto r = checkers_.forType(schema.type).checkCompatible(existing->schema, schema, strategy, options());
    trace.add("§4.6", "checkCompatible",
              [&] {
                  return "checker[" + typeName(schema.type) + "] " + strategyName(strategy) + " vs latest v" +
                         std::to_string(existing->version) + " -> " + (r.ok() ? "compatible" : r.message);
              });
    auto err = runChecker(r, false, schema.type, trace);
    if (err) err->failedAgainst = existing->version;
    return err;
}

std::optional<std::string> SchemaRegistry::firstInadmissibleVersion(const std::string& id,
                                                                   CompatibilityStrategy strategy) const {
    auto live = liveList(id);
    if (profile_->alwaysCompatibleShortCircuit && strategy == CompatibilityStrategy::ALWAYS_COMPATIBLE)
        return std::nullopt;
    auto schemas = schemasOf(live);
    for (std::size_t i = 1; i < live.size(); ++i) {
        std::size_t from = isTransitive(strategy) ? 0 : i - 1;
        for (std::size_t j = from; j < i; ++j) {
            if (typeMismatch(live[j].schema, live[i].schema))
                return "v" + std::to_string(live[i].version) + " is " + typeName(live[i].schema.type) + ", v" +
                       std::to_string(live[j].version) + " is " + typeName(live[j].schema.type);
        }
        const auto& check = checkers_.forType(live[i].schema.type);
        auto r = isTransitive(strategy)
                     ? check.checkCompatible(std::span<const SchemaData>(schemas.data(), i), live[i].schema, strategy,
                                             options())
                     : check.checkCompatible(live[i - 1].schema, live[i].schema, strategy, options());
        if (!r.ok())
            return "v" + std::to_string(live[i].version) + " under " + strategyName(strategy) + ": " + r.message;
    }
    return std::nullopt;
}

std::optional<BrokerError> SchemaRegistry::checkWithAll(const std::string& id, const SchemaData& schema,
                                                        CompatibilityStrategy strategy, Trace& trace) const {
    if (profile_->alwaysCompatibleShortCircuit && strategy == CompatibilityStrategy::ALWAYS_COMPATIBLE) {
        trace.add("§4.6", "checkCompatibilityWithAll", "ALWAYS_COMPATIBLE -> pass (no type check)");
        return std::nullopt;
    }
    auto live = liveList(id);
    if (profile_->typeCheckRule == TypeCheckRule::strict) {
        for (const auto& e : live) {
            if (auto err = typeMismatch(e.schema, schema)) {
                trace.add("§4.6", "checkCompatibilityWithAll",
                          [&] {
                              return "live v" + std::to_string(e.version) + " type " + typeName(e.schema.type) +
                                     " != " + typeName(schema.type);
                          });
                return err;
            }
        }
    }
    auto schemas = schemasOf(live);
    auto r = checkers_.forType(schema.type).checkCompatible(std::span<const SchemaData>(schemas), schema, strategy,
                                                            options());
    trace.add("§4.6", "checkCompatibilityWithAll",
              [&] {
                  return "checker[" + typeName(schema.type) + "] " + strategyName(strategy) + " vs live " +
                         versionsOf(live) + " -> " + (r.ok() ? "compatible" : r.message);
              });
    auto err = runChecker(r, true, schema.type, trace);
    if (err && r.failedAgainst && *r.failedAgainst < live.size()) err->failedAgainst = live[*r.failedAgainst].version;
    return err;
}

// --- §4.3 putSchemaIfAbsent ---------------------------------------------------

SchemaRegistry::Decision SchemaRegistry::decidePut(const std::string& id, const SchemaData& schema,
                                                   CompatibilityStrategy strategy, Trace& trace) const {
    if (!profile_->pip44Registry) return decidePutLegacy(id, schema, strategy, trace);
    auto live = liveList(id);
    auto found = findEqualSchema(*profile_, live, schema, fastPaths_);  // §4.4: live list, oldest first, first match wins
    if (found.error) {
        trace.add("§4.5", "getSchemaVersionBySchemaData", [&] {
            return "definition does not parse -> " + *found.error;
        });
        return {Decision::Kind::reject, kNoVersion, parseError(*found.error)};
    }
    if (found.version) {
        trace.add("§4.5", "getSchemaVersionBySchemaData",
                  [&] {
                      return "equal to live v" + std::to_string(*found.version) +
                             " -> reuse it, no compatibility check";
                  });
        return {Decision::Kind::existing, *found.version, {}};
    }
    if (live.empty()) {
        trace.add("§4.3", "putSchemaIfAbsent", "live list empty -> append without check");
        return {Decision::Kind::append, kNoVersion, {}};
    }
    trace.add("§4.3", "putSchemaIfAbsent",
              [&] {
                  return "no equal schema in live " + versionsOf(live) + "; strategy " + strategyName(strategy) +
                         (isTransitive(strategy) ? " -> check all" : " -> check latest");
              });
    auto err = isTransitive(strategy) ? checkWithAll(id, schema, strategy, trace)
                                      : checkWithLatest(id, schema, strategy, trace);
    if (err) return {Decision::Kind::reject, kNoVersion, *err};
    return {Decision::Kind::append, kNoVersion, {}};
}

// §4.3 v2.4.0 - v2.4.2: the boolean check against the raw latest entry (a
// marker counts as "none") or, for transitive strategies, the stored history.
bool SchemaRegistry::legacyIsCompatible(const std::string& id, const SchemaData& schema,
                                        CompatibilityStrategy strategy, Trace& trace,
                                        std::vector<Problem>* problems) const {
    const auto& all = history(id);
    if (all.empty() || all.back().deleted) {
        trace.add("§4.3", "isCompatible (2.4)", "no latest schema or a delete marker -> compatible");
        return true;
    }
    compat::CheckResult r;
    if (isTransitive(strategy)) {
        // 2.4.0 checks every stored entry, markers included (they fail to parse for
        // Avro-based types); 2.4.1+ (#4669) only the entries after the last delete.
        std::vector<SchemaData> entries;
        bool whole = profile_->dedupRule == DedupRule::storageHashWholeHistory;
        for (const auto& e : whole ? std::span<const StoredSchema>(all) : liveList(id)) entries.push_back(e.schema);
        r = checkers_.forType(schema.type).checkCompatible(std::span<const SchemaData>(entries), schema, strategy, options());
        trace.add("§4.3", "isCompatible (2.4)", [&] {
            return "checker[" + typeName(schema.type) + "] " + strategyName(strategy) + " over " +
                   std::to_string(entries.size()) + " stored entries -> " + (r.ok() ? "true" : "false");
        });
        if (problems) *problems = r.problems;
        return r.ok();
    }
    if (all.back().schema.data == schema.data) {
        trace.add("§4.3", "isCompatible (2.4)", "same hash as latest -> true");
        return true;
    }
    r = checkers_.forType(schema.type).checkCompatible(all.back().schema, schema, strategy, options());
    trace.add("§4.3", "isCompatible (2.4)", [&] {
        return "checker[" + typeName(schema.type) + "] " + strategyName(strategy) + " vs latest v" +
               std::to_string(all.back().version) + " -> " + (r.ok() ? "true" : "false");
    });
    if (problems) *problems = r.problems;
    return r.ok();
}

// §4.3 v2.4: compatibility first, then the storage-level de-duplication at write time.
SchemaRegistry::Decision SchemaRegistry::decidePutLegacy(const std::string& id, const SchemaData& schema,
                                                         CompatibilityStrategy strategy, Trace& trace) const {
    std::vector<Problem> problems;
    if (!legacyIsCompatible(id, schema, strategy, trace, &problems)) {
        auto refusal = incompatible("Incompatible schema used");
        recordProblems(refusal, std::move(problems), schema.type, trace);
        return {Decision::Kind::reject, kNoVersion, refusal};
    }
    return {Decision::Kind::append, kNoVersion, {}};
}

// §4.4 v2.4: the storage returns the version of an entry with the same data
// hash instead of appending (2.4.0: the whole history, #4724; 2.4.1+: after
// the last delete, #4731). Type is not part of the hash.
std::optional<SchemaVersion> SchemaRegistry::storageDedup(const std::string& id, const SchemaData& schema) const {
    bool whole = profile_->dedupRule == DedupRule::storageHashWholeHistory;
    for (const auto& e : whole ? std::span<const StoredSchema>(history(id)) : liveList(id)) {
        if (!e.deleted && e.schema.data == schema.data) return e.version;
    }
    return std::nullopt;
}

void SchemaRegistry::putSchemaIfAbsent(const std::string& id, const SchemaData& schema,
                                       CompatibilityStrategy strategy, TracePtr trace, VersionCallback done) {
    if (auto invalid = validateSchemaDefinition(*profile_, schema, allowLegacyJson_, fastPaths_)) {  // §4.10
        trace->add("§6.7", "SchemaDataValidator", [&] {
            return "invalid " + typeName(schema.type) + " definition -> " + *invalid;
        });
        done(BrokerError{RefusalKind::invalidSchemaData, *invalid});
        return;
    }
    auto put = std::make_shared<const PutRequest>(PutRequest{id, schema, strategy, std::move(trace), std::move(done)});
    scheduler_.post(StageRef{StageKind::registryRead, {}, id}, [this, put] { readAndDecide(put); });
}

void SchemaRegistry::readAndDecide(std::shared_ptr<const PutRequest> put) {
    const auto& id = put->id;
    auto seen = generationOf(id);
    auto d = decidePut(id, put->schema, put->strategy, *put->trace);
    switch (d.kind) {
        case Decision::Kind::existing: put->done(d.version); return;
        case Decision::Kind::reject: put->done(d.error); return;
        case Decision::Kind::append: break;
    }
    scheduler_.post(StageRef{StageKind::registryWrite, {}, id}, [this, put, seen] { write(put, seen); });
}

// §4.11: the locator update is conditional on the metadata version read with
// the decision. 2.10.3+/2.11+/3.0+ re-run the whole decision on conflict;
// older brokers retried only the write (duplicate versions, #18292).
void SchemaRegistry::write(std::shared_ptr<const PutRequest> put, std::uint64_t seen) {
    const auto& id = put->id;
    const auto& schema = put->schema;
    auto& trace = put->trace;
    if (generationOf(id) != seen && profile_->registryRetriesWholeDecision) {
        trace->add("§4.11", "putSchemaIfAbsent", "locator changed since the read -> re-run the decision");
        readAndDecide(std::move(put));
        return;
    }
    if (generationOf(id) != seen) {
        trace->add("§4.11", "putSchemaIfAbsent", "locator changed since the read -> retry the write only");
    }
    if (!profile_->pip44Registry) {
        if (auto existing = storageDedup(id, schema)) {
            trace->add("§4.4", "storage de-duplication (2.4)",
                       [&] {
                           return "same data hash as stored v" + std::to_string(*existing) +
                                  " -> that version, nothing appended";
                       });
            put->done(*existing);
            return;
        }
    }
    auto v = append(id, schema, false);
    trace->add("§4.1", "storage append", [&] {
        return "appended " + typeName(schema.type) + " as version " + std::to_string(v);
    });
    put->done(v);
}

// --- §4.8 auto-update disabled -------------------------------------------------

void SchemaRegistry::findExistingVersion(const std::string& id, const SchemaData& schema, TracePtr trace,
                                         VersionCallback done) {
    // It holds the schema: it goes to the heap, posted as a Continuation (Continuation::inPlace).
    scheduler_.post(StageRef{StageKind::registryRead, {}, id},
                    Continuation([this, id, schema, trace = std::move(trace), done = std::move(done)] {
        auto found = findEqualSchema(*profile_, liveList(id), schema, fastPaths_);
        if (found.error) {
            trace->add("§4.8", "auto-update disabled lookup", [&] {
                return "definition does not parse -> " + *found.error;
            });
            done(parseError(*found.error));
            return;
        }
        if (found.version) {
            trace->add("§4.8", "auto-update disabled lookup", [&] {
                return "equal to live v" + std::to_string(*found.version);
            });
            done(*found.version);
            return;
        }
        trace->add("§4.8", "auto-update disabled lookup", "no equal live schema -> refuse");
        done(incompatible("Schema not found and schema auto updating is disabled."));
    }));
}

// --- §4.7 consumer check ------------------------------------------------------

void SchemaRegistry::checkConsumerCompatibility(const std::string& id, const SchemaData& schema,
                                                CompatibilityStrategy strategy, TracePtr trace, CheckCallback done) {
    // It holds the schema: it goes to the heap, posted as a Continuation (Continuation::inPlace).
    scheduler_.post(StageRef{StageKind::registryRead, {}, id},
                    Continuation([this, id, schema, strategy, trace = std::move(trace), done = std::move(done)] {
        if (profile_->consumerAlwaysCompatibleShortcut && strategy == CompatibilityStrategy::ALWAYS_COMPATIBLE) {
            trace->add("§4.7", "checkConsumerCompatibility", "ALWAYS_COMPATIBLE -> pass (#12721)");
            done(std::nullopt);
            return;
        }
        if (!latest(id)) {
            trace->add("§4.7", "checkConsumerCompatibility", "no live schema -> Topic does not have schema to check");
            auto kind = profile_->activeTopicEmptySchemaMessage ? RefusalKind::schemaNotFound : RefusalKind::incompatibleSchema;
            done(BrokerError{kind, "Topic does not have schema to check"});
            return;
        }
        switch (strategy) {
            case CompatibilityStrategy::BACKWARD:
            case CompatibilityStrategy::FORWARD:
            case CompatibilityStrategy::FULL:
            case CompatibilityStrategy::FORWARD_TRANSITIVE:
                trace->add("§4.7", "checkConsumerCompatibility",
                           [&] { return strategyName(strategy) + " -> latest only, as BACKWARD reader"; });
                done(checkWithLatest(id, schema, CompatibilityStrategy::BACKWARD, *trace));
                return;
            case CompatibilityStrategy::UNDEFINED:
            case CompatibilityStrategy::ALWAYS_INCOMPATIBLE:
            case CompatibilityStrategy::ALWAYS_COMPATIBLE:
            case CompatibilityStrategy::BACKWARD_TRANSITIVE:
            case CompatibilityStrategy::FULL_TRANSITIVE:
                trace->add("§4.7", "checkConsumerCompatibility", [&] {
                    return strategyName(strategy) + " -> all live versions";
                });
                done(checkWithAll(id, schema, strategy, *trace));
                return;
        }
    }));
}

// --- §7.4 admin test-compatibility ---------------------------------------------

void SchemaRegistry::checkCompatible(const std::string& id, const SchemaData& schema, CompatibilityStrategy strategy,
                                     TracePtr trace, CheckCallback done) {
    if (auto invalid = validateSchemaDefinition(*profile_, schema, allowLegacyJson_, fastPaths_)) {
        trace->add("§6.7", "SchemaDataValidator", [&] {
            return "invalid " + typeName(schema.type) + " definition -> " + *invalid;
        });
        done(BrokerError{RefusalKind::invalidSchemaData, *invalid});
        return;
    }
    // It holds the schema: it goes to the heap, posted as a Continuation (Continuation::inPlace).
    scheduler_.post(StageRef{StageKind::registryRead, {}, id},
                    Continuation([this, id, schema, strategy, trace = std::move(trace), done = std::move(done)] {
        done(isTransitive(strategy) ? checkWithAll(id, schema, strategy, *trace)
                                    : checkWithLatest(id, schema, strategy, *trace));
    }));
}

}  // namespace cnx
