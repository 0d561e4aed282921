#!/usr/bin/env bash
# Builds the Debian package from this build tree (cpack), unpacks it into a
# scratch root (dpkg-deb -x: a relocated install, not under /usr) and runs the
# unpacked cnxsim: --version, `run` with no path (the bundled suite found next
# to the executable), lint; checks the Depends field names the shared libraries
# cnxsim links (not libprotobuf, linked statically) and that the file list
# carries no tests, benchmarks or fuzzers.
#   deb_scratch_root.sh BUILD_DIR WORK_DIR
set -euo pipefail
build="$1"; work="$2"
rm -rf "$work"; mkdir -p "$work/out" "$work/root" "$work/cwd"
fail() { echo "FAIL: $*" >&2; exit 1; }

cpack -G DEB -B "$work/out" --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack"; }
debs=("$work"/out/cnxsim_*_*.deb)
[ -f "${debs[0]}" ] || fail "no cnxsim_<version>_<arch>.deb in $work/out"
deb="${debs[0]}"
echo "package: $(basename "$deb")"

depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
if grep -q '^CNXSIM_STATIC_RUNTIME:BOOL=ON' "$build/CMakeCache.txt"; then
  # A static-runtime build (doc/packaging.md, the release tarball) needs glibc only.
  grep -q libc6 <<<"$depends" || fail "Depends does not name libc6"
  for lib in libyaml-cpp libspdlog libfmt libyaml-0 libstdc++6 libprotobuf; do
    grep -q "$lib" <<<"$depends" && fail "Depends names $lib, linked statically"
  done
else
  for lib in libyaml-cpp libspdlog libyaml-0 libstdc++6 libc6; do
    grep -q "$lib" <<<"$depends" || fail "Depends does not name $lib"
  done
fi
# protobuf is linked statically unless the build says otherwise (CNXSIM_STATIC_PROTOBUF).
if grep -q '^CNXSIM_STATIC_PROTOBUF:BOOL=OFF' "$build/CMakeCache.txt"; then
  grep -q libprotobuf <<<"$depends" || fail "Depends does not name libprotobuf"
else
  grep -q libprotobuf <<<"$depends" && fail "Depends names libprotobuf, linked statically"
fi
for field in Maintainer Section Description; do
  [ -n "$(dpkg-deb -f "$deb" "$field")" ] || fail "no $field field"
done

files="$(dpkg-deb -c "$deb" | awk '{print $6}')"
for want in ./usr/bin/cnxsim ./usr/share/cnxsim/scenarios/ ./usr/share/doc/cnxsim/README.md; do
  grep -qx -- "$want" <<<"$files" || fail "package lacks $want"
done
if grep -E 'unit_tests|/tests/|bench|fuzz_' <<<"$files"; then fail "package carries tests, benchmarks or fuzz targets"; fi

dpkg-deb -x "$deb" "$work/root"
bin="$work/root/usr/bin/cnxsim"
cd "$work/cwd"  # no ./scenarios here: the lookup must go through the executable's location
version="$("$bin" --version)"
echo "$version"
grep -Eq '^cnxsim [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{7,}(-dirty)?|unknown)\)$' <<<"$(head -1 <<<"$version")" || fail "--version first line"
grep -Eq '^models Apache Pulsar [0-9]+\.[0-9]+ - [0-9]+\.[0-9]+\.[0-9]+ ' <<<"$version" || fail "--version range line"

# The races are explored by scenarios.races already; the rest of the suite proves the lookup.
"$bin" run --exclude-tags races >"$work/run.log" 2>&1 || { tail -20 "$work/run.log"; fail "run with no path"; }
grep -q "$work/root/usr/share/cnxsim/scenarios/" "$work/run.log" || fail "run did not use the unpacked suite"
tail -1 "$work/run.log"
grep -Eq '^[0-9]+ passed, 0 failed' <<<"$(tail -1 "$work/run.log")" || fail "run summary"
"$bin" lint "$work/root/usr/share/cnxsim/scenarios" || fail "lint of the installed suite"
echo "OK"
