// The value of a key, read as its ValueSpec says.
#include "sim/scenario/load/document_loader.h"
#include "sim/scenario/load/names.h"

namespace cnx::sim::load {
namespace {

template <class T>
std::optional<FieldValue> asField(std::optional<T>&& v) {
    if (!v) return std::nullopt;
    // Built in place: a moved temporary variant trips GCC 12's -Wmaybe-uninitialized at -O3.
    return std::optional<FieldValue>(std::in_place, std::in_place_type<T>, std::move(*v));
}

}  // namespace

std::optional<FieldValue> DocumentLoader::readValue(const ValueSpec& spec, const Value& v) {
    switch (spec.kind) {
        case ValueKind::text: return asField(scalarOf(ctx_, v));
        case ValueKind::nonEmptyText: return asField(nonEmptyScalarOf(ctx_, v));
        case ValueKind::textList: return asField(scalarListOf(ctx_, v));
        case ValueKind::integer: return asField(integerOf(ctx_, v, spec.min, spec.max));
        case ValueKind::boolean: return asField(boolOf(ctx_, v));
        case ValueKind::choice: return asField(enumOf(ctx_, v, spec.choices(), spec.noun));
        case ValueKind::release: return asField(releaseOf(ctx_, v, spec.noun));
        case ValueKind::brokerVersion: return asField(brokerVersionOf(ctx_, v));
        case ValueKind::topic: return asField(topicOf(ctx_, v));
        case ValueKind::schema: return asField(schemaRefOf(v, spec.use));
        case ValueKind::properties: return asField(propertiesOf(v));
        case ValueKind::settings: return asField(settingsMapOf(ctx_, v, spec.scope));
        case ValueKind::producerName: return asField(knownName(v, producerNames_, "producer"));
        case ValueKind::client: return asField(clientOf(v));
        case ValueKind::schemaName:
        case ValueKind::section:
        case ValueKind::custom:
            break;  // read by the field's own binder
    }
    ctx_.error(v.pos, v.what + ": this key has no reader (a loader bug)");
    return std::nullopt;
}

}  // namespace cnx::sim::load
