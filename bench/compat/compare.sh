#!/usr/bin/env bash
# Our AVRO checker against Avro Java 1.8.2 (Debian's libavro-java) on the
# same generated inputs (issue 3 "Speed"). Builds bench_compat (Release),
# writes the cases to files once, runs bench_compat and the Java harness
# (java/CompatBench.java, compiled here with javac) on those files, and
# prints a Markdown table of ns/op and the ratio Java / ours per case.
#
# usage: bench/compat/compare.sh [CASE-SUBSTRING]
# env:   BUILD_DIR (default /tmp/cnxsim-bench-compat), JAVA_SECONDS per case
#        and variant (default 2), BENCH_MIN_TIME for Google Benchmark per
#        repetition (default 0.2), BENCH_REPETITIONS (default 5)
#
# Times are CPU time of the benchmarking thread on both sides (Google
# Benchmark's cpu_time; ThreadMXBean in the JVM), so other load on the
# machine does not distort the ratio; wall-clock figures are in the raw files.
# Both sides report the median of five timed runs (the Java harness times five
# batches after its warm-up; ours runs five repetitions), so that one slow
# moment of the machine on either side does not set a case's ratio.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-/tmp/cnxsim-bench-compat}
seconds=${JAVA_SECONDS:-2}
min_time=${BENCH_MIN_TIME:-0.2}
repetitions=${BENCH_REPETITIONS:-5}
filter=${1:-}

# --- build bench_compat ---------------------------------------------------------
cmake_args=(-S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCNXSIM_BUILD_TESTS=OFF)
cmake "${cmake_args[@]}" >/dev/null
ninja -C "$build" bench_compat >/dev/null
bench="$build/bench/compat/bench_compat"

# --- the inputs, written once, read by both sides ------------------------------
inputs="$build/compat-inputs"
rm -rf "$inputs"
"$bench" --write-inputs="$inputs"

# --- the Java harness -------------------------------------------------------------
jar() {  # package, jar name: the jar as the Debian package installed it
  local path
  path=$(dpkg -L "$1" 2>/dev/null | grep -E "/usr/share/java/$2\.jar$" | head -n1 || true)
  if [[ -z "$path" ]]; then echo "compare.sh: $2.jar not found (apt-get install $1)" >&2; exit 2; fi
  echo "$path"
}
cp="$(jar libavro-java avro):$(jar libjackson-json-java jackson-core-asl):$(jar libjackson-json-java jackson-mapper-asl)"
cp="$cp:$(jar libparanamer-java paranamer):$(jar libcommons-compress-java commons-compress)"
cp="$cp:$(jar libslf4j-java slf4j-api):$(jar libslf4j-java slf4j-nop)"
classes="$build/compat-java"
mkdir -p "$classes"
javac -nowarn -cp "$cp" -d "$classes" "$here/java/CompatBench.java"

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2

# --- run: ours, then Java (never at the same time) --------------------------------
gb_filter=${filter:+--benchmark_filter=$filter}
"$bench" --inputs="$inputs" ${gb_filter:+"$gb_filter"} --benchmark_min_time="$min_time" \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
  --benchmark_out="$build/ours.json" --benchmark_out_format=json >&2
java -Xss64m -Xmx3g -cp "$cp:$classes" CompatBench "$inputs" "$seconds" "$filter" | tee "$build/java.tsv" >&2

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# --- the table ----------------------------------------------------------------------
python3 - "$build/ours.json" "$build/java.tsv" "$inputs/manifest.txt" <<'PY'
import json, sys

ours_file, java_file, manifest = sys.argv[1:4]
scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
ours = {}
for b in json.load(open(ours_file))["benchmarks"]:
    if b.get("error_occurred"):
        continue
    # With repetitions, the median of them; with one, the run itself.
    if b.get("run_type") == "aggregate":
        if b.get("aggregate_name") != "median":
            continue
        name = b["run_name"]
    else:
        name = b["name"]
    ours[name] = b["cpu_time"] * scale[b.get("time_unit", "ns")]
java = {}
for line in open(java_file):
    cols = line.rstrip("\n").split("\t")
    if len(cols) == 5:
        java[cols[0]] = (float(cols[2]), float(cols[4]))  # CPU: reparse, preparsed
cases = [l.split("\t")[:4] for l in open(manifest) if l.strip()]

def ns(x):
    if x is None: return "-"
    if x >= 1e6: return f"{x / 1e6:,.2f} ms"
    if x >= 1e3: return f"{x / 1e3:,.1f} µs"
    return f"{x:,.0f} ns"

def ratio(a, b):
    return f"{a / b:,.1f}×" if a and b else "-"

print("| case | ours (Avro 1.12 rules) | ours (1.8.2 rules) | Java 1.8.2, re-parse (Pulsar's way) | Java / ours | "
      "Java 1.8.2, pre-parsed | Java / ours | ours incl. parsing | Java re-parse / ours incl. parsing |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
misses = []
for name, strategy, group, size in cases:
    a = ours.get(f"BM_Check/avro1.12/{name}")
    b = ours.get(f"BM_Check/avro1.8.2/{name}")
    p = ours.get(f"BM_Cold/avro1.12/{name}")
    j = java.get(name)
    if a is None and j is None:
        continue
    jr, jp = j if j else (None, None)
    full = p
    if a and jr and jr / a < 10:
        misses.append(name)
    print(f"| {name} | {ns(a)} | {ns(b)} | {ns(jr)} | {ratio(jr, a)} | {ns(jp)} | {ratio(jp, a)} | {ns(full)} | {ratio(jr, full)} |")
print()
print("CPU time per check of the benchmarking thread. 'ours': the cached steady state (parsed schemas are")
print("cached per definition text; the broker re-parses every version on every check). 'ours incl. parsing':")
print("the same check with the parse cache emptied before each call (BM_Cold): every schema parsed, as on first sight.")
print("Cases below the 10× target (Java re-parse / ours): " + (", ".join(misses) if misses else "none"))

# --- growth: each figure at 10x and 100x the case size ----------------------------
# Input size is the bytes of every definition of the case (existing + new), so
# a linear cost grows by the same factor as the input: record_fields_N and
# history_flat_V grow linearly in N / V; history_V's input is quadratic in V
# (version k has 10 + k fields), hence the per-KB column.
import os, re
inputs_dir = os.path.dirname(manifest)
def input_bytes(files):
    return sum(os.path.getsize(os.path.join(inputs_dir, f)) for f in files)
series = {}
for line in open(manifest):
    cols = line.rstrip("\n").split("\t")
    if len(cols) < 5:
        continue
    name, strategy, group, size = cols[:4]
    m = re.match(r"([a-z_]+?)_(\d+)/", name)
    if not m:
        continue
    series.setdefault((m.group(1), strategy), []).append((int(size), name, input_bytes(cols[4:])))
rows = []
for (base, strategy), cs in series.items():
    cs.sort()
    for i, (n, name, nbytes) in enumerate(cs):
        for (m2, name2, bytes2) in cs[i + 1:]:
            if m2 not in (10 * n, 100 * n):
                continue
            fa = ours.get(f"BM_Cold/avro1.12/{name}")
            fb = ours.get(f"BM_Cold/avro1.12/{name2}")
            if not (fa and fb):
                continue
            ja, jb = (java.get(name) or (None, None))[0], (java.get(name2) or (None, None))[0]
            jg = f"{jb / ja:,.1f}×" if ja and jb else "-"
            rows.append(f"| {base}/{strategy} | {n:,} → {m2:,} (×{m2 // n}) | ×{bytes2 / nbytes:,.1f} | {ns(fa)} → {ns(fb)} | "
                        f"×{fb / fa:,.1f} | {fa / nbytes * 1024:,.0f} → {fb / bytes2 * 1024:,.0f} ns | ×{(fb / fa) / (bytes2 / nbytes):,.2f} | {jg} |")
if rows:
    print()
    print("Growth of 'ours incl. parsing' at 10× and 100× the case size (input = bytes of all the case's definitions;")
    print("history_V's input is quadratic in V: version k has 10 + k fields; history_flat_V's is linear):")
    print()
    print("| series | size | input × | ours incl. parsing | growth × | per input KB | growth ÷ input growth | Java re-parse growth × |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(r)
PY
