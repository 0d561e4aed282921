#include "broker_model/runtime/stage.h"

namespace cnx {

std::string_view to_string_view(StageKind kind) {
    switch (kind) {
        case StageKind::topicLoad: return "topic load";
        case StageKind::schemaLookup: return "schema lookup";
        case StageKind::registryRead: return "registry read";
        case StageKind::registryWrite: return "registry write";
        case StageKind::subscribe: return "subscribe";
        case StageKind::delivery: return "delivery";
        case StageKind::authRefresh: return "auth refresh";
    }
    return "unknown stage";
}

std::string describe(const Stage& stage) {
    std::string out = stage.origin.connection == 0
                          ? std::string("admin")
                          : "cnx " + std::to_string(stage.origin.connection) + " req " +
                                std::to_string(stage.origin.request);
    out += ": ";
    out += to_string_view(stage.kind);
    const std::string& on = stage.schemaId.empty() ? stage.topic : stage.schemaId;
    if (!on.empty()) out += " " + on;
    return out;
}

}  // namespace cnx
