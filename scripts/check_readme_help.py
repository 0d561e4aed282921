#!/usr/bin/env python3
"""Checks that README's copy of `cnxsim help COMMAND` is the program's text.

usage: check_readme_help.py CNXSIM README.md COMMAND|-

The copy is the fenced block right after the line
`<!-- cnxsim help COMMAND -->` (with -, `<!-- cnxsim help -->` and the
top-level `cnxsim help`). Exit 0 when it equals the output, 1 (with a
diff) when it does not, 2 when the marker or the block is missing.
"""
import difflib
import subprocess
import sys


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    cnxsim, readme, command = argv[1:]
    words = [] if command == "-" else [command]
    shown = " ".join(["cnxsim help"] + words)
    lines = open(readme, encoding="utf-8").read().split("\n")
    marker = f"<!-- {shown} -->"
    try:
        at = lines.index(marker)
    except ValueError:
        print(f"{readme}: no line {marker!r}", file=sys.stderr)
        return 2
    if at + 1 >= len(lines) or not lines[at + 1].startswith("```"):
        print(f"{readme}:{at + 2}: expected a fenced block after {marker!r}", file=sys.stderr)
        return 2
    try:
        end = lines.index("```", at + 2)
    except ValueError:
        print(f"{readme}:{at + 2}: the fenced block does not end", file=sys.stderr)
        return 2
    copy = lines[at + 2:end]
    actual = subprocess.run([cnxsim, "help"] + words, capture_output=True, text=True, timeout=30).stdout
    actual_lines = actual.rstrip("\n").split("\n")
    if copy == actual_lines:
        return 0
    print(f"{readme}:{at + 3}: the copy of `{shown}` differs from the program's:", file=sys.stderr)
    sys.stderr.writelines(l + "\n" for l in difflib.unified_diff(copy, actual_lines, "README.md", shown, lineterm=""))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
