#!/usr/bin/env bash
# The heavy install check, only with CNXSIM_DEB_CLEAN_ROOT=1 (root, network to
# deb.debian.org, debootstrap): a minimal Debian 12 root, `apt-get install
# ./cnxsim_*.deb` in a chroot, then cnxsim --version, run, lint inside it.
#   deb_clean_root.sh BUILD_DIR WORK_DIR      (ctest: skipped, exit 77, otherwise)
set -euo pipefail
if [ "${CNXSIM_DEB_CLEAN_ROOT:-}" != 1 ]; then
  echo "skipped: set CNXSIM_DEB_CLEAN_ROOT=1 (needs root, debootstrap and network) to run it"; exit 77
fi
build="$1"; work="$2"; root="$work/root"
command -v debootstrap >/dev/null || { echo "debootstrap is not installed"; exit 1; }
mkdir -p "$work/out"
cpack -G DEB -B "$work/out" --config "$build/CPackConfig.cmake" >/dev/null
deb="$(ls "$work"/out/cnxsim_*_*.deb | head -1)"
[ -x "$root/bin/bash" ] || debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$work/debootstrap.log"
cp "$deb" "$root/root/"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
trap 'umount "$root/proc" || true' EXIT
chroot "$root" /bin/bash -ec "
  cd /root && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./$(basename "$deb")
  cnxsim --version
  cd /tmp && cnxsim run --exclude-tags races | tail -1
  cnxsim lint /usr/share/cnxsim/scenarios"
