#!/usr/bin/env bash
# The release tarball's build settings, cheaply, from the existing build (a
# second full build of cnxsim would cost CI minutes; building the static
# binary, packing and running the tarball are done by hand: doc/packaging.md,
# "The release tarball"):
#   1. cmake -DCNXSIM_STATIC_RUNTIME=ON (configure only) links cnxsim with
#      -static-libstdc++ -static-libgcc and the archives of yaml-cpp, libyaml,
#      protobuf and tcmalloc_minimal (OpenSSL's too when the build uses it), no
#      shared library of theirs, spdlog/fmt header-only (FMT_HEADER_ONLY, no
#      SPDLOG_COMPILED_LIB), and the arc4random stand-in (glibc 2.35 suffices);
#   2. with -DCNXSIM_SANITIZE=ON it is refused at configure time;
#   3. cpack -G TGZ refuses a build without the option (BUILD_DIR's, in CI);
#   4. scripts/release-tarball --check-binary refuses BUILD_DIR's cnxsim when
#      it links libraries other than glibc's, naming them (passes for a static one).
#   release_tarball_checks.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src="$1"; build="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake -S "$src" -B "$work/static" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCNXSIM_STATIC_RUNTIME=ON \
      -DCNXSIM_BUILD_TESTS=OFF -DCNXSIM_BUILD_BENCH=OFF >"$work/static.log" 2>&1 \
  || { cat "$work/static.log"; fail "configure with -DCNXSIM_STATIC_RUNTIME=ON"; }
link="$(awk '/^build sim\/cnxsim:/{p=1} p&&/^$/{exit} p' "$work/static/build.ninja")"
[ -n "$link" ] || fail "no link step for sim/cnxsim in build.ninja"
flags="$(grep -E '^ +LINK_FLAGS' <<<"$link" || true)"
libs="$(grep -E '^ +LINK_LIBRARIES' <<<"$link" || true)"
for want in -static-libstdc++ -static-libgcc; do
  grep -q -- "$want" <<<"$flags" || fail "LINK_FLAGS lack $want: $flags"
done
for archive in libyaml-cpp.a libyaml.a libprotobuf.a libtcmalloc_minimal.a; do
  grep -q "/$archive" <<<"$libs" || fail "cnxsim is not linked with $archive: $libs"
done
if grep -q 'OpenSSL' "$work/static/CMakeCache.txt"; then
  for archive in libssl.a libcrypto.a; do
    grep -q "/$archive" <<<"$libs" || fail "the build uses OpenSSL but cnxsim is not linked with $archive: $libs"
  done
fi
grep -q 'static_runtime_arc4random.cc.o' <<<"$link" \
  || fail "cnxsim is not linked with cmake/static_runtime_arc4random.cc (libstdc++.a would need glibc 2.36's arc4random)"
if grep -Eo '[^ ]+\.so(\.[0-9.]+)?' <<<"$libs"; then fail "cnxsim links shared libraries in a static-runtime build"; fi
grep -q -- '-DFMT_HEADER_ONLY=1' "$work/static/build.ninja" || fail "fmt is not header-only (no -DFMT_HEADER_ONLY=1)"
if grep -q -- 'SPDLOG_COMPILED_LIB' "$work/static/build.ninja"; then fail "spdlog is the compiled library"; fi
echo "ok: -DCNXSIM_STATIC_RUNTIME=ON links: $(sed 's/^ *LINK_FLAGS = //' <<<"$flags") and $(grep -Eo '[^ /]+\.a' <<<"$libs" | tr '\n' ' ')"

if cmake -S "$src" -B "$work/sanitize" -G Ninja -DCNXSIM_STATIC_RUNTIME=ON -DCNXSIM_SANITIZE=ON \
         -DCNXSIM_BUILD_TESTS=OFF -DCNXSIM_BUILD_BENCH=OFF >"$work/sanitize.log" 2>&1; then
  fail "-DCNXSIM_STATIC_RUNTIME=ON -DCNXSIM_SANITIZE=ON configured"
fi
grep -q "CNXSIM_STATIC_RUNTIME is for release binaries: not with CNXSIM_SANITIZE" "$work/sanitize.log" \
  || { cat "$work/sanitize.log"; fail "the refusal does not say why"; }
echo "ok: refused with the sanitizers"

if grep -q '^CNXSIM_STATIC_RUNTIME:BOOL=ON' "$build/CMakeCache.txt"; then
  "$src/scripts/release-tarball" --check-binary "$build/sim/cnxsim"
  echo "ok: $build is a static-runtime build"
  exit 0
fi
if cpack -G TGZ -B "$work/tgz" --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1; then
  fail "cpack -G TGZ packed a build without -DCNXSIM_STATIC_RUNTIME=ON"
fi
grep -q "the release tarball is packed from a -DCNXSIM_STATIC_RUNTIME=ON build" "$work/cpack.log" \
  || { cat "$work/cpack.log"; fail "cpack's refusal does not say why"; }
echo "ok: cpack -G TGZ refuses $build"
if "$src/scripts/release-tarball" --check-binary "$build/sim/cnxsim" >"$work/check.log" 2>&1; then
  fail "release-tarball --check-binary accepted a dynamically linked cnxsim"
fi
grep -q "needs shared libraries other than glibc's: .*libyaml-cpp" "$work/check.log" \
  || { cat "$work/check.log"; fail "the dependency check does not name libyaml-cpp"; }
echo "ok: release-tarball --check-binary refuses $build/sim/cnxsim: $(cat "$work/check.log")"
