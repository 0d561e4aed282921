#!/usr/bin/env python3
"""Checks that every relative Markdown link in the given files resolves to a file
in the repository (and, for links into .md files with a #fragment, to a heading).
Usage: check_doc_links.py REPO FILE.md...   Exit 1 on any broken or external link
(a fresh clone has nothing outside the repository: no shared/, no web)."""
import re, sys, os, subprocess

def slug(h):
    h = re.sub(r'`', '', h.strip()).lower()
    h = re.sub(r'[^\w\- ]', '', h)          # GitHub: drop punctuation, keep - _ and spaces
    return h.replace(' ', '-')

def anchors(path):
    out, seen, fence = set(), {}, False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            fence = not fence
        if fence: continue
        m = re.match(r'#{1,6}\s+(.*)', line)
        if m:
            s = slug(m.group(1)); n = seen.get(s, 0); seen[s] = n + 1
            out.add(s if n == 0 else f'{s}-{n}')
    return out

repo = os.path.abspath(sys.argv[1])
tracked = set(subprocess.run(['git', '-C', repo, 'ls-files'], capture_output=True, text=True).stdout.split())
bad = total = 0
for f in sys.argv[2:]:
    text = open(f, encoding='utf-8').read()
    text = re.sub(r'```.*?```', '', text, flags=re.S)       # links inside code blocks are not links
    for m in re.finditer(r'\[[^\]]*\]\(([^)\s]+)\)', text):
        target = m.group(1)
        if re.match(r'[a-z]+:', target): 
            print(f'{f}: external link {target}'); bad += 1; continue
        total += 1
        path, _, frag = target.partition('#')
        full = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(f)), path)) if path else os.path.abspath(f)
        rel = os.path.relpath(full, repo)
        ok = rel in tracked or (os.path.isdir(full) and any(t.startswith(rel + '/') for t in tracked))
        if not ok:
            print(f'{f}: {target}: {rel} is not a file in the repository'); bad += 1; continue
        if frag and full.endswith('.md') and frag not in anchors(full):
            print(f'{f}: {target}: no heading #{frag} in {rel}'); bad += 1
print(f'{total} relative link(s) checked, {bad} problem(s)')
sys.exit(1 if bad else 0)
