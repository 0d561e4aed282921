// Issue 7 item 13: the JUnit XML was not well-formed when a scenario name (or
// a file name, a message, a trace) held invalid UTF-8 or characters XML 1.0
// forbids (U+FFFE, U+FFFF, most C0 controls). Every report must be valid
// UTF-8 whose every character is an XML 1.0 Char; the XML ones are also parsed
// by python3's xml.etree in the ctest cli.junit_hostile_names_well_formed.

#include <catch2/catch.hpp>

#include <cstdint>

#include "issue7_test_support.h"
#include "sim/report/reports.h"

namespace {

using namespace issue7;
using namespace cnx::sim;

// Decodes `s` as strict UTF-8 and checks every code point against XML 1.0's
// Char production; the first problem's byte offset, or npos.
std::size_t firstNonXmlChar(const std::string& s) {
    std::size_t i = 0;
    while (i < s.size()) {
        auto b = static_cast<unsigned char>(s[i]);
        std::size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
        if (len == 0 || i + len > s.size()) return i;
        std::uint32_t cp = len == 1 ? b : b & (0xFF >> (len + 1));
        for (std::size_t k = 1; k < len; ++k) {
            auto c = static_cast<unsigned char>(s[i + k]);
            if ((c & 0xC0) != 0x80) return i;
            cp = (cp << 6) | (c & 0x3F);
        }
        static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < kMin[len]) return i;  // overlong
        bool ok = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
                  (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
        if (!ok) return i;
        i += len;
    }
    return std::string::npos;
}

const std::string kHostile = std::string("bad \xff\xfe bytes, ") + "\xef\xbf\xbe" /* U+FFFE */ + " " +
                             "\xed\xa0\x80" /* a surrogate */ + " \x01\x1b ctl, \xc0\xaf overlong, <&\"'>";

struct Fixture {
    Scenario scenario;
    Step step;
    std::vector<ScenarioResult> results;

    Fixture() {
        scenario.name = kHostile;
        step.action = "producer";
        step.pos = {"f" + kHostile + ".yaml", 3, 5};
        ScenarioResult r;
        r.file = "f" + kHostile + ".yaml";
        r.scenario = &scenario;
        r.version = "4.2";
        r.passed = false;
        StepResult s;
        s.step = &step;  // labelled "step 1 (producer)"
        s.status = StepStatus::failed;
        s.why = "why: " + kHostile;
        s.observed = Observed::failure("IncompatibleSchema", "message: " + kHostile);
        s.observed.trace.add("§1.5", "rule", "trace: " + kHostile);
        Expect e;
        e.error = "IncompatibleSchema";
        e.message = kHostile;
        s.expected = e;
        r.steps.push_back(std::move(s));
        results.push_back(std::move(r));
    }
};

}  // namespace

TEST_CASE("JUnit XML is valid UTF-8 of XML characters whatever the names hold", "[reports][issue7]") {
    TempDir dir;
    Fixture f;
    auto file = dir / "junit.xml";
    REQUIRE_FALSE(writeJUnit(file.string(), f.results, 1));
    auto xml = readText(file);
    auto bad = firstNonXmlChar(xml);
    INFO("offset " << bad << ": " << (bad == std::string::npos ? "" : xml.substr(bad, 20)));
    CHECK(bad == std::string::npos);
    CHECK(xml.find("&lt;&amp;&quot;&apos;&gt;") != std::string::npos);  // markup is still escaped
    CHECK(xml.find("bad \xef\xbf\xbd") != std::string::npos);            // U+FFFD stands for a bad byte
}

TEST_CASE("HTML and Markdown reports are valid UTF-8 of XML characters", "[reports][issue7]") {
    TempDir dir;
    Fixture f;
    for (const char* name : {"report.html", "report.md"}) {
        auto file = dir / name;
        REQUIRE_FALSE(writeReport(file.string(), f.results, 1));
        auto text = readText(file);
        auto bad = firstNonXmlChar(text);
        INFO(name << " offset " << bad);
        CHECK(bad == std::string::npos);
    }
}

TEST_CASE("a Markdown failure block cannot close its own code fence", "[reports][issue7]") {
    TempDir dir;
    Fixture f;
    f.results[0].steps[0].why = "a message with ``` inside";
    auto file = dir / "report.md";
    REQUIRE_FALSE(writeReport(file.string(), f.results, 1));
    auto text = readText(file);
    INFO(text);
    CHECK(text.find("\n````\n") != std::string::npos);  // the fence is longer than any backtick run inside
}
