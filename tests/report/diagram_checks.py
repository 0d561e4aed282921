#!/usr/bin/env python3
"""The reports' diagrams and matrix (issue 40 item 29), on a failing run of
tests/report/close-long-labels.yaml (broker.version "4.2").

usage: diagram_checks.py CHECK CNXSIM SCENARIO WORKDIR

CHECK is one of
- close-lifeline: in the Markdown report's mermaid diagram, each `close`
  step is sent from the lifeline of the producer or consumer it closes
  (`producer NAME`, `consumer NAME`), and no lifeline is named after the
  bare name; the same in the HTML report's SVG (its participant titles);
- exact-release: the matrix of both reports names the exact release the run
  modelled (4.2.5), never the line the scenario asked for (4.2);
- labels-fit: the HTML report in headless Chromium (exit 77 when chromium is
  not installed): every message label's box lies between the lifelines its
  arrow joins, above its own arrow and below the arrow before it, and every
  participant name inside its box; a label shown shortened carries the whole
  text in its group's <title>. The boxes are measured by Chromium (getBBox),
  not estimated.
"""
import html
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chromium_report_check as chromium_check  # noqa: E402  (the same headless Chromium)


def fail(what, detail=""):
    print("FAIL: " + what + ("\n" + detail if detail else ""), file=sys.stderr)
    return 1


def report(cnxsim, scenario, work, name):
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, name)
    if os.path.exists(path):
        os.remove(path)
    p = subprocess.run([cnxsim, "run", scenario, "--report", path], capture_output=True, text=True, timeout=300)
    if p.returncode != 1 or not os.path.exists(path):
        raise SystemExit(fail(f"expected a failing run (exit 1) writing {path}, got {p.returncode}", p.stdout + p.stderr))
    return open(path, encoding="utf-8").read()


def unmermaid(text):
    return re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), text).replace("#lt;", "<").replace("#gt;", ">") \
        .replace("#quot;", '"')


def check_close_lifeline(cnxsim, scenario, work):
    md = report(cnxsim, scenario, work, "report.md")
    blocks = re.findall(r"```mermaid\n(.*?)```", md, re.S)
    if len(blocks) != 1:
        return fail("one mermaid diagram", md)
    participants = dict(re.findall(r"^    participant (P\d+) as (.*)$", blocks[0], re.M))
    names = {v: k for k, v in participants.items()}
    for bare in ("orders-producer-with-a-long-name", "audit-consumer"):
        if bare in names:
            return fail(f"a lifeline of its own for the closed name {bare!r}", blocks[0])
    closes = re.findall(r"^    (P\d+)->>(P\d+): (.*)$", blocks[0], re.M)
    expected = {"CLOSE orders-producer-with-a-long-name": "producer orders-producer-with-a-long-name",
                "CLOSE audit-consumer": "consumer audit-consumer"}
    seen = {}
    for sender, _, label in closes:
        text = unmermaid(label.replace("<br/>", " "))
        for what, lifeline in expected.items():
            if what in text:
                seen[what] = participants.get(sender)
    if seen != expected:
        return fail("each close is sent from its producer's or consumer's lifeline: " + repr(seen), blocks[0])
    page = report(cnxsim, scenario, work, "report.html")
    titles = [html.unescape(t) for t in re.findall(r"<g><title>([^<]*)</title><rect", page)]
    if any(t in ("orders-producer-with-a-long-name", "audit-consumer") for t in titles) or \
            "producer orders-producer-with-a-long-name" not in titles:
        return fail("the SVG's lifelines: " + repr(titles))
    print("OK")
    return 0


def check_exact_release(cnxsim, scenario, work):
    md = report(cnxsim, scenario, work, "report.md")
    table = md[md.index("## Scenario × release line"):]
    rows = [l for l in table.splitlines() if "report: close steps" in l]
    if len(rows) != 1 or "FAIL 4.2.5" not in rows[0] or re.search(r"FAIL 4\.2( |,|\|)", rows[0]):
        return fail("the Markdown matrix cell names the exact release 4.2.5", table)
    page = report(cnxsim, scenario, work, "report.html")
    cells = re.findall(r"<li>([^<]*)</li>", page[page.index("Scenario × release line"):])
    if cells != ["4.2.5 FAIL"]:
        return fail("the HTML matrix cell names the exact release 4.2.5: " + repr(cells))
    print("OK")
    return 0


MEASURE = r"""
<script>
const out = [];
for (const svg of document.querySelectorAll("svg.seq")) {
  const lifelines = [...svg.querySelectorAll(":scope > line")].map(l => +l.getAttribute("x1"));
  for (const g of svg.querySelectorAll(":scope > g")) {
    const text = g.querySelector("text"), title = g.querySelector("title");
    const b = text.getBBox();
    const item = {title: title ? title.textContent : "", shown: [...text.querySelectorAll("tspan")].map(t => t.textContent),
                  x: b.x, y: b.y, w: b.width, h: b.height};
    if (g.classList.contains("msg")) {
      const line = g.querySelector("line");
      item.kind = "msg";
      if (line) { item.x1 = +line.getAttribute("x1"); item.x2 = +line.getAttribute("x2"); item.ay = +line.getAttribute("y1"); }
    } else {
      const r = g.querySelector("rect");
      item.kind = "participant";
      item.rx = +r.getAttribute("x"); item.rw = +r.getAttribute("width");
    }
    out.push(item);
  }
  out.push({kind: "lifelines", xs: lifelines});
}
const pre = document.createElement("pre");
pre.id = "measured";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""


def check_labels_fit(cnxsim, scenario, work):
    browser = chromium_check.chromium()
    if not browser:
        print("SKIP: chromium is not installed (apt-get install chromium)")
        return 77
    page = report(cnxsim, scenario, work, "report.html")
    svgs = re.findall(r"<svg .*?</svg>", page, re.S)
    if not svgs:
        return fail("the HTML report has no diagram")
    probe = os.path.join(work, "measure.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write('<!doctype html><html><head><meta charset="utf-8"></head><body>' + "\n".join(svgs) + MEASURE +
                "</body></html>")
    console, urls, dom = chromium_check.load(browser, probe, work, "measure")
    m = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    if not m:
        return fail("Chromium did not measure the diagram", dom[-2000:] + repr(console))
    items = json.loads(html.unescape(m.group(1)))
    problems, previous_arrow, messages = [], None, 0
    for it in items:
        if it["kind"] == "lifelines":
            previous_arrow = None
            continue
        label = " / ".join(it["shown"]) if it["shown"] else it["title"]
        if it["kind"] == "participant":
            if it["x"] < it["rx"] or it["x"] + it["w"] > it["rx"] + it["rw"]:
                problems.append(f"participant {label!r} ({it['x']:.0f}..{it['x'] + it['w']:.0f}) outside its box "
                                f"({it['rx']}..{it['rx'] + it['rw']})")
            continue
        messages += 1
        if "x1" not in it:
            continue  # a message to itself: none in this scenario
        left, right = min(it["x1"], it["x2"]), max(it["x1"], it["x2"])
        if it["x"] < left or it["x"] + it["w"] > right:
            problems.append(f"label {label!r} ({it['x']:.0f}..{it['x'] + it['w']:.0f}) runs past its arrow's "
                            f"lifelines ({left}..{right})")
        if it["y"] + it["h"] > it["ay"] + 1:
            problems.append(f"label {label!r} reaches below its own arrow (y {it['ay']})")
        if previous_arrow is not None and it["y"] < previous_arrow:
            problems.append(f"label {label!r} reaches above the arrow before it (y {previous_arrow})")
        previous_arrow = it["ay"]
        shown = "".join(it["shown"])
        shown = shown[:-1] if shown.endswith("\u2026") and not it["title"].endswith(shown[-20:]) else shown
        if "".join(shown.split()) not in "".join(it["title"].split()):
            problems.append(f"label {label!r} is not a part of its title {it['title']!r}")
    if messages < 10:
        return fail(f"only {messages} messages measured")
    if problems:
        return fail(f"{len(problems)} layout problem(s):", "\n".join(problems))
    print(f"OK: {messages} labels measured")
    return 0


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    check, cnxsim, scenario, work = argv[1:]
    checks = {"close-lifeline": check_close_lifeline, "exact-release": check_exact_release,
              "labels-fit": check_labels_fit}
    if check not in checks:
        print(__doc__, file=sys.stderr)
        return 2
    return checks[check](cnxsim, scenario, work)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
