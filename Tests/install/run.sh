#!/usr/bin/env bash
# Tests/install/run.sh: exercises deploy/install.sh here, without a Pi: its dry run, and real
# installs, an upgrade and an uninstall staged in a scratch folder (--dest) with a stand-in
# binary (--binary), against Raspberry Pi OS-like config.txt files. Needs no root.
# Usage: bash Tests/install/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$(pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/pomodoro-install-test.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
# shellcheck source=Tests/lib/test-lib.sh
source Tests/lib/test-lib.sh
contains() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }
count_lines() { [[ "$(grep -cxF -- "$2" "$1" || true)" == "$3" ]]; }
line_after() { # line_after FILE FIRST SECOND: SECOND is the line right after FIRST
  awk -v a="$2" -v b="$3" 'prev == a && $0 == b { found = 1 } { prev = $0 } END { exit !found }' "$1"
}

fake_binary() { # fake_binary PATH VERSION
  printf '#!/bin/sh\necho "pomodoro %s"\n' "$2" >"$1"
  chmod 755 "$1"
}

new_root() { # new_root DIR CONFIG-TXT-CONTENT: a staged Raspberry Pi OS trixie
  mkdir -p "$1/etc" "$1/boot/firmware"
  printf 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nVERSION_CODENAME=trixie\n' >"$1/etc/os-release"
  printf '%s\n' "$2" >"$1/boot/firmware/config.txt"
}

install() { bash deploy/install.sh --no-start "$@" >"$scratch/out" 2>&1; }

pi_os_config='# For more options and information see
# http://rptl.io/configtxt

# Uncomment some or all of these to enable the optional hardware interfaces
#dtparam=i2c_arm=on
#dtparam=i2s=on
#dtparam=spi=on

dtparam=audio=on
camera_auto_detect=1
display_auto_detect=1

[cm4]
otg_mode=1

[all]'

# --- a dry run changes nothing --------------------------------------------------------------------
root="$scratch/dry"
new_root "$root" "$pi_os_config"
cp -a "$root" "$scratch/dry-before"
fake_binary "$scratch/pomodoro-1" 1
bash deploy/install.sh --dry-run --dest "$root" >"$scratch/out" 2>&1
expect "dry run: exits 0" true
expect "dry run: says it would build with swift-build -c release" contains "$scratch/out" "would run: swift-build --package-path $repo -c release --static-swift-stdlib --manifest-cache none"
expect "dry run: says it would apt-get satisfy control's build dependencies, swiftlang first (trixie)" contains "$scratch/out" "swiftlang (>= 6.0), libgpiod-dev (>= 2), libi2c-dev, libmosquitto-dev, libmicrohttpd-dev, libstdc++-14-dev"
bw_root="$scratch/bookworm-deps"
new_root "$bw_root" "$pi_os_config"
printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_CODENAME=bookworm\n' >"$bw_root/etc/os-release"
bash deploy/install.sh --dry-run --dest "$bw_root" >"$scratch/out-bookworm" 2>&1 || true
expect "dry run on bookworm: control's build dependencies less swiftlang, with GCC 12's libstdc++" contains "$scratch/out-bookworm" \
  "--no-install-recommends libgpiod-dev, libi2c-dev, libmosquitto-dev, libmicrohttpd-dev, libstdc++-12-dev"
expect "dry run: shows the config.txt change" contains "$scratch/out" "+dtparam=i2c_arm_baudrate=400000"
expect "dry run: says it would install the unit" contains "$scratch/out" "$root/etc/systemd/system/pomodoro.service"
expect "dry run: leaves the staged system as it was" diff -r "$scratch/dry-before" "$root"
bash deploy/install.sh --dry-run --uninstall --dest "$root" >"$scratch/out" 2>&1
expect "dry run --uninstall: leaves the staged system as it was" diff -r "$scratch/dry-before" "$root"

# --- a fresh install ----------------------------------------------------------------------------
root="$scratch/pi"
new_root "$root" "$pi_os_config"
install --dest "$root" --binary "$scratch/pomodoro-1"
expect "install: exits 0" true
expect "install: the binary is in /usr/local/bin" cmp "$scratch/pomodoro-1" "$root/usr/local/bin/pomodoro"
expect "install: the binary is executable" test -x "$root/usr/local/bin/pomodoro"
expect "install: the config is the shipped one" cmp deploy/pomodoro.conf "$root/etc/pomodoro/pomodoro.conf"
expect "install: the unit is installed" cmp deploy/pomodoro.service "$root/etc/systemd/system/pomodoro.service"
expect "install: i2c-dev loads at boot (the package's modules file, as it is)" cmp deploy/debian/pomodoro-i2c.conf "$root/etc/modules-load.d/pomodoro-i2c.conf"
expect "install: the package's udev rule, as it is" cmp deploy/debian/pomodoro.udev "$root/etc/udev/rules.d/60-pomodoro.rules"
expect "install: the package's sysusers file, as it is" cmp deploy/debian/pomodoro.sysusers "$root/etc/sysusers.d/pomodoro.conf"
expect "install: the users made from it (skipped under --dest)" contains "$scratch/out" "skipped (--dest): systemd-sysusers /etc/sysusers.d/pomodoro.conf"
cfg="$root/boot/firmware/config.txt"
expect "install: config.txt has I2C on once" count_lines "$cfg" "dtparam=i2c_arm=on" 1
expect "install: the commented line was the one switched on" lacks "$cfg" "#dtparam=i2c_arm=on"
expect "install: 400 kHz right after it" line_after "$cfg" "dtparam=i2c_arm=on" "dtparam=i2c_arm_baudrate=400000"
expect "install: nothing appended under [all]" line_after "$cfg" "otg_mode=1" ""
expect "install: one backup of config.txt" test "$(find "$root/boot/firmware" -name 'config.txt.pomodoro-*.bak' | wc -l)" -eq 1
backup="$(find "$root/boot/firmware" -name 'config.txt.pomodoro-*.bak' | head -n 1)"
expect "install: the backup is the original" diff <(printf '%s\n' "$pi_os_config") "$backup"
expect "install: says a reboot is needed" contains "$scratch/out" "REBOOT NEEDED"

# --- re-running upgrades in place and keeps config and state --------------------------------------
sed -i 's/^focus = 25m$/focus = 50m/' "$root/etc/pomodoro/pomodoro.conf"
mkdir -p "$root/var/lib/pomodoro"
echo '{"phase":"idle"}' >"$root/var/lib/pomodoro/state.json"
echo '{"mode":"focus","ms":1500000}' >"$root/var/lib/pomodoro/history.jsonl"
cp "$cfg" "$scratch/config-after-first"
fake_binary "$scratch/pomodoro-2" 2
install --dest "$root" --binary "$scratch/pomodoro-2"
expect "upgrade: exits 0" true
expect "upgrade: the binary is the new one" cmp "$scratch/pomodoro-2" "$root/usr/local/bin/pomodoro"
expect "upgrade: the edited config is kept" contains "$root/etc/pomodoro/pomodoro.conf" "focus = 50m"
expect "upgrade: the shipped config is beside it as .example" cmp deploy/pomodoro.conf "$root/etc/pomodoro/pomodoro.conf.example"
expect "upgrade: the state is kept" contains "$root/var/lib/pomodoro/state.json" "idle"
expect "upgrade: the history is kept" contains "$root/var/lib/pomodoro/history.jsonl" "focus"
expect "upgrade: config.txt is not touched again" cmp "$scratch/config-after-first" "$cfg"
expect "upgrade: no second backup" test "$(find "$root/boot/firmware" -name 'config.txt.pomodoro-*.bak' | wc -l)" -eq 1
expect "upgrade: no reboot needed" lacks "$scratch/out" "REBOOT NEEDED"
expect "upgrade: says it kept the config" contains "$scratch/out" "config: kept /etc/pomodoro/pomodoro.conf"

# --- --uninstall does what apt remove does: the files go, the config, state and users stay --------
bash deploy/install.sh --uninstall --dest "$root" >"$scratch/out" 2>&1
expect "uninstall: exits 0" true
expect "uninstall: the binary is gone" test ! -e "$root/usr/local/bin/pomodoro"
expect "uninstall: the unit is gone" test ! -e "$root/etc/systemd/system/pomodoro.service"
expect "uninstall: the edited config is kept (as apt remove keeps it)" contains "$root/etc/pomodoro/pomodoro.conf" "focus = 50m"
expect "uninstall: the shipped config's copy is gone" test ! -e "$root/etc/pomodoro/pomodoro.conf.example"
expect "uninstall: the i2c-dev file is gone" test ! -e "$root/etc/modules-load.d/pomodoro-i2c.conf"
expect "uninstall: the udev rule is gone" test ! -e "$root/etc/udev/rules.d/60-pomodoro.rules"
expect "uninstall: the sysusers file is gone" test ! -e "$root/etc/sysusers.d/pomodoro.conf"
expect "uninstall: the state is kept (as apt remove keeps it)" contains "$root/var/lib/pomodoro/state.json" "idle"
expect "uninstall: the history is kept" contains "$root/var/lib/pomodoro/history.jsonl" "focus"
expect "uninstall: removes no user" lacks "$scratch/out" "userdel"
expect "uninstall: says what apt purge would delete" contains "$scratch/out" \
  "apt purge would also delete /etc/pomodoro/pomodoro.conf, /var/lib/pomodoro (the timer and the history), /var/lib/pomodoro-mqtt and /var/lib/pomodoro-web (the paired browsers)"

# --- --with-mqtt: the bridge's unit and user, and --uninstall removes them ----------------------------
root="$scratch/mqtt"
new_root "$root" "$pi_os_config"
install --dest "$root" --binary "$scratch/pomodoro-1"
expect "without --with-mqtt: no bridge unit" test ! -e "$root/etc/systemd/system/pomodoro-mqtt.service"
expect "without --with-mqtt: no bridge user" lacks "$scratch/out" "pomodoro-mqtt"
cp -a "$root" "$scratch/mqtt-before"
bash deploy/install.sh --dry-run --with-mqtt --dest "$root" >"$scratch/out" 2>&1
expect "dry run --with-mqtt: exits 0" true
expect "dry run --with-mqtt: libmosquitto-dev before the build" line_after "$scratch/out" \
  "would run: env DEBIAN_FRONTEND=noninteractive apt-get satisfy -y -o Acquire::Retries=3 --no-install-recommends libmosquitto-dev" \
  "would run: swift-build --package-path $repo -c release --static-swift-stdlib --manifest-cache none"
expect "dry run --with-mqtt: would install the bridge's unit" contains "$scratch/out" \
  "would run: install -m 0644 $repo/deploy/pomodoro-mqtt.service $root/etc/systemd/system/pomodoro-mqtt.service"
expect "dry run --with-mqtt: would make the user pomodoro-mqtt in the group pomodoro (the package's sysusers file)" \
  line_after "$scratch/out" \
  "would run: install -D -m 0644 $repo/deploy/debian/pomodoro-mqtt.sysusers $root/etc/sysusers.d/pomodoro-mqtt.conf" \
  "would run: systemd-sysusers /etc/sysusers.d/pomodoro-mqtt.conf"
expect "dry run --with-mqtt: would enable and start the bridge" line_after "$scratch/out" \
  "would run: systemctl enable pomodoro-mqtt.service" "would run: systemctl restart pomodoro-mqtt.service"
expect "dry run --with-mqtt: leaves the staged system as it was" diff -r "$scratch/mqtt-before" "$root"
install --dest "$root" --binary "$scratch/pomodoro-2" --with-mqtt
expect "--with-mqtt: exits 0" true
expect "--with-mqtt: the bridge's unit is installed" cmp deploy/pomodoro-mqtt.service "$root/etc/systemd/system/pomodoro-mqtt.service"
expect "--with-mqtt: the device's unit is still installed" cmp deploy/pomodoro.service "$root/etc/systemd/system/pomodoro.service"
expect "--with-mqtt: the binary is the new one" cmp "$scratch/pomodoro-2" "$root/usr/local/bin/pomodoro"
expect "--with-mqtt --binary: the library the bridge loads" contains "$scratch/out" "--no-install-recommends libmosquitto1"
expect "--with-mqtt --binary: warns when the binary lacks libmosquitto" contains "$scratch/out" "was built without libmosquitto"
expect "--with-mqtt: the package's sysusers file, as it is" cmp deploy/debian/pomodoro-mqtt.sysusers "$root/etc/sysusers.d/pomodoro-mqtt.conf"
expect "--with-mqtt: the user pomodoro-mqtt in the group pomodoro (skipped under --dest)" contains "$scratch/out" \
  "skipped (--dest): systemd-sysusers /etc/sysusers.d/pomodoro-mqtt.conf"
expect "--with-mqtt: says how to enable it later" contains "$scratch/out" "systemctl enable --now pomodoro-mqtt"
bash deploy/install.sh --dry-run --uninstall --dest "$root" >"$scratch/out" 2>&1
expect "dry run --uninstall: would stop and disable the bridge" contains "$scratch/out" \
  "would run: systemctl disable --now pomodoro-mqtt.service"
bash deploy/install.sh --uninstall --dest "$root" >"$scratch/out" 2>&1
expect "uninstall: the bridge's unit is gone" test ! -e "$root/etc/systemd/system/pomodoro-mqtt.service"
expect "uninstall: the device's unit is gone" test ! -e "$root/etc/systemd/system/pomodoro.service"
expect "uninstall: the bridge's sysusers file is gone" test ! -e "$root/etc/sysusers.d/pomodoro-mqtt.conf"

# --- --with-web: the page's unit and user, and --uninstall removes them -------------------------------
root="$scratch/web"
new_root "$root" "$pi_os_config"
install --dest "$root" --binary "$scratch/pomodoro-1"
expect "without --with-web: no page unit" test ! -e "$root/etc/systemd/system/pomodoro-web.service"
cp -a "$root" "$scratch/web-before"
bash deploy/install.sh --dry-run --with-web --dest "$root" >"$scratch/out" 2>&1
expect "dry run --with-web: exits 0" true
expect "dry run --with-web: would install the page's unit" contains "$scratch/out" \
  "would run: install -m 0644 $repo/deploy/pomodoro-web.service $root/etc/systemd/system/pomodoro-web.service"
expect "dry run --with-web: would make the user pomodoro-web in the group pomodoro (the package's sysusers file)" \
  line_after "$scratch/out" \
  "would run: install -D -m 0644 $repo/deploy/debian/pomodoro-web.sysusers $root/etc/sysusers.d/pomodoro-web.conf" \
  "would run: systemd-sysusers /etc/sysusers.d/pomodoro-web.conf"
expect "dry run --with-web: would enable and start the page" line_after "$scratch/out" \
  "would run: systemctl enable pomodoro-web.service" "would run: systemctl restart pomodoro-web.service"
expect "dry run --with-web: leaves the staged system as it was" diff -r "$scratch/web-before" "$root"
install --dest "$root" --binary "$scratch/pomodoro-2" --with-web --with-mqtt
expect "--with-web --with-mqtt: exits 0" true
expect "--with-web: the page's unit is installed" cmp deploy/pomodoro-web.service "$root/etc/systemd/system/pomodoro-web.service"
expect "--with-web --with-mqtt: the bridge's unit too" cmp deploy/pomodoro-mqtt.service "$root/etc/systemd/system/pomodoro-mqtt.service"
expect "--with-web --binary: the library the page loads (trixie's libmicrohttpd12t64)" contains "$scratch/out" \
  "--no-install-recommends libmicrohttpd12t64"
expect "--with-web --binary: warns when the binary lacks libmicrohttpd" contains "$scratch/out" "was built without libmicrohttpd"
expect "--with-web: the package's sysusers file, as it is" cmp deploy/debian/pomodoro-web.sysusers "$root/etc/sysusers.d/pomodoro-web.conf"
expect "--with-web: says how to enable it later" contains "$scratch/out" "systemctl enable --now pomodoro-web"
bash deploy/install.sh --dry-run --uninstall --dest "$root" >"$scratch/out" 2>&1
expect "dry run --uninstall: would stop and disable the page" contains "$scratch/out" \
  "would run: systemctl disable --now pomodoro-web.service"
bash deploy/install.sh --uninstall --dest "$root" >"$scratch/out" 2>&1
expect "uninstall: the page's unit is gone" test ! -e "$root/etc/systemd/system/pomodoro-web.service"
expect "uninstall: the page's sysusers file is gone" test ! -e "$root/etc/sysusers.d/pomodoro-web.conf"

# --- other config.txt shapes ----------------------------------------------------------------------
root="$scratch/pi4-last"
new_root "$root" "dtparam=audio=on
[pi4]
arm_boost=1"
install --dest "$root" --binary "$scratch/pomodoro-1"
cfg="$root/boot/firmware/config.txt"
expect "no I2C lines: appended under a new [all]" line_after "$cfg" "[all]" "# I2C bus 1 at 400 kHz for the Pomodoro device display (deploy/install.sh)"
expect "no I2C lines: I2C on once" count_lines "$cfg" "dtparam=i2c_arm=on" 1
expect "no I2C lines: 400 kHz after it" line_after "$cfg" "dtparam=i2c_arm=on" "dtparam=i2c_arm_baudrate=400000"
expect "no I2C lines: the [pi4] section is intact" line_after "$cfg" "[pi4]" "arm_boost=1"

root="$scratch/off-slow"
new_root "$root" "dtparam=i2c_arm=off
dtparam=i2c_arm_baudrate=100000
dtparam=spi=on"
install --dest "$root" --binary "$scratch/pomodoro-1"
cfg="$root/boot/firmware/config.txt"
expect "off and 100 kHz: switched on in place" line_after "$cfg" "dtparam=i2c_arm=on" "dtparam=i2c_arm_baudrate=400000"
expect "off and 100 kHz: no 100 kHz line left" lacks "$cfg" "i2c_arm_baudrate=100000"
expect "off and 100 kHz: no off line left" lacks "$cfg" "i2c_arm=off"
expect "off and 100 kHz: other lines kept" contains "$cfg" "dtparam=spi=on"

root="$scratch/already"
new_root "$root" "dtparam=i2c_arm=on
dtparam=i2c_arm_baudrate=400000"
install --dest "$root" --binary "$scratch/pomodoro-1"
expect "already on: no backup made" test "$(find "$root/boot/firmware" -name '*.bak' | wc -l)" -eq 0
expect "already on: no reboot needed" lacks "$scratch/out" "REBOOT NEEDED"

# --- --no-apt: no apt-get; the runtime packages must be there (checked on this machine) -----------
root="$scratch/no-apt"
new_root "$root" "dtparam=i2c_arm=on"
bash deploy/install.sh --dry-run --dest "$root" --binary "$scratch/pomodoro-1" >"$scratch/out" 2>&1
expect "without --no-apt: apt-get update is run" contains "$scratch/out" "apt-get update"
set +e
bash deploy/install.sh --dry-run --no-apt --dest "$root" --binary "$scratch/pomodoro-1" >"$scratch/out" 2>&1
status=$?
set -e
expect "--no-apt: no apt-get at all" lacks "$scratch/out" "apt-get update"
if [[ "$(dpkg-query -W -f '${db:Status-Status}' libgpiod3 2>/dev/null)" == installed ]]; then
  expect "--no-apt: the installed libgpiod3 is enough" test "$status" -eq 0
  expect "--no-apt: says so" contains "$scratch/out" "--no-apt: libgpiod3 libi2c0 already installed"
else
  expect "--no-apt: a missing libgpiod3 stops it" test "$status" -ne 0
  expect "--no-apt: names the missing package" contains "$scratch/out" "--no-apt, but not installed: libgpiod3"
fi

# --- --deb: the Debian package instead of a build ------------------------------------------------
root="$scratch/deb"
new_root "$root" "$pi_os_config"
mkdir -p "$scratch/debs" "$root/usr/local/bin" "$root/etc/systemd/system"
: >"$scratch/debs/pomodoro_0.1.0_arm64.deb"
fake_binary "$root/usr/local/bin/pomodoro" 1 # a source install before it
: >"$root/etc/systemd/system/pomodoro.service"
install --dest "$root" --deb "$scratch/debs/pomodoro_0.1.0_arm64.deb"
expect "--deb: apt-get installs the package" contains "$scratch/out" "apt-get install -y -o Acquire::Retries=3 --no-install-recommends $scratch/debs/pomodoro_0.1.0_arm64.deb"
expect "--deb: builds nothing" lacks "$scratch/out" "swift-build"
expect "--deb: the source install's binary removed" test ! -e "$root/usr/local/bin/pomodoro"
expect "--deb: the source install's unit removed (it would shadow the package's)" test ! -e "$root/etc/systemd/system/pomodoro.service"
expect "--deb: I2C turned on in config.txt" grep -qx 'dtparam=i2c_arm=on' "$root/boot/firmware/config.txt"
expect "--deb: reboot needed" contains "$scratch/out" "REBOOT NEEDED"
set +e
install --dest "$root" --deb "$scratch/debs/pomodoro_0.1.0_arm64.deb" --with-mqtt
status=$?
set -e
expect "--deb --with-mqtt: refused without the bridge's package beside it" test "$status" -ne 0
expect "--deb --with-mqtt: names it" contains "$scratch/out" "no $scratch/debs/pomodoro-mqtt_0.1.0_arm64.deb"
: >"$scratch/debs/pomodoro-mqtt_0.1.0_arm64.deb"
install --dest "$root" --deb "$scratch/debs/pomodoro_0.1.0_arm64.deb" --with-mqtt
expect "--deb --with-mqtt: both packages in one apt-get install" contains "$scratch/out" "$scratch/debs/pomodoro_0.1.0_arm64.deb $scratch/debs/pomodoro-mqtt_0.1.0_arm64.deb"
set +e
install --dest "$root" --deb "$scratch/debs/pomodoro_0.1.0_arm64.deb" --with-web
status=$?
set -e
expect "--deb --with-web: refused without the page's package beside it" test "$status" -ne 0
expect "--deb --with-web: names it" contains "$scratch/out" "no $scratch/debs/pomodoro-web_0.1.0_arm64.deb"
: >"$scratch/debs/pomodoro-web_0.1.0_arm64.deb"
install --dest "$root" --deb "$scratch/debs/pomodoro_0.1.0_arm64.deb" --with-mqtt --with-web
expect "--deb --with-mqtt --with-web: the three packages in one apt-get install" contains "$scratch/out" \
  "$scratch/debs/pomodoro_0.1.0_arm64.deb $scratch/debs/pomodoro-mqtt_0.1.0_arm64.deb $scratch/debs/pomodoro-web_0.1.0_arm64.deb"
set +e
install --dest "$root" --deb "$scratch/debs/pomodoro-mqtt_0.1.0_arm64.deb"
status=$?
set -e
expect "--deb: only a pomodoro_VERSION_ARCH.deb" test "$status" -ne 0

# --- refusals -------------------------------------------------------------------------------------
# What the package cannot serve: 32-bit Raspberry Pi OS (dpkg says armhf, whatever uname says)
# and, for --deb, a release other than trixie. Each names its fix.
mkdir -p "$scratch/armhf-bin"
# shellcheck disable=SC2016 # the stand-in's own "$1" and "$@"
printf '#!/bin/sh\n[ "$1" = --print-architecture ] && { echo armhf; exit 0; }\nexec /usr/bin/dpkg "$@"\n' \
  >"$scratch/armhf-bin/dpkg"
chmod 755 "$scratch/armhf-bin/dpkg"
for how in "--binary $scratch/pomodoro-1" "--deb $scratch/debs/pomodoro_0.1.0_arm64.deb"; do
  root="$scratch/armhf"
  rm -rf "$root"
  new_root "$root" "$pi_os_config"
  set +e
  # shellcheck disable=SC2086 # two words
  PATH="$scratch/armhf-bin:$PATH" bash deploy/install.sh --no-start --dest "$root" $how >"$scratch/out" 2>&1
  status=$?
  set -e
  expect "armhf (${how%% *}): refused" test "$status" -ne 0
  expect "armhf (${how%% *}): names the fix (reflash with the 64-bit Raspberry Pi OS)" \
    contains "$scratch/out" "Fix: reflash the card"
  expect "armhf (${how%% *}): says a Zero 2 W runs it" contains "$scratch/out" "a Pi 3, 4, 5 or Zero 2 W runs it"
  expect "armhf (${how%% *}): nothing installed" test ! -e "$root/usr/local/bin/pomodoro"
done
for codename in bookworm forky; do
  root="$scratch/$codename"
  new_root "$root" "$pi_os_config"
  printf 'PRETTY_NAME="Debian GNU/Linux (%s)"\nVERSION_CODENAME=%s\n' "$codename" "$codename" >"$root/etc/os-release"
  set +e
  install --dest "$root" --deb "$scratch/debs/pomodoro_0.1.0_arm64.deb"
  status=$?
  set -e
  expect "--deb on $codename: refused" test "$status" -ne 0
  expect "--deb on $codename: names the fix (Raspberry Pi OS trixie, 64-bit)" \
    grep -qF "this system is $codename. Fix: reflash the card with the current Raspberry Pi OS" "$scratch/out"
  expect "--deb on $codename: no apt-get install" lacks "$scratch/out" "apt-get install"
done
set +e
bash deploy/install.sh --bogus >"$scratch/out" 2>&1
status=$?
set -e
expect "an unknown option exits 64" test "$status" -eq 64
set +e
bash deploy/install.sh --dest "$scratch/x" --binary /nonexistent >"$scratch/out" 2>&1
status=$?
set -e
expect "a missing --binary is refused" test "$status" -ne 0

test_done test-install
