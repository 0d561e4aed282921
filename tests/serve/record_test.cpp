// `cnxsim serve --record` and `cnxsim record -o` through the real binary
// (issue 40, items 10, 11 and 14): the recording survives a SIGKILL, a target
// that cannot be written is refused before anything listens, and the broker's
// start settings are in the recording's header.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <filesystem>

#include "http_client.h"
#include "serve_commands.h"
#include "serve_files.h"

using namespace serve_test;
using namespace serve_test::cmd;

namespace {

namespace fs = std::filesystem;

pulsar::proto::Schema stringSchema() { return schema(pulsar::proto::Schema::String); }

}  // namespace

// Item 10: the file was written only when serve stopped on SIGINT/SIGTERM, so a
// SIGKILL (or a crash) lost the whole session. Now every step is in the file as
// it happens, and the file loads at every moment.
TEST_CASE("a serve --record session killed with SIGKILL leaves a recording that loads", "[serve][record]") {
    TempDir dir;
    auto file = dir.path / "session.yaml";
    ServeProcess server({"--admin-port", "0", "--record", file.string()});
    REQUIRE(server.port() != 0);
    Session s(server);
    auto opened = s.client.call(producer("persistent://public/default/orders", 1, 1, stringSchema(), std::string("p1")));
    REQUIRE(opened.type() == BaseCommand::PRODUCER_SUCCESS);
    for (std::uint64_t seq = 0; seq < 3; ++seq) sendOne(s.client, 1, metadata("p1", seq), "m");
    auto upload = call(server.adminPort(), http::verb::post, "/admin/v2/schemas/public/default/users/schema",
                       R"({"type":"STRING","schema":"","properties":{}})");
    REQUIRE(upload.status == 200);
    // While it runs: the steps so far, and the file lints.
    auto [status, out] = cnxsim("lint " + file.string());
    INFO(out << slurp(file));
    CHECK(status == 0);

    REQUIRE(server.stop(SIGKILL) == -1);
    std::tie(status, out) = cnxsim("lint " + file.string());
    auto text = slurp(file);
    INFO(out << text);
    CHECK(status == 0);
    CHECK(text.find("  - producer: { topic: orders, name: p1, schema: STRING }\n    expect: { schema_version: 0 }\n") !=
          std::string::npos);
    CHECK(text.find("  - publish: { producer: p1, count: 3 }\n    expect: ok\n") != std::string::npos);
    CHECK(text.find("  - upload-schema: { topic: users, schema: STRING }\n    expect: { schema_version: 0 }\n") !=
          std::string::npos);
    std::tie(status, out) = cnxsim("run --strict " + file.string());
    CHECK(status == 0);
}

// Item 11: a symbolic link and a read-only folder were accepted at start, and
// the session was lost when the file could not be written at the end.
TEST_CASE("serve --record and record -o refuse a symbolic link or a read-only folder before listening",
          "[serve][record]") {
    TempDir dir;
    auto real = dir.write("real.yaml", "# someone else's file\n");
    fs::create_symlink(real, dir.path / "link.yaml");
    fs::create_directory(dir.path / "ro");
    fs::permissions(dir.path / "ro", fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                         fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    const std::string link = (dir.path / "link.yaml").string(), readOnly = (dir.path / "ro" / "x.yaml").string();
    for (const auto& [target, why] : {std::pair{link, "symbolic link"}, {readOnly, "read-only"}}) {
        auto [status, out] = cnxsim("serve --port 0 --admin-port 0 --record " + target);
        INFO(out);
        CHECK(status == 2);
        CHECK_THAT(out, Catch::Contains("cnxsim serve: --record ") && Catch::Contains(why));
        CHECK_THAT(out, !Catch::Contains("ready:"));
        std::tie(status, out) = cnxsim("record --upstream 127.0.0.1:9 --listen 127.0.0.1:0 -o " + target);
        CHECK(status == 2);
        CHECK_THAT(out, Catch::Contains("cnxsim record: -o ") && Catch::Contains(why));
        CHECK_THAT(out, !Catch::Contains("ready:"));
    }
    CHECK(slurp(real) == "# someone else's file\n");
    CHECK(fs::is_empty(dir.path / "ro"));
}

// Item 14: --config and --set were not in the recording, so its replay ran
// under the default rules. Here isSchemaValidationEnforced (from --config)
// refuses a producer without a schema on a topic with one: the replay passes
// only with the setting in the header.
TEST_CASE("serve --record writes the --config and --set settings into the header", "[serve][record]") {
    TempDir dir;
    auto conf = dir.write("broker.conf", "isSchemaValidationEnforced=true\nisAllowAutoUpdateSchemaEnabled=true\n");
    auto setup = dir.write("setup.yaml", "steps:\n  - upload-schema: { topic: t, schema: STRING }\n");
    auto file = dir.path / "session.yaml";
    ServeProcess server({"--config", conf.string(), "--setup", setup.string(), "--set", "isAllowAutoUpdateSchemaEnabled=false",
                         "--record", file.string()});
    REQUIRE(server.port() != 0);
    Session s(server);
    auto refused = s.client.call(producer("persistent://public/default/t", 1, 1, std::nullopt, std::string("p1")));
    REQUIRE(refused.type() == BaseCommand::ERROR);
    CHECK(refused.error().error() == pulsar::proto::IncompatibleSchema);
    REQUIRE(server.stop() == 0);
    auto text = slurp(file);
    INFO(text);
    CHECK(text.find("broker:\n  version: ") != std::string::npos);
    CHECK(text.find("  config:\n    isSchemaValidationEnforced: true\n    isAllowAutoUpdateSchemaEnabled: false\n") !=
          std::string::npos);
    auto [status, out] = cnxsim("run --strict " + file.string());
    INFO(out);
    CHECK(status == 0);
}
