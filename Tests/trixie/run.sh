#!/usr/bin/env bash
# Tests/trixie/run.sh: prove the device builds and passes its tests on Raspberry Pi OS's
# toolchain (Debian 13 "trixie": Swift 6.0.3 from Debian's swiftlang, libgpiod 2.x, libi2c).
#
# It debootstraps a Debian trixie root (minbase) in a scratch folder, installs the package's
# build dependencies there (deploy/debian/control's, less debhelper), copies this repository's
# source in (git ls-files, never .build), runs `swift-build -c release --static-swift-stdlib`
# (as the package is built) and `swift-test` inside
# it, and prints the Swift and libgpiod versions it built with. Mounts are undone on every exit
# path; any failure exits non-zero. Needs root, debootstrap and the Debian archive keyring
# (bookworm's debootstrap already knows trixie). About 3 GB of disk.
#
# Usage: sudo bash Tests/trixie/run.sh [--root DIR] [--keep] [--source DIR] [--no-test]
#   --root DIR    build the root in DIR (default: a new folder under ${TMPDIR:-/var/tmp}), deleted
#                 afterwards; a DIR kept by an earlier --keep run is reused without debootstrap
#   --keep        leave the root in place afterwards (its mounts are still undone)
#   --source DIR  the package to build (default: the repository holding this script)
#   --no-test     build the release binary only, no swift-test (Tests/system/run.sh, alone)
# With --keep the release binary stays at DIR/src/pomodoro/.build/release/pomodoro, where
# Tests/system/run.sh --build-root DIR takes it (one debootstrap and build per CI run).
# Environment: DEBIAN_MIRROR (default: debootstrap's own default mirror).
set -euo pipefail

readonly SUITE=trixie
readonly MIRROR="${DEBIAN_MIRROR:-}" # empty: debootstrap's default Debian mirror
readonly READY_MARK=.pomodoro-check-trixie-ready
PROG=trixie

# shellcheck source=Tests/lib/host.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
root=""
run_tests=1
parse_args --root=root --no-test=run_tests!0 -- "$@"

[[ $EUID -eq 0 ]] || die "needs root (debootstrap, chroot and mounts): run it with sudo"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
[[ -f "$source_dir/Package.swift" ]] || die "no Package.swift in $source_dir: pass --source DIR"

root_folder trixie
when_finished root_cleanup

# --- 1. the trixie root ---------------------------------------------------------------------
if [[ -f "$root/$READY_MARK" ]]; then
  say "reusing the trixie root in $root"
else
  stage "debootstrap $SUITE (minbase) into $root${MIRROR:+ from $MIRROR}"
  debootstrap_root "$SUITE" "$MIRROR"
fi

root_mounts

# --- 2. the toolchain -----------------------------------------------------------------------
# The package's build dependencies, less the packaging tools (common.sh's build_depends).
stage "apt-get satisfy $(build_depends --no-packaging)"
apt_in_root -qq update
apt_in_root -y -qq satisfy "$(build_depends --no-packaging)" >/dev/null
touch "$root/$READY_MARK"

# --- 3. the source --------------------------------------------------------------------------
stage "copying the source from $source_dir"
copy_source "$source_dir"

# --- 4. versions, build, tests --------------------------------------------------------------
say "toolchain in the trixie root:"
in_root "$SWIFT_BIN/swift" --version 2>&1 | sed 's/^/  /'
in_root swift-build --version 2>&1 | sed 's/^/  /'
gpiod_version="$(in_root dpkg-query -W -f "\${Version}" libgpiod-dev)"
say "  libgpiod $gpiod_version (libgpiod-dev)"
[[ "$gpiod_version" == 2.* ]] || die "expected libgpiod 2.x (the v2 API) in trixie, found $gpiod_version"

# The release build is the one the package ships: the Swift runtime linked in statically
# (this is what libstdc++-14-dev is for), so the binary needs no toolchain on the device.
stage "swift-build -c release --static-swift-stdlib"
build swift-build -c release --static-swift-stdlib
binary="$root/src/pomodoro/.build/release/pomodoro"
[[ -x "$binary" ]] || die "swift-build finished but $binary is missing"
linked="$(in_root ldd /src/pomodoro/.build/release/pomodoro | awk '/libgpiod|libi2c/ { print $1 }' | xargs)"
say "  pomodoro links: ${linked:-no libgpiod/libi2c}"
[[ "$linked" == *libgpiod.so.3* ]] || die "the release binary does not link libgpiod.so.3 (libgpiod v2)"
if grep -q libswiftCore <<<"$(in_root ldd /src/pomodoro/.build/release/pomodoro)"; then
  die "the release binary links the Swift runtime dynamically despite --static-swift-stdlib"
fi
say "  pomodoro --version: $(build .build/release/pomodoro --version 2>&1 | head -n 1)"

if ((run_tests)); then
  stage "swift-test"
  build swift-test
else
  say "swift-test skipped (--no-test)"
fi

stage_times
say "disk used by the root: $(du -sh --one-file-system "$root" | cut -f1)"
say "OK: built$( ((run_tests)) && echo " and tested") on Debian $SUITE with libgpiod $gpiod_version in $((SECONDS - T0)) s"
