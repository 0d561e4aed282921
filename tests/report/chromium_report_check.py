#!/usr/bin/env python3
"""The HTML report in a real browser (issue 13): headless Chromium loads the
report of a failing run and the test fails on any console message or any
network request the page makes.

usage: chromium_report_check.py CNXSIM SCENARIO WORKDIR [--screenshot PNG]

Console messages: Chromium's --enable-logging=stderr prints each one as
`...:CONSOLE(line)] "text", source: URL`; the report holds no script, so any
such line is a failure. Network: --log-net-log records every URL request;
the host resolver maps every name to NOTFOUND so nothing leaves the machine,
and requests Chromium makes for itself (its update, time and account
services, *.google.com / *.googleapis.com / *.gvt1.com / *.gstatic.com) are
not the page's. Before judging the report, three self-checks prove the probe
can fail: a page with a deliberate console.error must be caught, a page with
an <img src=http://...> must be caught, and an empty page must pass.
Exit 77 (ctest SKIP_RETURN_CODE) when chromium is not installed.
"""
import json
import os
import re
import shutil
import subprocess
import sys

BROWSER_OWN = re.compile(r"^[a-z]+://([^/]*\.)?(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)(:\d+)?/")


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def load(browser, page, work, tag, screenshot=None):
    """(console lines, page network URLs, dumped DOM) of loading `page`."""
    netlog = os.path.join(work, tag + ".netlog.json")
    args = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-extensions", "--user-data-dir=" + os.path.join(work, "profile-" + tag),
            "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0",
            "--log-net-log=" + netlog]
    if screenshot:
        args += ["--window-size=1280,1800", "--hide-scrollbars", "--screenshot=" + screenshot]
    else:
        args += ["--dump-dom"]
    p = subprocess.run(args + ["file://" + os.path.abspath(page)], capture_output=True, text=True, timeout=120)
    console = [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
    urls = set()
    if os.path.exists(netlog):
        text = open(netlog, encoding="utf-8", errors="replace").read()
        for url in re.findall(r'"url":"([^"]*)"', text):
            if url.startswith(("http:", "https:", "ws:", "wss:", "ftp:")) and not BROWSER_OWN.match(url):
                urls.add(url)
    return console, sorted(urls), p.stdout


def static_problems(html):
    """External references a browser might fetch, found in the text itself."""
    found = []
    for pattern in (r"""(?:src|href|srcset|action|poster|data)\s*=\s*["']?\s*(?:[a-z]+:)?//""", r"url\(\s*['\"]?(?!#)", r"@import",
                    r"<link\b", r"<script\b[^>]*\bsrc", r"<iframe\b", r"<object\b", r"<embed\b"):
        for m in re.finditer(pattern, html, re.IGNORECASE):
            found.append(html[max(0, m.start() - 30):m.end() + 30].replace("\n", " "))
    return found


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    cnxsim, scenario, work = argv[1:4]
    screenshot = argv[argv.index("--screenshot") + 1] if "--screenshot" in argv else None
    browser = chromium()
    if not browser:
        print("SKIP: chromium is not installed (apt-get install chromium)")
        return 77
    os.makedirs(work, exist_ok=True)
    pages = {
        "console": '<!doctype html><meta charset="utf-8"><p>x</p><script>console.error("deliberate")</script>',
        "network": '<!doctype html><meta charset="utf-8"><img src="http://report-check.invalid/a.png">',
        "empty": '<!doctype html><meta charset="utf-8"><p>fine</p>',
    }
    for tag, text in pages.items():
        path = os.path.join(work, tag + ".html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        console, urls, _ = load(browser, path, work, tag)
        if tag == "console" and not console:
            print("FAIL: self-check: a page's console.error was not detected", file=sys.stderr)
            return 1
        if tag == "network" and not any("report-check.invalid" in u for u in urls):
            print("FAIL: self-check: a page's network request was not detected: " + repr(urls), file=sys.stderr)
            return 1
        if tag == "empty" and (console or urls):
            print("FAIL: self-check: an empty page reported " + repr(console + urls), file=sys.stderr)
            return 1
    report = os.path.join(work, "report.html")
    if os.path.exists(report):
        os.remove(report)
    p = subprocess.run([cnxsim, "run", scenario, "--report", report], capture_output=True, text=True, timeout=300)
    if p.returncode != 1 or not os.path.exists(report):
        print(f"FAIL: expected a failing run (exit 1) writing {report}, got {p.returncode}\n{p.stderr}", file=sys.stderr)
        return 1
    html = open(report, encoding="utf-8").read()
    problems = static_problems(html)
    if problems:
        print("FAIL: the report references external resources: " + repr(problems), file=sys.stderr)
        return 1
    console, urls, dom = load(browser, report, work, "report")
    if console or urls:
        print("FAIL: the report in Chromium: console " + repr(console) + " network " + repr(urls), file=sys.stderr)
        return 1
    for needle in ("<svg", "class=\"msg failing\"", "Failures", "Scenario × release line"):
        if needle not in dom:
            print("FAIL: the rendered report lacks " + needle, file=sys.stderr)
            return 1
    if screenshot:
        load(browser, report, work, "screenshot", screenshot)
        if not os.path.exists(screenshot):
            print("FAIL: no screenshot written", file=sys.stderr)
            return 1
    print(f"OK: {report} loads in Chromium with no console message and no network request")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
