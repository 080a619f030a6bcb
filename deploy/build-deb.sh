#!/usr/bin/env bash
# deploy/build-deb.sh: make the Debian packages pomodoro, pomodoro-mqtt, pomodoro-web and
# pomodoro-hooks (deploy/debian/control's; common.sh's binary_packages) for Raspberry Pi OS
# (64-bit, trixie: arm64) or Debian trixie on a PC (amd64), on any x86-64 Linux machine.
#
# It debootstraps a Debian trixie amd64 root (minbase; a root kept by --keep, or by
# Tests/trixie/run.sh --keep, is reused), installs trixie's swiftlang (6.0.3), debhelper and the
# -dev packages there, copies this repository's source in with deploy/debian/ as its debian/
# folder, and runs dpkg-buildpackage (debhelper compat 13: deploy/debian/rules). For arm64 the
# root's own x86-64 Swift cross-compiles for aarch64 (no emulated compiler) through a Swift SDK
# bundle (--swift-sdks-path/--swift-sdk) over an arm64 sysroot unpacked from trixie's arm64
# packages (apt-get download, dpkg-deb -x); dpkg-shlibdeps reads the arm64 runtime libraries
# installed in the root with multiarch, and binutils-aarch64-linux-gnu strips. amd64 builds
# natively in the root. Package.swift is told the sysroot (POMODORO_SYSROOT) and must find
# libgpiod, libi2c, libmosquitto and libmicrohttpd there (POMODORO_REQUIRE_HARDWARE=1): a package
# that only simulates, or a pomodoro-web that cannot serve, cannot be made. The version is
# Release.version (Release.swift), the one place it is written; debian/changelog is
# deploy/debian/changelog (made from CHANGELOG.md). Stage times are printed; mounts are
# undone on every exit path. Needs root and debootstrap. About 5 GB of disk with both arches.
#
# Usage: sudo bash deploy/build-deb.sh [--arch arm64|amd64] [--out DIR] [--root DIR] [--keep]
#                                      [--source DIR]
#   --arch A      arm64 (the default: a Raspberry Pi) or amd64
#   --out DIR     where the .deb files go (default: the current folder); the -dbgsym .ddeb too
#   --root DIR    the trixie root (default: a new folder under ${TMPDIR:-/var/tmp}), deleted
#                 afterwards unless --keep; a kept one is reused without debootstrap
#   --keep        leave the root in place afterwards (its mounts are still undone); the next run
#                 with --root DIR rebuilds only what changed
#   --source DIR  the package to build (default: the repository holding this script)
# Environment: DEBIAN_MIRROR (default: debootstrap's own default mirror).
# Then on the Pi: sudo apt install ./pomodoro_VERSION_arm64.deb
set -euo pipefail

readonly SUITE=trixie
# dpkg-shlibdeps and dh_strip for an arm64 package built on amd64.
readonly CROSS_PACKAGES=(binutils-aarch64-linux-gnu libc6:arm64 libgcc-s1:arm64 libstdc++6:arm64
  libgpiod3:arm64 libi2c0:arm64 libcrypt1:arm64)
# The arm64 sysroot Swift compiles and links against: the runtime libraries below, and (after
# common.sh) deploy/debian/control's build dependencies but the compiler (swiftlang:arm64 is
# added for Swift's aarch64 modules and static runtime: only its lib/swift, lib/swift_static
# and lib/clang, the C headers those link to, are unpacked).
SYSROOT_PACKAGES=(libc6 libc6-dev libcrypt-dev libcrypt1 libgcc-14-dev libgcc-s1 libstdc++6 libgpiod3 libi2c0
  libatomic1 libasan8 libtsan2 libubsan1 liblsan0 libhwasan0 libitm1 libgomp1)
readonly SWIFT_PARTS=(lib/swift lib/swift_static lib/clang)
readonly SYSROOT=/opt/pomodoro-sysroot-arm64
readonly SDKS=/opt/pomodoro-swift-sdks
readonly SDK_NAME=pomodoro-trixie-arm64
readonly BUILD_DIR=/src/deb
readonly MIRROR="${DEBIAN_MIRROR:-}" # empty: debootstrap's default Debian mirror
readonly READY_MARK=.pomodoro-build-deb-ready
PROG=build-deb

# shellcheck source=deploy/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
mapfile -t -O ${#SYSROOT_PACKAGES[@]} SYSROOT_PACKAGES < <(build_depends_names --no-packaging | grep -vx swiftlang)
readonly SYSROOT_PACKAGES

root=""
arch=arm64
out="$PWD"
parse_args --arch=arch --out=out --root=root -- "$@"
# shellcheck source=deploy/lib/debian-root.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/debian-root.sh"

[[ "$arch" == arm64 || "$arch" == amd64 ]] || die "--arch $arch: arm64 or amd64"
[[ $EUID -eq 0 ]] || die "needs root (debootstrap, chroot and mounts): run it with sudo"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
[[ "$(uname -m)" == x86_64 ]] || die "builds on x86-64 (this is $(uname -m))"
[[ -f "$source_dir/Package.swift" && -d "$source_dir/deploy/debian" ]] ||
  die "no Package.swift and deploy/debian in $source_dir: pass --source DIR"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# The version, written once: Release.version.
version="$(release_version "$source_dir")"
[[ "$version" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] ||
  die "no version in $RELEASE_FILE (public static let version = \"X.Y.Z\")"

root_folder deb

# The cleanup's words on this script's stdout and stderr, even when a signal interrupts the build
# (whose output goes to its log).
exec {FINISH_OUT}>&1 {FINISH_ERR}>&2
when_finished root_cleanup

# --- 1. the trixie amd64 root ---------------------------------------------------------------
stage "debootstrap $SUITE (minbase)"
debootstrap_root "$SUITE" "$MIRROR"
root_mounts

# --- 2. the toolchain -----------------------------------------------------------------------
# deploy/debian/control's Build-Depends (common.sh's build_depends), and build-essential, which
# Debian's policy leaves out of them.
wanted=("$(build_depends)" build-essential)
[[ "$arch" == amd64 ]] || wanted+=("${CROSS_PACKAGES[@]}")
mark="$root/$READY_MARK-$arch"
if [[ -f "$mark" && "$(cat "$mark")" == "${wanted[*]}" ]]; then
  say "the toolchain is already in the root"
else
  stage "apt-get install (swiftlang, debhelper...)"
  [[ "$arch" == amd64 ]] || in_root dpkg --add-architecture arm64
  apt_in_root -qq update || die "apt-get update in the root failed three times: check the network"
  apt_in_root -y -qq satisfy "${wanted[@]}" >/dev/null || die "apt-get satisfy ${wanted[*]} failed three times"
  printf '%s' "${wanted[*]}" >"$mark"
fi

# --- 3. the arm64 sysroot and the Swift SDK bundle -----------------------------------------
if [[ "$arch" == arm64 ]]; then
  sysroot_mark="$root$SYSROOT/.pomodoro-sysroot"
  if [[ -f "$sysroot_mark" && "$(cat "$sysroot_mark")" == "${SYSROOT_PACKAGES[*]} ${SWIFT_PARTS[*]}" ]]; then
    say "the arm64 sysroot is already in $SYSROOT"
  else
    stage "arm64 sysroot (apt-get download, dpkg-deb -x)"
    rm -rf --one-file-system "$root$SYSROOT" "$root/var/cache/pomodoro-sysroot"
    mkdir -p "$root$SYSROOT" "$root/var/cache/pomodoro-sysroot"
    chmod 777 "$root/var/cache/pomodoro-sysroot" # apt-get download runs as _apt
    arm64_names=("${SYSROOT_PACKAGES[@]/%/:arm64}" swiftlang:arm64 linux-libc-dev)
    apt_retry in_root sh -c 'cd /var/cache/pomodoro-sysroot && apt-get download -qq "$@"' sh "${arm64_names[@]}" ||
      die "apt-get download of the arm64 sysroot failed three times"
    for deb in "$root"/var/cache/pomodoro-sysroot/*.deb; do
      case "${deb##*/}" in
      swiftlang_*)
        dpkg-deb --fsys-tarfile "$deb" |
          tar -C "$root$SYSROOT" -xf - "${SWIFT_PARTS[@]/#/./usr/libexec/swift/}"
        ;;
      *) dpkg-deb -x "$deb" "$root$SYSROOT" ;;
      esac
    done
    rm -rf "$root/var/cache/pomodoro-sysroot"
    for link in bin sbin lib; do [[ -e "$root$SYSROOT/$link" ]] || ln -s "usr/$link" "$root$SYSROOT/$link"; done
    # "13": every compile warns that it cannot read the version.
    printf '{ "Version": "13.0", "VersionMap": {}, "CanonicalName": "%s" }\n' "$SDK_NAME" >"$root$SYSROOT/SDKSettings.json"
    printf '%s' "${SYSROOT_PACKAGES[*]} ${SWIFT_PARTS[*]}" >"$sysroot_mark"
    say "  $(du -sh "$root$SYSROOT" | cut -f1) in $SYSROOT"
  fi
  bundle="$root$SDKS/$SDK_NAME.artifactbundle"
  mkdir -p "$bundle/$SDK_NAME"
  cat >"$bundle/info.json" <<EOF
{
  "schemaVersion": "1.0",
  "artifacts": {
    "$SDK_NAME": { "type": "swiftSDK", "version": "1.0", "variants": [{ "path": "$SDK_NAME" }] }
  }
}
EOF
  cat >"$bundle/$SDK_NAME/swift-sdk.json" <<EOF
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "$SYSROOT",
      "swiftResourcesPath": "$SYSROOT/usr/libexec/swift/lib/swift",
      "swiftStaticResourcesPath": "$SYSROOT/usr/libexec/swift/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
EOF
  cat >"$bundle/$SDK_NAME/toolset.json" <<EOF
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] },
  "cxxCompiler": { "extraCLIOptions": ["-lstdc++"] },
  "librarian": { "path": "$SWIFT_BIN/llvm-ar" }
}
EOF
fi

# --- 4. the source, with debian/ -------------------------------------------------------------
stage "copy the source"
sync_source "$source_dir" "$BUILD_DIR/pomodoro"
src="$root$BUILD_DIR/pomodoro"
rm -rf "$src/debian"
cp -a "$src/deploy/debian" "$src/debian"
# debian/changelog is deploy/debian/changelog, made from CHANGELOG.md (deploy/changelog.sh). A
# build whose version is not its newest (a test build such as VERSION+upgradetest) gets an entry
# of its own on top, dated by the last commit (a rebuild of the same commit makes the same one).
newest="$(sed -nE '1s/^pomodoro \(([^)]+)\).*/\1/p' "$src/debian/changelog")"
if [[ "$newest" != "$version" ]]; then
  when="$(git -C "$source_dir" log -1 --format=%cD 2>/dev/null || date -R)"
  commit="$(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  {
    printf 'pomodoro (%s) %s; urgency=medium\n\n' "$version" "$SUITE"
    printf '  * Built from the pomodoro repository at %s; not a release (CHANGELOG.md).\n\n' "$commit"
    printf ' -- Pomodoro desk device maintainers <maintainers@users.noreply.a-seed-189787d6.example>  %s\n\n' "$when"
    cat "$source_dir/deploy/debian/changelog"
  } >"$src/debian/changelog"
fi
find "$root$BUILD_DIR" -maxdepth 1 -type f -delete

# --- 5. dpkg-buildpackage --------------------------------------------------------------------
stage "dpkg-buildpackage ($arch)"
env_args=(DEB_BUILD_OPTIONS="parallel=$(nproc)")
buildpackage=(dpkg-buildpackage -b -uc -us)
if [[ "$arch" == arm64 ]]; then
  # -d: the arm64 build dependencies are in the sysroot, not in dpkg's database.
  buildpackage+=(-aarm64 -d)
  env_args+=(POMODORO_SYSROOT="$SYSROOT" POMODORO_SWIFT_SDKS="$SDKS" POMODORO_SWIFT_SDK="$SDK_NAME")
fi
# shellcheck disable=SC2016 # expanded by the root's sh
in_root /bin/sh -c 'cd "$1" && shift && exec env "$@"' sh "$BUILD_DIR/pomodoro" \
  "${env_args[@]}" "${buildpackage[@]}" >"$out/build-deb-$arch.log" 2>&1 || {
  tail -n 40 "$out/build-deb-$arch.log" >&2
  die "dpkg-buildpackage failed (the whole log: $out/build-deb-$arch.log)"
}

debs=()
for f in "$root$BUILD_DIR"/*_"$version"_"$arch".deb "$root$BUILD_DIR"/*_"$version"_"$arch".ddeb; do
  [[ -f "$f" ]] || continue
  cp "$f" "$out/"
  debs+=("$out/${f##*/}")
done
mapfile -t packages < <(binary_packages)
for package in "${packages[@]}"; do
  [[ -f "$out/${package}_${version}_$arch.deb" ]] ||
    die "dpkg-buildpackage finished but ${package}_${version}_$arch.deb is missing"
done
rm -f "$out/build-deb-$arch.log"
# The binaries: pomodoro in pomodoro, and the bridge's own, which `pomodoro mqtt` execs, in pomodoro-mqtt.
for shipped in pomodoro:usr/bin/pomodoro pomodoro-mqtt:usr/lib/pomodoro/pomodoro-mqtt; do
  contents="$(dpkg-deb -c "$out/${shipped%%:*}_${version}_$arch.deb")"
  grep -q " \./${shipped#*:}\$" <<<"$contents" || die "${shipped%%:*}_${version}_$arch.deb does not hold /${shipped#*:}"
done

for f in "${debs[@]}"; do
  say "  ${f##*/}: $(du -k "$f" | cut -f1) KiB, installed $(dpkg-deb -f "$f" Installed-Size) KiB"
done
for package in "${packages[@]}"; do
  say "  $package Depends: $(dpkg-deb -f "$out/${package}_${version}_$arch.deb" Depends)"
done
stage_times
say "OK: pomodoro $version for $arch in $out in $((SECONDS - T0)) s"
if [[ "$arch" == arm64 ]]; then
  say "on the Pi (64-bit Raspberry Pi OS trixie): sudo apt install ./pomodoro_${version}_arm64.deb"
fi
