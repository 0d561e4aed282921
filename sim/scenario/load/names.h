#pragma once
// Names with a grammar of their own: releases, broker versions, topics,
// namespaces and the version ranges of per-version expectations.

#include <optional>
#include <string>
#include <string_view>

#include "sim/scenario/load/yaml_node.h"

namespace cnx::sim::load {

std::optional<std::string> releaseOf(Ctx& ctx, const Value& v, std::string_view noun);
/// A release that has a behaviour profile.
std::optional<std::string> brokerVersionOf(Ctx& ctx, const Value& v);
/// A topic name, expanded to its full form.
std::optional<std::string> topicOf(Ctx& ctx, const Value& v);
std::optional<std::string> namespaceOf(Ctx& ctx, const std::string& text, const SourcePos& at);
/// A tenant name: one segment of a namespace name (no '/').
std::optional<std::string> tenantOf(Ctx& ctx, const std::string& text, const SourcePos& at);

std::optional<VersionRange> parseRange(std::string_view text);
bool looksLikeRange(std::string_view key);

}  // namespace cnx::sim::load
