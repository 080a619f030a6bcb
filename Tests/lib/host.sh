# shellcheck shell=bash
# Tests/lib/host.sh: the host side of every test script under Tests/ and .ci/. Sourced, not run,
# before anything else; it brings the host library and the checks:
#   deploy/lib/common.sh       say, die, parse_args, stage, when_finished, build_depends...
#   deploy/lib/debian-root.sh  Debian roots: root_folder, root_mounts, in_root, root_cleanup...
#   Tests/lib/test-lib.sh      pass, fail, check, expect, count_results, test_done, and the
#                              waits: wait_for, exited, usleep
# and, here:
#   scratch_folder TAG          a new folder for the test (sets `work`), deleted when the script
#                               exits, unless --keep (then its place is said)
#   stop_processes              the test's tmux server and background processes (pids) stopped
#   setup_failed NAME           a stop before the checks counted as the failed check NAME
#   package_version SOURCE, upgrade_debs SOURCE BUILD_ROOT DEBS LOG   (the upgrade package)

# shellcheck source=deploy/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../deploy/lib/common.sh"
# shellcheck source=deploy/lib/debian-root.sh
source "$REPO/deploy/lib/debian-root.sh"
# shellcheck source=Tests/lib/test-lib.sh
source "$REPO/Tests/lib/test-lib.sh"

# scratch_folder TAG: sets work to a new folder ${TMPDIR:-/var/tmp}/pomodoro-TAG.XXXXXX (0755, so
# that apt's _apt reads it), deleted when the script exits unless keep is 1 at this call.
scratch_folder() {
  work=$(mktemp -d "${TMPDIR:-/var/tmp}/pomodoro-$1.XXXXXX") || die "mktemp failed"
  chmod 755 "$work"
  if ((${keep:-0})); then
    when_finished say "kept the scratch folder $work"
  else
    when_finished rm -rf --one-file-system "$work"
  fi
}

# stop_processes: the tmux server on socket tmux_sock (if one) killed, and each PID in pids
# sent SIGTERM, then SIGKILL if it has not gone within 5 s (for when_finished).
# shellcheck disable=SC2154 # pids: the test's
stop_processes() {
  local p
  [[ -z "${tmux_sock:-}" ]] || tmux -L "$tmux_sock" kill-server 2>/dev/null
  # A wrapper that forks (faketime waits for its command) leaves its child when it goes: the
  # children first.
  for p in "${pids[@]}"; do
    pkill -P "$p" 2>/dev/null
    kill "$p" 2>/dev/null
  done
  for p in "${pids[@]}"; do
    wait_for 5 exited "$p"
    pkill -9 -P "$p" 2>/dev/null
    kill -9 "$p" 2>/dev/null
  done
  return 0
}

# setup_failed NAME (for when_finished): unless REPORTED is 1 by then, the test stopped before
# its checks ran: a failed check NAME and the closing count, and the script fails.
REPORTED=0
# shellcheck disable=SC2154 # status: run_finishers'
setup_failed() {
  ((REPORTED)) && return
  fail "$1" "the test stopped before its checks ran (exit $status; see the errors above)"
  test_done || true
  status=1
}

# The upgrade package: the second build of the amd64 packages that Tests/deb, Tests/repo and
# Tests/system upgrade to: VERSION+upgradetest, built by deploy/build-deb.sh (amd64, in the kept
# BUILD_ROOT, so only what changed recompiles) from a copy of SOURCE whose version is that and
# whose shipped config (deploy/pomodoro.conf) has one more line, so that an upgrade meets a
# changed shipped config and must neither ask nor touch the owner's. Built once into DEBS and
# reused while not older than pomodoro_VERSION_amd64.deb.

readonly UPGRADE_SUFFIX=+upgradetest

# package_version SOURCE: Release.version, the one place the version is written.
package_version() { release_version "$1"; }

# upgrade_debs SOURCE BUILD_ROOT DEBS LOG: makes (or finds) DEBS/PACKAGE_VERSION+upgradetest_amd64.deb,
# each of binary_packages.
# Prints one line on stdout: `built in N s (dpkg-buildpackage M s)` or `reused (built earlier)`.
# Returns non-zero when the build fails (its output is in LOG).
upgrade_debs() {
  local source_dir=$1 build_root=$2 debs=$3 log=$4
  local version upgrade_version old new scratch start status
  version="$(package_version "$source_dir")"
  [[ -n "$version" ]] || {
    echo "no version in $source_dir/$RELEASE_FILE" >"$log"
    return 1
  }
  upgrade_version="$version$UPGRADE_SUFFIX"
  old="$debs/pomodoro_${version}_amd64.deb"
  new="$debs/pomodoro_${upgrade_version}_amd64.deb"
  local package all=1
  for package in $(binary_packages); do
    [[ -f "$debs/${package}_${upgrade_version}_amd64.deb" ]] || all=0
  done
  if ((all)) && [[ ! "$new" -ot "$old" ]]; then
    echo "reused (built earlier into $debs)"
    return 0
  fi
  start=$SECONDS
  scratch="$(mktemp -d "${TMPDIR:-/var/tmp}/pomodoro-upgrade-deb.XXXXXX")"
  chmod 755 "$scratch"
  mkdir -p "$scratch/src" "$scratch/out"
  source_tar "$source_dir" | tar -C "$scratch/src" -xf -
  set_release_version "$scratch/src" "$upgrade_version"
  printf '# Changed in %s: a config the package ships changed, and an upgrade must not ask.\n' \
    "$upgrade_version" >>"$scratch/src/deploy/pomodoro.conf"
  status=0
  bash "$REPO/deploy/build-deb.sh" --arch amd64 --root "$build_root" --keep \
    --source "$scratch/src" --out "$scratch/out" >"$log" 2>&1 || status=$?
  if ((status == 0)); then
    cp "$scratch/out/"*.deb "$debs/" || status=$?
  fi
  rm -rf --one-file-system "$scratch"
  ((status == 0)) || return "$status"
  echo "built in $((SECONDS - start)) s (dpkg-buildpackage $(grep -E 'dpkg-buildpackage \(amd64\) +[0-9]+ s' "$log" | grep -oE '[0-9]+ s$'))"
}
