#!/usr/bin/env python3
"""Race acceptance checks (issue 12), each a ctest:

  replay    a wrong `outcomes` list fails naming the unallowed outcome; its
            replay line, run as printed, reproduces that outcome's schedule
            and trace byte for byte.
  seeded    a random exploration run twice prints the same thing.
  shards    --shard K/N --shard-by interleavings: the shards of an exhaustive
            race together reach exactly the unsharded outcomes and explore as
            many schedules.
usage: race_checks.py CHECK CNXSIM DIR
"""
import re
import shlex
import subprocess
import sys


def run(cmd, cwd, stdout_only=False):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout if stdout_only else p.stdout + p.stderr


def fail(msg, out=""):
    print("FAIL:", msg)
    if out:
        print(out)
    sys.exit(1)


def outcome_blocks(out):
    """The detail block under each NOT ALLOWED outcome: schedule, replay, trace."""
    blocks, cur = [], None
    for line in out.splitlines():
        if re.match(r"^    outcome \[.*NOT ALLOWED", line):
            cur = [line.split(":")[0]]
            blocks.append(cur)
            continue
        if cur is not None:
            if line.startswith("      "):
                cur.append(line)
            else:
                cur = None
    return ["\n".join(b) for b in blocks]


def replay(cnxsim, d):
    status, out = run([cnxsim, "run", "wrong-outcomes.yaml"], d)
    if status != 1:
        fail("wrong outcomes should exit 1, got %d" % status, out)
    if "is not allowed" not in out:
        fail("the failure does not name the unallowed outcome", out)
    blocks = outcome_blocks(out)
    if not blocks:
        fail("no NOT ALLOWED outcome block", out)
    for block in blocks:
        m = re.search(r"replay: (cnxsim run .*)", block)
        if not m:
            fail("no replay line in\n" + block)
        args = shlex.split(m.group(1))[1:]
        status2, out2 = run([cnxsim] + args, d)
        if status2 != 1:
            fail("the replay should fail too, got %d" % status2, out2)
        again = outcome_blocks(out2)
        if again != [block]:
            fail("the replay did not reproduce the block byte for byte:\n--- exploration\n%s\n--- replay\n%s"
                 % (block, "\n".join(again)))
        if "explored: the schedule" not in out2:
            fail("the replay ran more than its schedule", out2)
    print("replayed %d failing outcome(s) exactly" % len(blocks))


def seeded(cnxsim, d):
    # What cnxsim prints; stderr may carry a sanitizer's one-time notice with its pid
    # ("ASan doesn't fully support makecontext/swapcontext"), which differs per process.
    first = run([cnxsim, "run", "random-exploration.yaml"], d, stdout_only=True)
    second = run([cnxsim, "run", "random-exploration.yaml"], d, stdout_only=True)
    if first != second:
        fail("two runs of the same random exploration differ:\n%s\n---\n%s" % (first[1], second[1]))
    if first[0] != 1 or "random 60 (seed 11)" not in first[1]:
        fail("expected the duplicate versions to be found by the random exploration", first[1])
    print("same output twice (%d lines)" % len(first[1].splitlines()))


def shards(cnxsim, d):
    def explored(out):
        m = re.search(r"explored: [^:]*: (\d+) schedules?", out)
        if not m:
            fail("no exploration summary", out)
        return int(m.group(1))

    def outcomes(out):
        return sorted({re.sub(r", \d+ schedules?$", "", l).replace("NOT ALLOWED", "").strip()
                       for l in out.splitlines() if l.startswith("    outcome [")})

    status, whole = run([cnxsim, "run", "wrong-outcomes.yaml"], d)
    total, union, parts = explored(whole), set(), 0
    for k in (1, 2, 3):
        status, out = run([cnxsim, "run", "wrong-outcomes.yaml", "--shard", "%d/3" % k, "--shard-by", "interleavings"], d)
        if "shard %d/3 of the interleavings" % k not in out:
            fail("shard %d did not split the race" % k, out)
        parts += explored(out)
        union |= set(outcomes(out))
    if sorted(union) != outcomes(whole):
        fail("the shards reach %s, the whole exploration %s" % (sorted(union), outcomes(whole)))
    if parts != total:
        fail("the shards explored %d schedules, the whole exploration %d" % (parts, total))
    print("3 shards: %d schedules, %d outcomes, as unsharded" % (parts, len(union)))


if __name__ == "__main__":
    check, cnxsim, d = sys.argv[1:4]
    {"replay": replay, "seeded": seeded, "shards": shards}[check](cnxsim, d)
