# shellcheck shell=bash disable=SC2034 # variables set here are read by run.sh
# Host packages and the guest kernel for the QEMU hardware-in-the-loop test (sourced by run.sh).
# Needs: common.sh. Sets KVER (e.g. 6.1.0-57-amd64) and KDEB_VERSION (e.g. 6.1.192-3).

# The Debian kernel series to boot; its plain .ko modules are what the initramfs takes.
HIL_KERNEL_SERIES=${HIL_KERNEL_SERIES:-6.1}

# Host tools: the emulator, the guest's shell, the module build, the initramfs, and the
# guest's own GPIO and I2C tools (copied in with their libraries); and the C libraries the
# device links, from deploy/debian/control (build_depends_names).
mapfile -t HIL_HOST_PACKAGES < <(build_depends_names --libraries)
HIL_HOST_PACKAGES+=(qemu-system-x86 busybox-static build-essential bc flex bison libelf-dev cpio kmod gpiod i2c-tools
  xz-utils)

# install_host_packages: apt-get update and install what the test needs (no-op when present).
install_host_packages() {
  host_apt update -qq || die "apt-get update failed; check the network and /etc/apt/sources.list"
  host_apt install -y -q --no-install-recommends "${HIL_HOST_PACKAGES[@]}" >"$WORK/apt-install.log" ||
    die "apt-get install ${HIL_HOST_PACKAGES[*]} failed; see above"
}

# candidate_version PACKAGE: the version apt would install, empty if none.
candidate_version() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { if ($2 != "(none)") print $2 }'; }

# has_version PACKAGE VERSION: whether the archive offers PACKAGE at exactly VERSION.
has_version() { apt-cache madison "$1" 2>/dev/null | awk -v v="$2" '$3 == v { found = 1 } END { exit !found }'; }

# pick_kernel: the newest linux-image-<series>.N-amd64 whose headers and linux-source-<series>
# exist at exactly the same Debian version (the module must be built from the booted sources).
pick_kernel() {
  local image version abi
  for image in $(apt-cache pkgnames "linux-image-$HIL_KERNEL_SERIES." |
    grep -E "^linux-image-${HIL_KERNEL_SERIES//./\\.}\.[0-9]+-[0-9]+-amd64$" | sort -rV); do
    version=$(candidate_version "$image")
    [ -n "$version" ] || continue
    abi=${image#linux-image-}
    if has_version "linux-headers-$abi" "$version" && has_version "linux-source-$HIL_KERNEL_SERIES" "$version"; then
      KVER=$abi
      KDEB_VERSION=$version
      return 0
    fi
  done
  die "no linux-image-$HIL_KERNEL_SERIES.*-amd64 with headers and linux-source-$HIL_KERNEL_SERIES of the same version in the apt lists; run apt-get update or set HIL_KERNEL_SERIES"
}

# fetch_kernel: installs the matching headers, downloads the image and source packages into
# $WORK/debs (kept only for this run) and unpacks the image into $WORK/kernel.
fetch_kernel() {
  pick_kernel
  say "kernel $KVER ($KDEB_VERSION)"
  host_apt install -y -q --no-install-recommends "linux-headers-$KVER=$KDEB_VERSION" >>"$WORK/apt-install.log" ||
    die "apt-get install linux-headers-$KVER=$KDEB_VERSION failed"
  mkdir -p "$WORK/debs" "$WORK/kernel"
  chmod 755 "$WORK" "$WORK/debs"
  (cd "$WORK/debs" && host_apt -o APT::Sandbox::User=root download -q "linux-image-$KVER=$KDEB_VERSION" \
    "linux-source-$HIL_KERNEL_SERIES=$KDEB_VERSION") >&2 ||
    die "apt-get download of linux-image-$KVER and linux-source-$HIL_KERNEL_SERIES $KDEB_VERSION failed"
  dpkg-deb -x "$WORK"/debs/linux-image-"$KVER"_*.deb "$WORK/kernel"
  [ -f "$WORK/kernel/boot/vmlinuz-$KVER" ] || die "no boot/vmlinuz-$KVER in linux-image-$KVER"
  depmod -b "$WORK/kernel" "$KVER"
  HIL_DOWNLOAD_BYTES=$(du -cb "$WORK"/debs/*.deb | awk 'END { print $1 }')
}
