#!/usr/bin/env bash
# Tests/system/run.sh: the device as a person installs it, booted for real. A Debian trixie
# root with systemd as init, trixie's own kernel (6.12) with gpio-sim built for it and i2c-stub,
# and the amd64 Debian packages (deploy/build-deb.sh: trixie's swiftlang, libgpiod 2.2.1)
# installed with `apt-get install ./pomodoro_VERSION_amd64.deb ./pomodoro-web_VERSION_amd64.deb
# ./pomodoro-hooks_VERSION_amd64.deb` (no terminal; apt takes libmicrohttpd12t64 and libcurl4t64
# from trixie) as README says,
# packed into an ext4 disk image (mkfs.ext4 -d) and booted under QEMU (TCG). The checks run in
# the guest (Tests/system/guest: test-only units under /usr/local/lib/systest, never part of the
# package) and on the host, which also cuts the power: it SIGKILLs QEMU at random instants while
# sessions run, boots the same image again and checks what survived. The first boot also
# upgrades to a second build of the package (VERSION+upgradetest with a changed shipped config,
# Tests/lib/host.sh, shared with Tests/deb/run.sh) with apt-get while a timer runs:
# the service restarts on the new binary, the timer comes back paused with its time, the
# owner's config and every history record are kept. The last boot removes, then purges the
# package. PASS/FAIL lines, then `N passed, M failed`; each stage's time is printed; the
# scratch folder is removed on every exit path. Needs root, about 1.5 GB of disk (plus the
# build root's 3.4 GB unless given).
#
# Usage: sudo bash Tests/system/run.sh [--build-root DIR] [--debs DIR] [--cuts N] [--work DIR] [--keep]
#   --build-root DIR  a trixie root kept by `deploy/build-deb.sh --keep` or `Tests/trixie/run.sh
#                     --keep` (gpio-sim and the upgrade package are built there); default: a new
#                     one in the scratch folder
#   --debs DIR        the folder with pomodoro{,-web,-hooks}_VERSION_amd64.deb (`build-deb.sh --arch amd64 --out
#                     DIR`); the upgrade package is made there unless it is already (and newer);
#                     default: build-deb.sh --arch amd64 into the scratch folder
#   --cuts N          power cuts (default 3, as in CI; more for a soak)
#   --work DIR        the scratch folder (default: a new one under ${TMPDIR:-/var/tmp})
#   --keep            keep the scratch folder (the device root, image, kernel, console logs)
# Environment: SYSTEST_BOOT_TIMEOUT (seconds a boot may take to report, default 600),
# SYSTEST_SEED (the power cuts' random instants), DEBIAN_MIRROR (as build-deb.sh).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SYS_DIR=$REPO/Tests/system
readonly SUITE=trixie
readonly KERNEL_SERIES=6.12
readonly DEVICE_PACKAGES=systemd-sysv,udev,kmod,libgpiod3,gpiod,libi2c0,i2c-tools,e2fsprogs
readonly READY_MARK=.systest-devroot-ready
PROG=system
SAY_FD=2
# shellcheck source=Tests/lib/host.sh
source "$SYS_DIR/../lib/host.sh"
build_root="" debs="" work="" cuts=3
parse_args --build-root=build_root/ --debs=debs/ --cuts=cuts --work=work -- "$@"
[[ "$cuts" =~ ^[0-9]+$ && "$cuts" -ge 1 ]] || die "--cuts needs a number of 1 or more"
[[ $EUID -eq 0 ]] || die "needs root (debootstrap, chroot, mounts): run it with sudo"
# debian-root.sh works on one root at a time ($root): this script points it at the build root,
# then at the device root, and undoes their mounts itself (root_unmount).
root=""
HIL_DIR=$REPO/Tests/hil
# shellcheck source=Tests/hil/lib/gpio-sim-module.sh
source "$HIL_DIR/lib/gpio-sim-module.sh"

mkdir -p "${TMPDIR:-/var/tmp}"
if [[ -z "$work" ]]; then
  work=$(mktemp -d "${TMPDIR:-/var/tmp}/pomodoro-system.XXXXXX")
else
  mkdir -p "$work" && work=$(cd "$work" && pwd)
fi
chmod 755 "$work"
devroot=$work/devroot
QEMU_PID=""
# On every exit path, in this order: QEMU killed, the mounts undone, the scratch folder deleted
# (or kept), and a setup failure reported as one.
# shellcheck disable=SC2317 # when_finished's
drop_work() {
  if [[ -n "$(awk -v r="$work" 'index($5, r "/") == 1' /proc/self/mountinfo)" ]]; then
    say "mounts remain below $work; not deleting it"
    status=1
  elif ((keep)); then
    say "scratch kept in $work"
  else
    rm -rf --one-file-system "$work"
  fi
}
# shellcheck disable=SC2317 # when_finished's
kill_qemu() { [[ -z "$QEMU_PID" ]] || kill -KILL "$QEMU_PID" 2>/dev/null; }
when_finished setup_failed system-setup
when_finished drop_work
when_finished root_unmount
when_finished kill_qemu

# --- 0. host tools ------------------------------------------------------------------------------
missing=()
command -v qemu-system-x86_64 >/dev/null || missing+=(qemu-system-x86)
[[ -x /bin/busybox ]] && grep -qx switch_root <<<"$(/bin/busybox --list 2>/dev/null)" || missing+=(busybox-static)
command -v debootstrap >/dev/null || missing+=(debootstrap)
[[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]] || missing+=(debian-archive-keyring)
command -v mkfs.ext4 >/dev/null || missing+=(e2fsprogs)
command -v cpio >/dev/null || missing+=(cpio)
command -v xz >/dev/null || missing+=(xz-utils)
command -v modprobe >/dev/null || missing+=(kmod)
command -v cc >/dev/null && [[ -f /usr/lib/x86_64-linux-gnu/libc.a ]] || missing+=(gcc libc6-dev)
if ((${#missing[@]})); then
  say "installing on this machine: ${missing[*]}"
  apt_retry apt-get update -qq || die "apt-get update failed"
  apt_retry env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    die "apt-get install ${missing[*]} failed"
fi

# --- 1. the packages: the one under test and the upgrade -------------------------------------
version=$(package_version "$REPO")
upgrade_version=$version$UPGRADE_SUFFIX
[[ -n "$build_root" ]] || build_root=$work/build
if [[ -z "$debs" ]]; then
  stage "the amd64 package (deploy/build-deb.sh --arch amd64)"
  debs=$work/debs
  bash "$REPO/deploy/build-deb.sh" --arch amd64 --root "$build_root" --keep --out "$debs" >&2 ||
    die "deploy/build-deb.sh --arch amd64 failed"
fi
deb_file=$debs/pomodoro_${version}_amd64.deb
web_file=$debs/pomodoro-web_${version}_amd64.deb
hooks_file=$debs/pomodoro-hooks_${version}_amd64.deb
for f in "$deb_file" "$web_file" "$hooks_file"; do
  [[ -f "$f" ]] || die "no ${f##*/} in $debs: deploy/build-deb.sh --arch amd64 --out $debs"
done
say "the packages under test: $deb_file, ${web_file##*/} and ${hooks_file##*/} (Version $(dpkg-deb -f "$deb_file" Version))"
stage "the upgrade package $upgrade_version (Tests/lib/host.sh)"
how=$(upgrade_debs "$REPO" "$build_root" "$debs" "$work/upgrade-deb.log") ||
  { tail -n 20 "$work/upgrade-deb.log" >&2; die "building the upgrade package $upgrade_version failed"; }
say "  ${how}"
upgrade_file=$debs/pomodoro_${upgrade_version}_amd64.deb
upgrade_web_file=$debs/pomodoro-web_${upgrade_version}_amd64.deb
upgrade_hooks_file=$debs/pomodoro-hooks_${upgrade_version}_amd64.deb

# --- 2. the device root: trixie minbase, systemd as init, trixie's kernel -----------------------
if [[ -f "$devroot/$READY_MARK" ]]; then
  say "reusing the device root in $devroot"
else
  stage "debootstrap $SUITE (minbase + $DEVICE_PACKAGES)"
  rm -rf --one-file-system "$devroot"
  mkdir -p "$devroot"
  root=$devroot
  debootstrap_root --include "$DEVICE_PACKAGES" "$SUITE" "${DEBIAN_MIRROR:-}"
  stage "trixie's kernel (linux-image-amd64, INITRD=No: the test's own initramfs mounts the root)"
  root_mounts
  apt_in_root -qq update
  apt_retry in_root env INITRD=No apt-get -o Acquire::Retries=3 -o APT::Install-Recommends=false \
    -y -qq install linux-image-amd64 >/dev/null || die "apt-get install linux-image-amd64 failed"
  root_unmount
  touch "$devroot/$READY_MARK"
fi
KVER=$(basename "$(find "$devroot/lib/modules" -mindepth 1 -maxdepth 1 -type d | sort -V | tail -n 1)")
KDEB=$(chroot "$devroot" dpkg-query -W -f "\${Version}" "linux-image-$KVER")
say "kernel $KVER ($KDEB)"

# --- 3. gpio-sim for that kernel, built in the build root with trixie's gcc ---------------------
if [[ ! -f "$devroot/lib/modules/$KVER/updates/gpio-sim.ko" ]]; then
  stage "gpio-sim.ko for $KVER (headers and linux-source-$KERNEL_SERIES $KDEB in the build root)"
  root=$build_root
  root_mounts
  # The headers depend on the image; INITRD=No spares making an initramfs nobody boots.
  apt_retry in_root env INITRD=No apt-get -o Acquire::Retries=3 -o APT::Install-Recommends=false \
    -y -qq install "linux-headers-$KVER=$KDEB" make >/dev/null ||
    die "apt-get install linux-headers-$KVER=$KDEB failed in the build root"
  rm -rf "$build_root/var/tmp/systest" && mkdir -p "$build_root/var/tmp/systest" && chmod 777 "$build_root/var/tmp/systest"
  apt_retry in_root sh -c "cd /var/tmp/systest && apt-get -q download linux-source-$KERNEL_SERIES=$KDEB" >/dev/null ||
    die "apt-get download linux-source-$KERNEL_SERIES=$KDEB failed"
  gpio_sim_sources "$(ls "$build_root"/var/tmp/systest/linux-source-*.deb)" "$KERNEL_SERIES" "$build_root/var/tmp/systest/gpio-sim"
  in_root make -s -C "/usr/src/linux-headers-$KVER" M=/var/tmp/systest/gpio-sim modules >"$work/gpio-sim-build.log" 2>&1 ||
    { cat "$work/gpio-sim-build.log" >&2; die "building gpio-sim.ko for $KVER failed"; }
  install -D -m 644 "$build_root/var/tmp/systest/gpio-sim/gpio-sim.ko" "$devroot/lib/modules/$KVER/updates/gpio-sim.ko"
  rm -rf "$build_root/var/tmp/systest"
  root_unmount
fi
chroot "$devroot" depmod "$KVER"

# --- 4. install as a person does, plus the test-only units ---------------------------------------
stage "apt-get install ./${deb_file##*/} ./${web_file##*/} ./${hooks_file##*/} in the device root"
rm -rf "$devroot/usr/local/lib/systest"
install -d "$devroot/var/tmp/pomodoro-deb" "$devroot/usr/local/lib/systest/debs"
install -m 644 "$deb_file" "$web_file" "$hooks_file" "$devroot/var/tmp/pomodoro-deb/"
# The upgrade, for the guest (apt reads local packages as _apt: world-readable).
install -m 644 "$upgrade_file" "$upgrade_web_file" "$upgrade_hooks_file" "$devroot/usr/local/lib/systest/debs/"
root=$devroot
root_mounts
apt_in_root -qq update >/dev/null || die "apt-get update in the device root failed"
apt_start=$SECONDS
# avahi-daemon and avahi-utils, as Raspberry Pi OS has them (the page is announced through the
# daemon; avahi-browse checks it), and iproute2 for the guest's dummy interface; installed before
# the packages under test, so that the time below is theirs.
apt_retry in_root apt-get -y -q -o APT::Install-Recommends=false install avahi-daemon avahi-utils iproute2 \
  </dev/null >"$work/install-avahi.log" 2>&1 ||
  { tail -n 20 "$work/install-avahi.log" >&2; die "apt-get install avahi-daemon avahi-utils iproute2 failed in the device root"; }
apt_start=$SECONDS
apt_retry in_root apt-get -y -o APT::Install-Recommends=false install "/var/tmp/pomodoro-deb/${deb_file##*/}" \
  "/var/tmp/pomodoro-deb/${web_file##*/}" "/var/tmp/pomodoro-deb/${hooks_file##*/}" </dev/null >"$work/install.log" 2>&1 ||
  { tail -n 20 "$work/install.log" >&2; die "apt-get install ./${deb_file##*/} ./${web_file##*/} ./${hooks_file##*/} failed in the device root"; }
say "  apt-get install: $((SECONDS - apt_start)) s"
sed -E 's/\(Reading database \.\.\. [0-9]+%//g; s/^/  | /' "$work/install.log" >&2
# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
installed=$(in_root dpkg-query -W -f '${Version} ${db:Status-Abbrev}' pomodoro pomodoro-web pomodoro-hooks 2>&1 || true)
# The downloaded packages go; apt's caches of the package lists stay, as on a Pi, rebuilt
# here so that the guest's apt does not parse the lists again under TCG (about 60 s).
rm -f "$devroot"/var/cache/apt/archives/*.deb
in_root apt-cache gencaches >/dev/null
root_unmount
rm -f "$devroot/usr/sbin/policy-rc.d"
rm -rf "$devroot/var/tmp/pomodoro-deb"
if [[ "$installed" == "$version ii $version ii $version ii " ]]; then
  pass "install-deb: apt-get install ./${deb_file##*/} ./${web_file##*/} ./${hooks_file##*/} with no terminal: $version installed"
else
  fail install-deb "dpkg-query says '$installed' for pomodoro, pomodoro-web and pomodoro-hooks, expected '$version ii ' each"
fi
# No `systemctl enable` by hand: the packages enable their units (dh_installsystemd).
for unit in pomodoro pomodoro-web pomodoro-hooks; do
  name=install-deb-${unit#pomodoro}-unit-enabled
  name=${name/--/-}
  enabled=$(readlink "$devroot/etc/systemd/system/multi-user.target.wants/$unit.service" || true)
  if [[ "$enabled" == "/usr/lib/systemd/system/$unit.service" ]]; then
    pass "$name"
  else
    fail "$name" "multi-user.target.wants/$unit.service -> '$enabled', expected the package's unit"
  fi
done
# The test's own files: never part of the package.
install -D -m 644 -t "$devroot/usr/local/lib/systest/lib" "$REPO"/Tests/lib/{guest,test-lib}.sh "$REPO/deploy/pomodoro.conf"
install -m 644 "$SYS_DIR"/guest/{lib,part-main,part-cut,part-final}.sh "$devroot/usr/local/lib/systest/"
install -m 755 "$SYS_DIR"/guest/{main,sim-up,sim-down,sandbox-probe,web-request,hook-record}.sh "$devroot/usr/local/lib/systest/"
for helper in bounce level; do
  cc -static -O2 -Wall -o "$devroot/usr/local/lib/systest/$helper" "$SYS_DIR/guest/$helper.c" ||
    die "compiling Tests/system/guest/$helper.c failed"
done
for unit in systest-sim systest-driver; do
  install -m 644 "$SYS_DIR/guest/$unit.service" "$devroot/etc/systemd/system/"
  ln -sf "/etc/systemd/system/$unit.service" "$devroot/etc/systemd/system/multi-user.target.wants/$unit.service"
done
# A readable console: no getty on it (the test writes there), no colours; no gettys on the
# virtual terminals of a VM without a display (getty-static alone took 20 s of a boot).
for unit in serial-getty@ttyS0 getty@tty1 getty-static; do
  ln -sf /dev/null "$devroot/etc/systemd/system/$unit.service"
done
echo 'LABEL=pomodoro / ext4 errors=remount-ro 0 1' >"$devroot/etc/fstab"
echo pomodoro-systest >"$devroot/etc/hostname"
# debootstrap makes no /etc/hosts; a Pi's has these lines (a hook resolves localhost through it).
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tpomodoro-systest\n' >"$devroot/etc/hosts"
[[ -f "$devroot/etc/pomodoro/pomodoro.conf" ]] || die "the package left no /etc/pomodoro/pomodoro.conf"

# --- 5. the initramfs, the disk image ----------------------------------------------------------
stage "initramfs (busybox, ext4 and virtio_blk modules) and the ext4 disk image"
initrd_dir=$work/initramfs
rm -rf "$initrd_dir" && mkdir -p "$initrd_dir"/{bin,dev,proc,sys,newroot,lib/modules}
install -m 755 /bin/busybox "$initrd_dir/bin/busybox"
: >"$initrd_dir/modules.list"
for ko in $(for m in crc32c_generic ext4 virtio_blk; do modprobe -d "$devroot" -S "$KVER" --show-depends "$m"; done |
  awk '$1 == "insmod" { print $2 }'); do
  base=$(basename "$ko" .xz)
  grep -qx "$base" "$initrd_dir/modules.list" && continue
  case "$ko" in *.xz) xz -dc "$ko" >"$initrd_dir/lib/modules/$base" ;; *) cp "$ko" "$initrd_dir/lib/modules/$base" ;; esac
  echo "$base" >>"$initrd_dir/modules.list"
done
say "  initramfs modules: $(tr '\n' ' ' <"$initrd_dir/modules.list")"
cat >"$initrd_dir/init" <<'INIT'
#!/bin/busybox sh
# The system test's initramfs: the root file system's modules, then systemd on /dev/vda.
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
while read -r ko; do insmod "/lib/modules/$ko"; done </modules.list
i=0
# (no test library in the initramfs: its own bounded poll for the disk)
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mount -t ext4 -o ro /dev/vda /newroot || { echo "initramfs: cannot mount /dev/vda"; poweroff -f; }
umount /proc
umount /dev
exec switch_root /newroot /sbin/init
INIT
chmod 755 "$initrd_dir/init"
(cd "$initrd_dir" && find . -print0 | cpio --null -o -H newc --quiet -R 0:0) >"$work/initramfs.cpio"
cp "$devroot/boot/vmlinuz-$KVER" "$work/vmlinuz"
image=$work/disk.img
size_mb=$(($(du -sm --one-file-system "$devroot" | cut -f1) + 400))
rm -f "$image"
mkfs.ext4 -q -F -L pomodoro -d "$devroot" "$image" "${size_mb}M" || die "mkfs.ext4 -d failed"
say "  image ${size_mb} MB, kernel $(stat -c %s "$work/vmlinuz") bytes, initramfs $(stat -c %s "$work/initramfs.cpio") bytes"

# --- 6. booting it ----------------------------------------------------------------------------
BOOT_TIMEOUT=${SYSTEST_BOOT_TIMEOUT:-600}
console=""  # the current boot's console log (raw)
stamped=""  # the same, one line each, prefixed by the host's clock when it was read
offset=0

# boot NAME SYSTEST-ARGS: starts QEMU on the image in the background.
boot() {
  console=$work/console-$1.log
  stamped=$work/stamped-$1.log
  offset=0
  : >"$console"
  : >"$stamped"
  rm -f "$work/qemu.pid"
  # -nodefaults -vga none: no VGA, floppy or CD-ROM for the guest to probe and drive (the
  # serial console and the disk are given); the PIIX4 SMBus (i2c_piix4) is the machine's own.
  qemu-system-x86_64 -accel tcg -m 1024 -smp 1 -nodefaults -vga none -display none -no-reboot -nic none \
    -monitor none -serial "file:$console" -pidfile "$work/qemu.pid" \
    -kernel "$work/vmlinuz" -initrd "$work/initramfs.cpio" \
    -drive "file=$image,format=raw,if=virtio" \
    -append "console=ttyS0 root=/dev/vda panic=-1 mitigations=off quiet loglevel=3 systemd.show_status=false systemd.tty.term.console=dumb $2" \
    </dev/null >"$work/qemu-$1.out" 2>&1 &
  QEMU_PID=$!
}

# poll_console: stamps the console's new whole lines with the host's clock.
poll_console() {
  local LC_ALL=C size chunk whole now
  size=$(stat -c %s "$console")
  ((size > offset)) || return 0
  # `; echo x`, not `&&`: tail dies of SIGPIPE when the console grew after stat (head stops at
  # size), which under pipefail is a failure though head has written every byte asked for.
  chunk=$(tail -c +$((offset + 1)) "$console" | head -c $((size - offset)); echo x)
  chunk=${chunk%x}
  [[ "$chunk" == *$'\n'* ]] || return 0
  whole=${chunk%$'\n'*}
  offset=$((offset + ${#whole} + 1))
  now=$(date +%s.%N)
  printf '%s\n' "$whole" | tr -d '\r' | awk -v t="$now" '{ print t " " $0 }' >>"$stamped"
}

qemu_running() { [[ -n "$QEMU_PID" ]] && kill -0 "$QEMU_PID" 2>/dev/null; }

# wait_console PATTERN SECONDS: until a console line matches PATTERN (extended regex); prints
# its host time. Fails when QEMU ends first or time runs out.
# (console_hit PATTERN, for wait_for: the console polled; a line matched, its time in `hit`, or
# QEMU has ended.)
console_hit() {
  poll_console
  hit=$(grep -E -m 1 "^[0-9.]+ .*$1" "$stamped" | cut -d' ' -f1 || true)
  [[ -n "$hit" ]] || ! qemu_running
}
wait_console() {
  local hit=""
  WAIT_EVERY_US=200000 wait_for "$2" console_hit "$1" && [[ -n "$hit" ]] || return 1
  echo "$hit"
}

# wait_poweroff SECONDS: until QEMU exits by itself; SIGKILL after SECONDS.
qemu_gone() {
  poll_console
  ! qemu_running
}
wait_poweroff() {
  WAIT_EVERY_US=500000 wait_for "$1" qemu_gone || true
  if qemu_running; then
    say "QEMU still running after $1 s: killed"
    kill -KILL "$(cat "$work/qemu.pid" 2>/dev/null || echo "$QEMU_PID")" 2>/dev/null || true
  fi
  wait "$QEMU_PID" 2>/dev/null || true
  QEMU_PID=""
  poll_console
}

# cut_power: SIGKILL to QEMU by its own pidfile (the RAM is lost; what reached the image stays).
cut_power() {
  local pid
  pid=$(cat "$work/qemu.pid")
  kill -KILL "$pid"
  cut_at=$(date +%s.%N)
  wait "$QEMU_PID" 2>/dev/null || true
  QEMU_PID=""
  poll_console
}

# guest_results: the guest's PASS/FAIL lines of this boot, counted.
guest_results() {
  { cut -d' ' -f2- "$stamped" | grep -E '^(PASS|FAIL) ' || true; } >"$work/results.txt"
  cat "$work/results.txt"
  count_results "$work/results.txt"
}

# guest_says PATTERN: the text of the last `systest: ...` console line matching PATTERN.
guest_says() { { cut -d' ' -f2- "$stamped" | grep -E "^systest: .*$1" || true; } | tail -n 1 | sed 's/^systest: //'; }

boot_figure() { # the guest's "boot finished after N s" of this boot
  guest_says 'boot finished after' | sed -n 's/.*boot finished after \([0-9.]*\) s.*/\1/p'
}

stage "boot 1: the installed system (systemd, the service, its sandbox, the upgrade, the scenario, power-off)"
boot main "systest=main"
if ! wait_console 'systest: boot finished' 300 >/dev/null; then
  fail boot-main "no 'boot finished' from the guest within 300 s; console: $(tail -n 20 "$console" | tr -d '\r' | tr '\n' '|')"
fi
wait_console 'systest: shutdown checks done' "$BOOT_TIMEOUT" >/dev/null || true
wait_poweroff 120
guest_results
boot_main=$(boot_figure)
say "guest boot to multi-user: ${boot_main:-?} s (guest uptime)"
# The upgrade's figures, and proof that its checks ran to the end (a guest script that stopped
# early would print no FAIL).
upgrade_apt_ms=$(guest_says 'upgrade: apt-get install took' | sed -n 's/.*took \([0-9]*\) ms.*/\1/p')
upgrade_lost_ms=$(guest_says 'upgrade: restored remaining_ms' | sed -n 's/.*(lost \(-\{0,1\}[0-9]*\) ms).*/\1/p')
if cut -d' ' -f2- "$stamped" | grep -E '^(PASS|FAIL) upgrade-session-one-record' >/dev/null; then
  pass upgrade-checks-ran
else
  fail upgrade-checks-ran "the guest never reached the upgrade's last check; console tail: $(tail -n 15 "$console" | tr -d '\r' | tr '\n' '|')"
fi
grep -q 'shutdown checks done' "$stamped" || fail shutdown-checks "the guest never reported the power-off checks; console tail: $(tail -n 15 "$console" | tr -d '\r' | tr '\n' '|')"
if grep -qE '^[0-9.]+ systest: (watchdog|sandbox|crashes): a test-only' "$stamped"; then
  cut -d' ' -f2- "$stamped" | grep -E '^systest: (watchdog|sandbox|crashes): a test-only' | sed 's/^/  /'
fi

# --- 7. power cuts ----------------------------------------------------------------------------
stage "$cuts power cuts (SIGKILL of QEMU while sessions run)"
RANDOM=${SYSTEST_SEED:-$$}
worst_lost=""
sessions_before=""
safe_sessions=0
torn_before=""
cut_ms=()
cycle_times=()
for ((n = 1; n <= cuts + 1; n++)); do
  if ((n <= cuts)); then part="cut"; else part="final"; fi
  cycle_start=$SECONDS
  boot "$part$n" "systest=$part systest_cut=$((n - 1))"
  if ! wait_console "systest: cut$((n - 1)) resumed" 300 >/dev/null; then
    fail "cut$((n - 1))-boot" "the guest never resumed after the cut; console: $(tail -n 20 "$console" | tr -d '\r' | tr '\n' '|')"
    wait_poweroff 5
    continue
  fi
  # What the last boot left: the history and the restored timer.
  hist=$(guest_says "cut$((n - 1)) history:")
  completed=$(sed -n 's/.*completed=\([0-9]*\).*/\1/p' <<<"$hist")
  torn=$(sed -n 's/.*torn=\([0-9]*\).*/\1/p' <<<"$hist")
  resumed=$(guest_says "cut$((n - 1)) resumed:")
  restored_ms=$(sed -n 's/.*remaining_ms=\([0-9]*\).*/\1/p' <<<"$resumed")
  status=$(guest_says "cut$((n - 1)) status:" | sed 's/^cut[0-9]* status: //')
  say "after cut $((n - 1)): $status; $hist; $resumed"
  if ((n > 1)); then
    c=$((n - 1))
    # Every session acknowledged at least 2 s before the cut is in the history.
    if ((completed >= sessions_before + safe_sessions)); then
      pass "cut$c-history-complete"
    else
      fail "cut$c-history-complete" "$completed completed sessions in history.jsonl, expected at least $sessions_before + $safe_sessions acknowledged 2 s or more before the cut"
    fi
    if ((torn - torn_before <= 1)); then
      pass "cut$c-history-torn-at-most-one"
    else
      fail "cut$c-history-torn-at-most-one" "$((torn - torn_before)) new torn lines in history.jsonl after one cut"
    fi
    if [[ -n "$expected_ms" ]]; then
      lost=$((restored_ms - expected_ms))
      cut_ms+=("$lost")
      if [[ "$status" == paused* && "$status" == *"$cut_mode"* ]]; then
        pass "cut$c-restored-paused"
      else
        fail "cut$c-restored-paused" "STATUS= '$status' after the cut, expected a paused $cut_mode"
      fi
      # A second of tolerance for the cut instant's mapping onto the guest's clock.
      if ((lost >= -1000 && lost <= 10000)); then
        pass "cut$c-time-kept"
      else
        fail "cut$c-time-kept" "restored remaining_ms=$restored_ms, $expected_ms at the cut: lost $lost ms (expected 0..10000, none gained)"
      fi
      say "cut $c: lost $lost ms ($restored_ms restored, $expected_ms left at the cut)"
      if [[ -z "$worst_lost" ]] || ((lost > worst_lost)); then worst_lost=$lost; fi
    else
      say "cut $c: the timer was not running at the cut (ringing or between sessions): history checks only"
    fi
  fi
  sessions_before=$completed
  torn_before=$torn
  if [[ "$part" == final ]]; then
    wait_console 'systest: part final done' 300 >/dev/null || true
    wait_poweroff 120
    guest_results
    if cut -d' ' -f2- "$stamped" | grep -E '^(PASS|FAIL) purge-keeps-user' >/dev/null; then
      pass remove-purge-checks-ran
    else
      fail remove-purge-checks-ran "the guest never reached the purge's last check; console tail: $(tail -n 15 "$console" | tr -d '\r' | tr '\n' '|')"
    fi
    break
  fi
  # Sessions run back to back; the cut falls at a random instant 5 to 45 s in.
  t_cycle=$(wait_console 'systest: cycling sessions' 60) || { fail "cut$n-cycle" "the guest did not start cycling"; wait_poweroff 5; continue; }
  delay=$((5 + RANDOM % 41))
  target=$(awk -v a="$t_cycle" -v d="$delay" 'BEGIN { printf "%.3f", a + d }')
  # (the cut's instant is the stimulus: the wait is for it, or for QEMU's end)
  cut_due() {
    poll_console
    awk -v t="$target" -v n="$(date +%s.%N)" 'BEGIN { exit !(n >= t) }' || ! qemu_running
  }
  WAIT_EVERY_US=100000 wait_for 120 cut_due || true
  cut_power
  guest_results
  cycle_times+=($((SECONDS - cycle_start)))
  # The state at the cut, on the guest's own clock: each live state line carries the journal's
  # monotonic receive time (mono=), and the guest's ticks (its uptime, 4 a second) map the
  # host's cut instant onto that clock, so the latency of the journal and the console does not
  # count as time lost or gained. cut_mono: the last tick the host stamped before the cut, plus the host
  # time since (the serial path's own delay, under 0.2 s, makes it err towards less lost).
  cut_mono=$(awk -v c="$cut_at" '$2 == "systest:" && $3 == "tick" && $1 < c { t = $1; m = $4 }
    END { if (t != "") printf "%.3f", m + (c - t) }' "$stamped")
  # A label comes last, as a bare word or a JSON string (which may hold "phase=" itself):
  # everything from " label=" on is left out before the fields are read.
  last=$(awk '$2 == "systest:" && $3 == "live" { sub(/ label=.*/, ""); print }' "$stamped" | tail -n 1)
  expected_ms=""
  cut_mode=""
  if [[ "$last" == *"phase=running"* && -n "$cut_mono" ]]; then
    seen=$(sed -n 's/.* mono=\([0-9.]*\) .*/\1/p' <<<"$last")
    remaining=$(sed -n 's/.*remaining_ms=\([0-9]*\).*/\1/p' <<<"$last")
    cut_mode=$(sed -n 's/.*mode=\([a-z]*\).*/\1/p' <<<"$last")
    expected_ms=$(awk -v r="$remaining" -v s="$seen" -v c="$cut_mono" 'BEGIN { printf "%d", r - (c - s) * 1000 }')
    ((expected_ms > 1500)) || expected_ms="" # about to ring: the session end is what is tested then
  fi
  # A session is recorded when its alarm is acknowledged (or times out): every ringing state
  # followed by another state 2 s or more before the cut must be in history.jsonl.
  safe_sessions=$(awk -v c="${cut_mono:-0}" '$2 == "systest:" && $3 == "live" {
      sub(/ label=.*/, "")
      m = $4; sub(/^mono=/, "", m)
      if (m + 0 >= c - 2) next
      if (ringing && !/phase=ringing/) n++
      ringing = /phase=ringing/
    } END { print n + 0 }' "$stamped")
  say "cut $n after ${delay} s of sessions: last state '${last#* systest: live }'; ${expected_ms:-no running timer} ms left; $safe_sessions sessions acknowledged before it"
done

# --- 8. the file system after the orderly power-off -------------------------------------------
stage "e2fsck -fn of the image after the last, orderly power-off"
if e2fsck -fn "$image" >"$work/e2fsck.log" 2>&1; then
  pass fs-clean-after-poweroff
else
  fail fs-clean-after-poweroff "e2fsck -fn: $(tail -n 5 "$work/e2fsck.log" | tr '\n' '|')"
fi
stage_times
REPORTED=1
total_sessions=$({ cut -d' ' -f2- "$work"/stamped-final*.log 2>/dev/null || true; } | sed -n 's/^systest: cut[0-9]* history: .*completed=\([0-9]*\).*/\1/p' | tail -n 1)
say "figures: boot to multi-user ${boot_main:-?} s (guest uptime, first boot); cut-and-reboot cycles ${cycle_times[*]:-none} s;" \
  "cuts $cuts, sessions completed in history ${total_sessions:-?}, seconds lost per cut (ms) ${cut_ms[*]:-none}," \
  "worst ${worst_lost:-n/a} ms; upgrade in the guest: apt-get install ${upgrade_apt_ms:-?} ms, timer lost ${upgrade_lost_ms:-?} ms;" \
  "total $((SECONDS - T0)) s"
test_done
