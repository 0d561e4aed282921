// The behaviour profiles (reference §10), as data. Each switch's meaning and
// the PR that introduced it are documented on the field in profile.h.
#include <array>
#include <vector>

#include "broker_model/profile.h"

namespace cnx {
namespace {

// P42: 4.1.x - 4.2.0, the newest release line (§10). Newest behaviour of
// every section; the defaults of BehaviourProfile are this profile.
BehaviourProfile makeP42() {
    BehaviourProfile p;
    p.name = "P42";
    p.releases = "4.1.0 - 4.2.0";
    p.first = {4, 1, 0};
    p.last = {4, 2, 0};
    p.serverVersion = "4.2.0";
    p.maxProtocolVersion = 21;
    // §1.3, #23344 (4.0.0): two Java literals concatenated without a space.
    p.producerWithoutSchemaMessage =
        "Producers cannot connect or send message without a schema to topics with a schemawhen "
        "SchemaValidationEnforced is enabled";
    p.checkOptions.avro = compat::AvroVersion::v1_12_0;        // #24617 (4.1.0)
    p.checkOptions.jsonAllowLegacyJacksonFormat = false;       // PIP-464 (4.2.0); broker key overrides
    p.checkOptions.avroNamesAllowDollar = true;                // #25193, #25255 (4.2.0)
    return p;
}

const std::vector<BehaviourProfile>& profiles() {
    static const std::vector<BehaviourProfile> all{makeP42()};
    return all;
}

bool covers(const BehaviourProfile& p, const ReleaseVersion& v) {
    if (v.patch < 0) {
        // A release line ("4.2") is covered by the profile holding its newest patch.
        ReleaseVersion line{v.major, v.minor, -1};
        ReleaseVersion firstLine{p.first.major, p.first.minor, -1};
        ReleaseVersion lastLine{p.last.major, p.last.minor, -1};
        return firstLine <= line && line <= lastLine;
    }
    return p.first <= v && v <= p.last;
}

}  // namespace

std::span<const BehaviourProfile> allProfiles() { return profiles(); }

const BehaviourProfile& newestProfile() { return profiles().back(); }

const BehaviourProfile* profileFor(std::string_view version, std::string* error) {
    auto v = ReleaseVersion::parse(version);
    if (!v) {
        if (error) *error = "'" + std::string(version) + "' is not a Pulsar release number (expected e.g. \"4.2\" or \"4.2.0\")";
        return nullptr;
    }
    // Newest first, so that a line spanning two profiles resolves to its newest patch.
    const auto& all = profiles();
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
        if (covers(*it, *v)) return &*it;
    }
    if (error) {
        std::string known;
        for (const auto& p : all) known += (known.empty() ? "" : ", ") + p.releases;
        *error = "no behaviour profile models Pulsar " + v->toString() + " (modelled releases: " + known + ")";
    }
    return nullptr;
}

}  // namespace cnx
