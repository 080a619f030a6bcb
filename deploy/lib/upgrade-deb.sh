# shellcheck shell=bash
# deploy/lib/upgrade-deb.sh: the second build of the amd64 packages that deploy/test-deb.sh and
# Tests/system/run.sh upgrade to. Sourced, not run, after deploy/lib/debian-root.sh (its
# source_tar copies the source).
#   package_version SOURCE
#   upgrade_debs SOURCE BUILD_ROOT DEBS LOG
#
# The upgrade package is VERSION+upgradetest, built by deploy/build-deb.sh (amd64, in the kept
# BUILD_ROOT, so only what changed recompiles: about a minute) from a copy of SOURCE whose
# version is VERSION+upgradetest and whose shipped config (deploy/pomodoro.conf) has one more
# line, so that an upgrade meets a changed shipped config and must neither ask nor touch the
# owner's. It is built once and shared: its .deb files go into DEBS beside the packages under
# test, and a later caller reuses them while they are not older than pomodoro_VERSION_amd64.deb.

readonly UPGRADE_SUFFIX=+upgradetest

# package_version SOURCE: Release.version, the one place the version is written.
package_version() { release_version "$1"; }

# upgrade_debs SOURCE BUILD_ROOT DEBS LOG: makes (or finds) DEBS/pomodoro{,-mqtt,-web}_VERSION+upgradetest_amd64.deb.
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
  if [[ -f "$new" && -f "$debs/pomodoro-mqtt_${upgrade_version}_amd64.deb" &&
    -f "$debs/pomodoro-web_${upgrade_version}_amd64.deb" && ! "$new" -ot "$old" ]]; then
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
  bash "$(dirname "${BASH_SOURCE[0]}")/../build-deb.sh" --arch amd64 --root "$build_root" --keep \
    --source "$scratch/src" --out "$scratch/out" >"$log" 2>&1 || status=$?
  if ((status == 0)); then
    cp "$scratch/out/"*.deb "$debs/" || status=$?
  fi
  rm -rf --one-file-system "$scratch"
  ((status == 0)) || return "$status"
  echo "built in $((SECONDS - start)) s (dpkg-buildpackage $(grep -E 'dpkg-buildpackage \(amd64\) +[0-9]+ s' "$log" | grep -oE '[0-9]+ s$'))"
}
