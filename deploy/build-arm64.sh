#!/usr/bin/env bash
# deploy/build-arm64.sh: build the aarch64 `pomodoro` binary a Raspberry Pi (64-bit Raspberry Pi
# OS, trixie) runs, on an x86-64 Debian/Ubuntu machine, without a Pi.
#
# Kept only as a cross-check, not in CI: deploy/build-deb.sh --arch arm64 is the way to make
# the arm64 device (a Debian package, cross-compiled in minutes). This script builds the same
# source natively in an emulated arm64 root (about 23 minutes), so its binary and transcript
# can be set beside the cross-compiled one's.
#
# It makes a Debian trixie arm64 root with `debootstrap --foreign --arch=arm64` (minbase), finishes
# it with the second stage under qemu-user-static (binfmt_misc), installs swiftlang, libgpiod-dev,
# libi2c-dev, pkg-config and libstdc++-14-dev there, copies this repository's source in (git
# ls-files, never .build), builds natively (emulated) with `swift-build -c release
# --static-swift-stdlib --product pomodoro` as deploy/install.sh does on a Pi, copies the binary
# out, then runs it under qemu-aarch64: `pomodoro --version` and the headless scenario
# `pomodoro simulate --script Tests/scenarios/dial.pomo`, whose `# expect` lines it checks. It
# prints how long each stage took. Mounts are undone on every exit path; any failure exits
# non-zero. Needs root; installs debootstrap, qemu-user-static and binfmt-support with apt when
# they are missing, mounts binfmt_misc and enables qemu-aarch64 when they are not (both stay).
# About 3.2 GB of disk; about 23 minutes on 2 cores, 11 when --keep/--root reuse a root (stage
# times in docs/proof.md, "An arm64 binary without a Pi").
#
# Usage: sudo bash deploy/build-arm64.sh [--out FILE] [--root DIR] [--keep] [--source DIR]
#                                        [--scenario FILE] [--compare BINARY]
#   --out FILE       where the aarch64 binary goes (default: ./pomodoro-arm64)
#   --root DIR       build the arm64 root in DIR (default: a new folder under ${TMPDIR:-/var/tmp}),
#                    deleted afterwards; a DIR kept by an earlier --keep run is reused as it is
#   --keep           leave the root in place afterwards (its mounts are still undone)
#   --source DIR     the package to build (default: the repository holding this script)
#   --scenario FILE  the headless scenario to run (default: Tests/scenarios/dial.pomo of the source)
#   --compare BIN    also run the scenario with BIN (say, a host build of pomodoro) and require
#                    the same JSON lines from both
# Environment: DEBIAN_MIRROR (default: debootstrap's own default mirror).
# Then on the Pi (trixie, 64-bit): `sudo bash deploy/install.sh --binary FILE`, which also
# installs the libraries the binary links (libgpiod3 libi2c0).
set -euo pipefail

readonly SUITE=trixie
readonly ARCH=arm64
readonly PACKAGES=(swiftlang libgpiod-dev libi2c-dev pkg-config libstdc++-14-dev)
readonly HOST_PACKAGES=(debootstrap qemu-user-static binfmt-support)
readonly MIRROR="${DEBIAN_MIRROR:-}" # empty: debootstrap's default Debian mirror
readonly READY_MARK=.pomodoro-build-arm64-ready
readonly PROG=build-arm64
readonly BINFMT=/proc/sys/fs/binfmt_misc
readonly QEMU=qemu-aarch64-static

root=""
keep=0
out="$PWD/pomodoro-arm64"
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scenario=""
compare=""

usage() { usage_from_header "${BASH_SOURCE[0]}"; }
say() { printf 'build-arm64: %s\n' "$*"; }
die() {
  printf 'build-arm64: error: %s\n' "$*" >&2
  exit 1
}
# shellcheck source=deploy/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source=deploy/lib/debian-root.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/debian-root.sh"

while (($#)); do
  case "$1" in
  --out)
    out="${2:?--out needs a file}"
    shift 2
    ;;
  --root)
    root="${2:?--root needs a folder}"
    shift 2
    ;;
  --keep)
    keep=1
    shift
    ;;
  --source)
    source_dir="$(cd "${2:?--source needs a folder}" && pwd)"
    shift 2
    ;;
  --scenario)
    scenario="${2:?--scenario needs a file}"
    shift 2
    ;;
  --compare)
    compare="${2:?--compare needs a binary}"
    shift 2
    ;;
  -h | --help)
    usage
    exit 0
    ;;
  *)
    usage >&2
    exit 64
    ;;
  esac
done

[[ $EUID -eq 0 ]] || die "needs root (debootstrap, chroot, mounts and binfmt_misc): run it with sudo"
[[ -f "$source_dir/Package.swift" ]] || die "no Package.swift in $source_dir: pass --source DIR"
scenario="${scenario:-$source_dir/Tests/scenarios/dial.pomo}"
[[ -f "$scenario" ]] || die "no scenario at $scenario: pass --scenario FILE"
scenario="$(realpath "$scenario")"
[[ -z "$compare" || -x "$compare" ]] || die "--compare $compare is not an executable file"
[[ "$out" == /* ]] || out="$PWD/$out"
mkdir -p "$(dirname "$out")" || die "cannot make the folder for --out $out"

# --- timing ---------------------------------------------------------------------------------
t0=$SECONDS
phase_start=$SECONDS
phase_name=""
stage_times=() # "name: N s" for the summary at the end
phase() { # phase LABEL DESCRIPTION: starts a stage's clock; LABEL names it in the summary
  phase_name="$1"
  say "$2"
  phase_start=$SECONDS
}
phase_done() {
  local took=$((SECONDS - phase_start))
  say "  done in $took s"
  stage_times+=("$(printf '%-30s %5d s  (%dm%02ds)' "$phase_name" "$took" $((took / 60)) $((took % 60)))")
}

# --- 0. the host: debootstrap, qemu-user-static, binfmt_misc --------------------------------
host_apt() { # apt-get install, the package lists updated before each retry
  apt_retry --between 'apt-get update -qq -o Acquire::Retries=3 >/dev/null 2>&1' \
    env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Acquire::Retries=3 \
    --no-install-recommends "$@"
}

missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v "$QEMU" >/dev/null || missing+=(qemu-user-static)
command -v update-binfmts >/dev/null || missing+=(binfmt-support)
if ((${#missing[@]})); then
  say "installing on this machine: ${missing[*]}"
  host_apt "${missing[@]}" >/dev/null || die "could not install ${missing[*]}: apt-get install ${HOST_PACKAGES[*]}"
fi
qemu_path="$(command -v "$QEMU")" || die "$QEMU is missing after installing qemu-user-static"

# The kernel runs an arm64 ELF through the interpreter registered in binfmt_misc. On these
# machines (containers, minimal VMs) binfmt_misc is not mounted and binfmt-support's service
# does not run, so both are done by hand. The F flag (fix binary) makes the kernel open the
# interpreter now, so it also works inside the chroot without a copy of qemu there.
readonly AARCH64_MAGIC='\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
readonly AARCH64_MASK='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
ensure_binfmt() {
  if [[ ! -e $BINFMT/register ]]; then
    mount -t binfmt_misc binfmt_misc "$BINFMT" ||
      die "cannot mount binfmt_misc on $BINFMT (in a container: run it on the host, or give the container that right)"
    say "mounted binfmt_misc on $BINFMT"
  fi
  if [[ -e $BINFMT/qemu-aarch64 && "$(head -n 1 "$BINFMT/qemu-aarch64")" != enabled ]]; then
    echo 1 >"$BINFMT/qemu-aarch64"
  fi
  if [[ ! -e $BINFMT/qemu-aarch64 ]]; then
    update-binfmts --enable qemu-aarch64 2>/dev/null || true
  fi
  if [[ ! -e $BINFMT/qemu-aarch64 ]]; then
    printf '%s' ":qemu-aarch64:M::$AARCH64_MAGIC:$AARCH64_MASK:$qemu_path:F" >"$BINFMT/register" ||
      die "could not register qemu-aarch64 in $BINFMT/register"
  fi
  [[ "$(head -n 1 "$BINFMT/qemu-aarch64")" == enabled ]] || die "qemu-aarch64 is registered but not enabled in $BINFMT"
  binfmt_interpreter="$(awk '$1 == "interpreter" { print $2 }' "$BINFMT/qemu-aarch64")"
  binfmt_flags="$(awk '$1 == "flags:" { print $2 }' "$BINFMT/qemu-aarch64")"
  say "binfmt_misc: qemu-aarch64 enabled, interpreter $binfmt_interpreter, flags ${binfmt_flags:-none}"
}
ensure_binfmt

# --- the root folder, its mounts and their cleanup (deploy/lib/debian-root.sh) ---------------
root_folder arm64

cleanup() {
  local status=$?
  trap - EXIT INT TERM HUP
  root_cleanup
  if ((status != 0)); then
    say "FAILED (exit $status) after $((SECONDS - t0)) s${phase_name:+, in the stage: $phase_name}"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Without the F flag the kernel looks for the interpreter inside the chroot: put it there.
place_interpreter() {
  if [[ "$binfmt_flags" != *F* && -n "$binfmt_interpreter" ]]; then
    mkdir -p "$root$(dirname "$binfmt_interpreter")"
    cp -L "$binfmt_interpreter" "$root$binfmt_interpreter"
  fi
}

# --- 1. the arm64 root: debootstrap's first stage here, its second stage emulated -------------
wipe_root() {
  [[ -z "$(mounts_under_root)" ]] || die "debootstrap left mounts below $root"
  find "$root" -mindepth 1 -maxdepth 1 -exec rm -rf --one-file-system {} +
}

if [[ -f "$root/$READY_MARK" ]]; then
  say "reusing the arm64 root in $root"
else
  [[ -z "$(ls -A "$root")" ]] || { say "the root in $root was never finished: starting it again"; wipe_root; }
  phase "debootstrap, first stage" "debootstrap --foreign --arch=$ARCH --variant=minbase $SUITE $root"
  debootstrap_once() {
    # shellcheck disable=SC2086 # an empty MIRROR is no argument at all
    debootstrap --foreign --arch="$ARCH" --variant=minbase "$SUITE" "$root" $MIRROR \
      >"$root.debootstrap.log" 2>&1 && return 0
    say "debootstrap failed; last lines of $root.debootstrap.log:"
    tail -n 5 "$root.debootstrap.log" >&2 || true
    return 1
  }
  apt_retry --between wipe_root debootstrap_once ||
    die "debootstrap --foreign of $SUITE/$ARCH failed three times (see $root.debootstrap.log)"
  phase_done

  phase "debootstrap, second stage" "debootstrap --second-stage (under qemu-aarch64)"
  place_interpreter
  in_root /bin/true || die "cannot run the root's arm64 /bin/true: check $BINFMT/qemu-aarch64"
  if ! in_root /debootstrap/debootstrap --second-stage >>"$root.debootstrap.log" 2>&1; then
    tail -n 20 "$root.debootstrap.log" >&2 || true
    [[ -f "$root/debootstrap/debootstrap.log" ]] && tail -n 20 "$root/debootstrap/debootstrap.log" >&2
    die "debootstrap's second stage failed (log: $root.debootstrap.log); run it again"
  fi
  rm -f "$root.debootstrap.log"
  phase_done
fi
place_interpreter
[[ "$(in_root uname -m)" == aarch64 ]] || die "the root does not run as aarch64 (uname -m in it: $(in_root uname -m))"

root_mounts

# --- 2. the toolchain (emulated apt and dpkg) ------------------------------------------------
if [[ -f "$root/$READY_MARK" ]]; then
  say "the toolchain is already in the root (${PACKAGES[*]})"
else
  phase "apt-get install (swiftlang...)" "apt-get install ${PACKAGES[*]} (under qemu-aarch64)"
  apt_in_root -qq update || die "apt-get update in the root failed three times: check the network"
  apt_in_root -y -qq install "${PACKAGES[@]}" >/dev/null || die "apt-get install ${PACKAGES[*]} in the root failed three times"
  touch "$root/$READY_MARK"
  phase_done
fi

# --- 3. the source --------------------------------------------------------------------------
phase "copy the source" "copying the source from $source_dir"
copy_source "$source_dir"
phase_done

# --- 4. the build ---------------------------------------------------------------------------
say "toolchain in the arm64 root:"
in_root "$SWIFT_BIN/swift" --version 2>&1 | sed 's/^/  /'
gpiod_version="$(in_root pkg-config --modversion libgpiod)"
say "  libgpiod $gpiod_version (pkg-config --modversion libgpiod)"

readonly BUILD_ARGS=(-c release --static-swift-stdlib --product pomodoro)
phase "swift-build" "swift-build ${BUILD_ARGS[*]} (under qemu-aarch64)"
build swift-build "${BUILD_ARGS[@]}"
phase_done
bin_path="$(build swift-build "${BUILD_ARGS[@]}" --show-bin-path)"
[[ -x "$root$bin_path/pomodoro" ]] || die "swift-build finished but $bin_path/pomodoro is missing in the root"
libraries="$(in_root ldd "$bin_path/pomodoro" | awk '/=>/ { print $3 }')"
linked="$(printf '%s\n' "$libraries" | xargs -n 1 basename | xargs)"
say "  pomodoro links: $linked"
# The packages a Pi needs to run it (install.sh --binary installs no packages). ldd names
# /lib/... (merged /usr); dpkg knows some files under /usr/lib/... only.
runtime_packages="$(
  for lib in $libraries; do
    in_root dpkg -S "$lib" 2>/dev/null || in_root dpkg -S "/usr${lib#/usr}" 2>/dev/null || true
  done | cut -d: -f1 | sort -u | xargs
)"
say "  from the packages: ${runtime_packages:-(dpkg -S found none)}"
[[ "$runtime_packages" == *libgpiod3* ]] || runtime_packages+=" libgpiod3"
[[ "$runtime_packages" == *libi2c0* ]] || runtime_packages+=" libi2c0"
[[ "$linked" == *libgpiod.so.3* ]] || die "the binary does not link libgpiod.so.3 (libgpiod v2, as on trixie)"
[[ "$linked" != *libswiftCore* ]] || die "the binary links the Swift runtime dynamically despite --static-swift-stdlib"
install -m 0755 "$root$bin_path/pomodoro" "$out"
if command -v file >/dev/null; then
  say "  $(file -b "$out" | cut -d, -f1-2)"
fi
say "  wrote $out ($(du -h "$out" | cut -f1))"

# --- 5. run it under qemu-aarch64 -------------------------------------------------------------
# The binary outside the root, its libraries (libgpiod.so.3, libi2c, libstdc++...) from the
# root: qemu's -L prefix stands in for a Pi's / when the binary opens its loader and libraries.
arm64() { "$qemu_path" -L "$root" "$out" "$@"; }

phase "run it under qemu-aarch64" "pomodoro --version and simulate --script $(basename "$scenario") (under qemu-aarch64)"
version="$(arm64 --version)" || die "the arm64 pomodoro --version failed"
say "  pomodoro --version: $version"
# The binary checks the scenario's own `# expect` lines (in order, each under its step) and
# exits 1 naming the first one not met; the transcript is written either way.
transcript="$(arm64 simulate --script "$scenario")" ||
  die "the arm64 pomodoro simulate --script $scenario failed (an unmet '# expect' is named above)"
printf '%s\n' "$transcript" | sed 's/^/  /'
[[ "$(printf '%s\n' "$transcript" | tail -n 1)" == *'"event":"summary"'* ]] ||
  die "the scenario's transcript does not end with its summary line"
say "  every '# expect' line of $(basename "$scenario") met (checked by pomodoro itself)"

if [[ -n "$compare" ]]; then
  if ! diff <(printf '%s\n' "$transcript") <("$compare" simulate --script "$scenario") >&2; then
    die "the arm64 transcript differs from $compare's (above: < arm64, > $compare)"
  fi
  say "  the same transcript as $compare"
fi
phase_done

say "disk used by the root: $(du -sh --one-file-system "$root" | cut -f1)"
say "stage times ($(in_root "$SWIFT_BIN/swift" --version 2>&1 | head -n 1), $(nproc) cores):"
for s in "${stage_times[@]}"; do say "  $s"; done
say "OK: $out is an aarch64 pomodoro ($version) built on Debian $SUITE with libgpiod $gpiod_version in $((SECONDS - t0)) s"
say "on the Pi (64-bit Raspberry Pi OS trixie), with the repository and this binary there:"
say "  sudo apt install $runtime_packages && sudo bash deploy/install.sh --binary $(basename "$out")"
