// Issue 40 item 29: the reports' sequence diagrams. Labels are wrapped inside
// their arrow's span (sim/report/sequence_diagram.h wrapLabel), whole, with
// the full text in the tooltip; the browser-measured check of the same is the
// ctest report.labels-fit.

#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "sim/report/sequence_diagram.h"

namespace {

using cnx::sim::SequenceDiagram;
using cnx::sim::toSvg;
using cnx::sim::wrapLabel;

// Monospace cells of `s`, as wrapLabel counts them (the labels here are ASCII
// but for the marked characters).
std::size_t cells(const std::string& s) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto b = static_cast<unsigned char>(s[i]);
        if ((b & 0xC0) == 0x80) continue;  // a continuation byte
        n += b == 0xE4 ? 2 : 1;            // 0xE4: the CJK block U+4E00.. used below, two cells
    }
    return n;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += (out.empty() ? "" : " ") + l;
    return out;
}

}  // namespace

TEST_CASE("wrapLabel keeps short labels whole and breaks long ones at spaces", "[reports][diagram]") {
    CHECK(wrapLabel("ok", 20, 2) == std::vector<std::string>{"ok"});
    CHECK(wrapLabel("", 20, 2) == std::vector<std::string>{""});
    auto lines = wrapLabel("step 5 (producer): PRODUCER persistent://public/default/t", 24, 3);
    REQUIRE(lines.size() == 3);
    CHECK(lines[0] == "step 5 (producer):");
    CHECK(lines[1] == "PRODUCER");
    CHECK(lines[2] == "persistent://public/def\xe2\x80\xa6");
    for (const auto& l : lines) CHECK(cells(l) <= 24);
}

TEST_CASE("wrapLabel cuts a word longer than a line and ends a cut label with an ellipsis", "[reports][diagram]") {
    std::string word(100, 'x');
    auto lines = wrapLabel(word, 30, 2);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == std::string(30, 'x'));
    CHECK(lines[1] == std::string(29, 'x') + "\xe2\x80\xa6");
    auto fits = wrapLabel(std::string(60, 'y'), 30, 2);
    CHECK(fits == std::vector<std::string>{std::string(30, 'y'), std::string(30, 'y')});
    CHECK(joined(wrapLabel("a b c d e f g h", 3, 10)) == "a b c d e f g h");
}

TEST_CASE("wrapLabel counts wide characters as two cells and never splits a code point", "[reports][diagram]") {
    std::string wide;
    for (int i = 0; i < 20; ++i) wide += "\xe4\xb8\x80";  // U+4E00, two cells each
    auto lines = wrapLabel(wide, 11, 2);
    REQUIRE(lines.size() == 2);
    CHECK(cells(lines[0]) == 10);  // five characters: a sixth would take 12 cells
    CHECK(lines[0].size() == 15);
    CHECK(cells(lines[1]) <= 11);
    CHECK(lines[1].size() % 3 == 0);  // whole characters, then the 3-byte ellipsis
}

TEST_CASE("an SVG label stays inside its arrow's span and keeps the whole text as its title", "[reports][diagram]") {
    SequenceDiagram d;
    auto p = d.participant("producer p1");
    auto b = d.participant("broker");
    std::string label = "step 1 (producer): PRODUCER persistent://public/default/a-topic-with-a-long-name (user-v1)";
    d.add(p, b, label, false, false);
    d.add(b, p, "ok", true, false);
    auto svg = toSvg(d);
    CHECK(svg.find("<title>" + label + "</title>") != std::string::npos);
    // Adjacent lifelines are 190 px apart: with 6 px on each side and 7 px a
    // cell, a line holds at most 25 cells.
    std::regex tspan("<tspan x=\"\\d+\" y=\"\\d+\">([^<]*)</tspan>");
    std::vector<std::string> shown;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tspan); it != std::sregex_iterator(); ++it)
        shown.push_back((*it)[1]);
    REQUIRE(shown.size() == 3);  // two lines of the long label, one of "ok"
    for (const auto& line : shown) CHECK(cells(line) <= 25);
    CHECK(shown[2] == "ok");
    // The rows grow with their lines: the second arrow sits 30 px below the first, plus 13 per extra line.
    std::regex arrow("<line x1=\"\\d+\" y1=\"(\\d+)\" x2=\"\\d+\" y2=\"\\d+\" stroke=\"#333\"");
    std::vector<int> ys;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), arrow); it != std::sregex_iterator(); ++it)
        ys.push_back(std::stoi((*it)[1]));
    REQUIRE(ys.size() == 2);
    CHECK(ys[1] - ys[0] == 30);
    CHECK(ys[0] == 50 + 30 + 13);
}
