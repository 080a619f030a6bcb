# shellcheck shell=bash disable=SC2034,SC2154 # sourced: `status` is the caller's, `keep` and `root` too
# deploy/lib/debian-root.sh: what every script that makes a Debian root shares: debootstrap, the
# root folder, its mounts and their cleanup on every exit path, running commands and apt in it,
# and copying the source in. Sourced, not run.
#
# The sourcing script sources deploy/lib/common.sh first (say, die, PROG) and sets: root (a
# folder or empty), keep (0/1), READY_MARK (a file name marking a finished root).

# Debian's swiftlang links only swift-build, swift-run and swiftc into /usr/bin (no swift-test,
# and /usr/bin/swift only if debconf said so); swift-build then fails with "could not find CLI
# tool `clang`" unless the toolchain folder is on PATH. So it goes first, as on a Pi.
readonly SWIFT_BIN=/usr/libexec/swift/bin

# root_folder TAG: makes (or checks) the root folder; sets root to its absolute path.
root_folder() {
  if [[ -z "$root" ]]; then
    root="$(mktemp -d "${TMPDIR:-/var/tmp}/pomodoro-$1.XXXXXX")"
    chmod 755 "$root" # mktemp's 0700 would keep apt's _apt user out of the root's lists
  else
    mkdir -p "$root"
    root="$(cd "$root" && pwd)"
    if [[ -n "$(ls -A "$root")" && ! -f "$root/$READY_MARK" && ! -d "$root/debootstrap" &&
      ! -f "$root/etc/debian_version" ]]; then
      die "$root is not empty and holds no Debian root: pass an empty or new folder to --root"
    fi
  fi
  [[ "$root" != "/" ]] || die "refusing to use / as the root"
}

mounted=()
do_mount() { # do_mount TARGET MOUNT-ARGS...
  local target="$1"
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  mounted+=("$target")
}

mounts_under_root() { # prints the mount points at or below $root, deepest first
  awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

# root_unmount: undoes every mount do_mount made, deepest first.
root_unmount() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null || true
  done
  mounted=()
}

# root_cleanup: undoes every mount below the root, then deletes it (or keeps it with --keep).
# Sets the caller's `status` to 1 if mounts remain (and then leaves the root alone).
root_cleanup() {
  local m
  root_unmount
  # Anything still mounted below the root (debootstrap's own /proc, a package script's) goes too.
  while read -r m; do
    [[ -n "$m" ]] && { umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; }
  done < <(mounts_under_root)
  if [[ -n "$(mounts_under_root)" ]]; then
    printf '%s: error: mounts remain below %s; not deleting it:\n' "$PROG" "$root" >&2
    mounts_under_root >&2
    status=1
  elif ((keep)); then
    say "kept the root in $root (reuse it with --root $root)"
  elif [[ -n "$root" && -d "$root" ]]; then
    rm -rf --one-file-system "$root"
  fi
}

# root_cleanup_if_any: root_cleanup, if a root is set.
root_cleanup_if_any() { [[ -z "$root" ]] || root_cleanup; }

# root_mounts: name resolution, no services, and the kernel file systems a build needs.
root_mounts() {
  cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" # no services start in the root
  chmod 755 "$root/usr/sbin/policy-rc.d"
  do_mount "$root/proc" -t proc proc
  do_mount "$root/sys" -t sysfs sysfs
  do_mount "$root/dev" --bind /dev
  do_mount "$root/dev/pts" -t devpts devpts -o newinstance,ptmxmode=0666
  do_mount "$root/dev/shm" -t tmpfs tmpfs -o mode=1777
  do_mount "$root/tmp" -t tmpfs tmpfs -o mode=1777
}

in_root() { # in_root COMMAND...: runs a command in the root with a clean environment
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    PATH="$SWIFT_BIN:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$@"
}

apt_in_root() { # apt-get in the root, three tries with network retries (common.sh's apt_retry)
  apt_retry in_root apt-get -o Acquire::Retries=3 -o APT::Install-Recommends=false "$@"
}

# source_tar DIR: the package's files as a tar stream on stdout: tracked and new (not ignored)
# files as they are in the work tree (deleted ones skipped), never .build.
source_tar() {
  local source_dir=$1
  if git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$source_dir" ls-files -z --cached --others --exclude-standard |
      (cd "$source_dir" && while IFS= read -r -d '' f; do [[ -e "$f" ]] && printf '%s\0' "$f"; done) |
      tar -C "$source_dir" --null -T - -cf -
  else
    tar -C "$source_dir" --exclude=.build --exclude=.swiftpm -cf - .
  fi
}

# copy_source DIR: the package into the root's /src/pomodoro (source_tar), anew.
copy_source() {
  rm -rf --one-file-system "$root/src"
  mkdir -p "$root/src/pomodoro"
  source_tar "$1" | tar -C "$root/src/pomodoro" -xf -
  say "  $(find "$root/src/pomodoro" -type f | wc -l) files"
}

# sync_source DIR DEST: the package into the root's DEST (say /src/deb/pomodoro), replacing
# everything there but its .build, so that SwiftPM rebuilds only what changed since the last
# run (the files keep their times).
sync_source() {
  local dest="$root$2"
  mkdir -p "$dest"
  find "$dest" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf --one-file-system {} +
  source_tar "$1" | tar -C "$dest" -xf -
  say "  $(find "$dest" -path "$dest/.build" -prune -o -type f -print | wc -l) files"
}

build() { # build COMMAND...: runs in the copied package, in the root
  in_root /bin/sh -c 'cd /src/pomodoro && exec "$@"' sh "$@"
}

# debootstrap_root [--include PACKAGES] SUITE [MIRROR]: a minbase Debian SUITE in $root (with
# PACKAGES, comma-separated), three tries, unless a finished one is there already (debootstrap
# leaves its own folder until it has finished). The one place that runs debootstrap.
debootstrap_root() {
  local include=""
  if [[ "$1" == --include ]]; then
    include=--include=$2
    shift 2
  fi
  local suite=$1 mirror=${2:-}
  if [[ -f "$root/etc/debian_version" && ! -d "$root/debootstrap" ]]; then
    say "reusing the Debian root in $root"
    return 0
  fi
  # shellcheck disable=SC2317 # called through apt_retry
  debootstrap_once() {
    # shellcheck disable=SC2086 # an empty include or mirror is no argument at all
    debootstrap --variant=minbase $include "$suite" "$root" $mirror >"$root.debootstrap.log" 2>&1 && return 0
    say "debootstrap failed; last lines of $root.debootstrap.log:"
    tail -n 5 "$root.debootstrap.log" >&2 || true
    return 1
  }
  # shellcheck disable=SC2317 # called through apt_retry
  debootstrap_wipe() {
    [[ -z "$(mounts_under_root)" ]] || die "debootstrap left mounts below $root"
    find "$root" -mindepth 1 -maxdepth 1 -exec rm -rf --one-file-system {} +
  }
  [[ -z "$(ls -A "$root")" ]] || debootstrap_wipe
  apt_retry --between debootstrap_wipe debootstrap_once ||
    die "debootstrap of $suite failed three times (see $root.debootstrap.log)"
  rm -f "$root.debootstrap.log"
}
