#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan + fuzzer coverage) in
# build-fuzz/ and runs them.
#
#   tests/fuzz/run.sh [--seconds N | --runs N] [--jobs J] [TARGET...]
#
# --seconds N   run each target N seconds (default 60)
# --runs N      run each target exactly N inputs from seed 1 (deterministic:
#               what CI uses, so a green run stays green)
# --jobs J      targets run J at a time (default 1)
# TARGET        loader, avro, protobuf_native, wire (default: all)
#
# Each target starts from its checked-in corpus and regression inputs, plus
# what earlier runs found (build-fuzz/corpus/TARGET, not committed). A finding
# is written to build-fuzz/findings/TARGET/ and fails the run (exit 1): minimise
# it (fuzz_TARGET -minimize_crash=1 FILE) and check it in under
# tests/fuzz/regressions/TARGET/ with the fix. Limits per input: 2 s and 2 GiB.
set -euo pipefail
cd "$(dirname "$0")/../.."

mode=(-max_total_time=60)
jobs=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) mode=(-max_total_time="$2"); shift 2 ;;
    --runs) mode=(-runs="$2" -seed=1); shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    loader|avro|protobuf_native|wire) targets+=("$1"); shift ;;
    *) echo "usage: tests/fuzz/run.sh [--seconds N | --runs N] [--jobs J] [TARGET...]" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(loader avro protobuf_native wire)

if ! command -v clang++ >/dev/null; then
  echo "tests/fuzz/run.sh: clang++ is not installed (Debian: clang, libclang-rt-14-dev)" >&2
  exit 2
fi

# -O1 with line tables, as libFuzzer's docs suggest with ASan: findings keep
# file:line stacks, and the build is a fifth quicker than -O2 -g (CI builds it
# on every run).
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
      -DCNXSIM_SANITIZE=ON -DCNXSIM_FUZZ=ON -DCNXSIM_BUILD_BENCH=OFF >/dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
cmake --build build-fuzz -j "${CNXSIM_BUILD_JOBS:-$(nproc)}" --target "${build_targets[@]}"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

run_one() {
  local t="$1" corpus="build-fuzz/corpus/$1" findings="build-fuzz/findings/$1"
  mkdir -p "$corpus" "$findings"
  local seeds=("tests/fuzz/regressions/$t")
  [ -d "tests/fuzz/corpus/$t" ] && seeds+=("tests/fuzz/corpus/$t")
  [ "$t" = loader ] && seeds+=(scenarios)
  local log="build-fuzz/fuzz-$t.log" started
  started=$(date +%s)
  # -timeout is wall-clock time per input: 10 s still stops a hang, and leaves room for a
  # 64 KB input under ASan and libFuzzer's instrumentation (about 2 s of CPU for a chain of
  # 3,000 records) on a 2-core runner that is also building (2 s failed a clean run so).
  if build-fuzz/tests/fuzz/fuzz_"$t" "${mode[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" >"$log" 2>&1; then
    local runs seconds
    runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
    seconds=$(( $(date +%s) - started ))
    echo "fuzz $t: no finding; $runs executions in ${seconds} s, corpus $(ls "$corpus" | wc -l) inputs," \
         "peak RSS $(grep -E '^stat::peak_rss_mb' "$log" | awk '{print $2}') MB"
  else
    local input
    input=$(ls -t "$findings" | head -1)
    echo "fuzz $t: FINDING (log: $log, input: $input)"
    # What CI prints is all there is to go on: the cause and its stack (a
    # trap or an abort has no sanitizer report, only libFuzzer's), and the
    # input itself when it is small, to replay with fuzz_replay_$t.
    grep -E -A 24 'ERROR|runtime error|terminate called|^fuzz_[a-z_]*: |deadly signal|timeout|out-of-memory' "$log" |
      grep -v -E '^(INFO|#[0-9])' | head -40 || true
    if [ -n "$input" ] && [ "$(stat -c %s "$findings/$input")" -le 8192 ]; then
      echo "fuzz $t: the input, base64 (base64 -d > input; build/tests/fuzz/fuzz_replay_$t input):"
      base64 -w 100 "$findings/$input"
    fi
    return 1
  fi
}

status=0
running=0
pids=()
for t in "${targets[@]}"; do
  run_one "$t" & pids+=($!)
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do wait -n || status=1; running=$((running - 1)); done
exit $status
