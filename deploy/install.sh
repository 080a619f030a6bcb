#!/usr/bin/env bash
# deploy/install.sh: builds and installs the Pomodoro desk device on Raspberry Pi OS (64-bit,
# bookworm or trixie), or upgrades it in place, or removes it.
#
# Usage: sudo bash deploy/install.sh [--dry-run] [--no-start] [--no-apt] [--binary FILE] [--dest DIR] [--with-mqtt]
#                                    [--with-web]
#        sudo bash deploy/install.sh --deb FILE [--with-mqtt] [--with-web] [--dry-run] [--dest DIR]
#        sudo bash deploy/install.sh --uninstall [--dry-run] [--dest DIR]
#   --dry-run     print what would be done, change nothing
#   --no-start    install and enable the service, but do not (re)start it now
#   --no-apt      no apt-get (a device without network, a re-install): the packages of step 1
#                 must be installed already; it stops naming any that is missing
#   --binary FILE install this pomodoro binary (built elsewhere, e.g. for arm64) instead of
#                 installing the build dependencies and building
#   --deb FILE    install the Debian package FILE (deploy/build-deb.sh's pomodoro_VERSION_ARCH.deb, for
#                 trixie only: another release is refused;
#                 with --with-mqtt and --with-web also the pomodoro-mqtt_VERSION_ARCH.deb and
#                 pomodoro-web_VERSION_ARCH.deb beside it) with apt
#                 instead of building: the package brings the binary, units, config, users and
#                 udev rule; this script first removes a source install's binary and units
#                 (they would shadow the package's), then turns I2C on as in step 5
#   --dest DIR    stage the files under DIR instead of / (for packaging and tests); commands
#                 that change the running system (apt-get, systemd-sysusers, systemctl...) are only printed
#   --with-mqtt   also the MQTT bridge: libmosquitto, the unit pomodoro-mqtt.service and its
#                 system user `pomodoro-mqtt` (in the group pomodoro, for the control socket),
#                 enabled and started like the device's unit; the broker is the config's mqtt_host
#   --with-web    also the web page: the unit pomodoro-web.service and its system user
#                 `pomodoro-web` (in the group pomodoro, for the control socket), enabled and
#                 started the same way; with --binary, libmicrohttpd, which it loads; the port is
#                 the config's web_port (8080)
#   --uninstall   what `apt remove` does: remove the binary, units (the bridge's and the page's
#                 too), udev rule,
#                 sysusers and modules files; keep the config, the state and history and the
#                 users, and say what `apt purge` would delete besides
#
# What it does, in order (each step is skipped when already done, so re-running upgrades in place):
#   1. apt build dependencies, deploy/debian/control's Build-Depends less the packaging tools
#      (trixie: swiftlang libgpiod-dev libi2c-dev libmosquitto-dev libstdc++-14-dev; bookworm: the
#      same C libraries, Swift you install yourself: it says how and stops)
#   2. swift-build -c release --static-swift-stdlib (as the user who ran sudo)
#   3. the binary to /usr/local/bin/pomodoro; the config to /etc/pomodoro/pomodoro.conf only if
#      absent (the shipped one is always copied to pomodoro.conf.example); the unit to
#      /etc/systemd/system/pomodoro.service; README and wiring to /usr/local/share/doc/pomodoro
#   4. the system user `pomodoro` in the groups gpio and i2c, and the udev rule that gives them the
#      devices: deploy/debian's sysusers file (systemd-sysusers) and udev rule, as they are
#   5. I2C: dtparam=i2c_arm=on and dtparam=i2c_arm_baudrate=400000 in /boot/firmware/config.txt
#      (a dated backup first), i2c-dev loaded at boot
#   6. systemctl enable, and (re)start unless a reboot is needed first
#   7. with --with-mqtt: the bridge's unit and user, enabled and (re)started the same way
#   8. with --with-web: the page's unit and user, the same way
set -euo pipefail

readonly BIN=/usr/local/bin/pomodoro
readonly CONF_DIR=/etc/pomodoro
readonly CONF=$CONF_DIR/pomodoro.conf
readonly UNIT=/etc/systemd/system/pomodoro.service
readonly DOC_DIR=/usr/local/share/doc/pomodoro
readonly STATE_DIR=/var/lib/pomodoro
# The package's own files (deploy/debian), installed as they are where a local install keeps them.
readonly MODULES_LOAD=/etc/modules-load.d/pomodoro-i2c.conf # debian/pomodoro-i2c.conf
readonly UDEV_RULE=/etc/udev/rules.d/60-pomodoro.rules      # debian/pomodoro.udev
readonly SYSUSERS=/etc/sysusers.d/pomodoro.conf             # debian/pomodoro.sysusers
readonly MQTT_STATE_DIR=/var/lib/pomodoro-mqtt
readonly SWIFT_BIN=/usr/libexec/swift/bin # Debian's swiftlang keeps its tools here
readonly MQTT_UNIT=/etc/systemd/system/pomodoro-mqtt.service
readonly MQTT_USER=pomodoro-mqtt
readonly WEB_UNIT=/etc/systemd/system/pomodoro-web.service
readonly WEB_STATE_DIR=/var/lib/pomodoro-web

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=deploy/lib/common.sh
source "$repo/deploy/lib/common.sh"
dry=0
start=1
uninstall=0
no_apt=0
binary=""
deb=""
dest=""
reboot_needed=0
mqtt=0
web=0

while (($#)); do
  case "$1" in
  --dry-run) dry=1 ;;
  --no-start) start=0 ;;
  --no-apt) no_apt=1 ;;
  --uninstall) uninstall=1 ;;
  --with-mqtt) mqtt=1 ;;
  --with-web) web=1 ;;
  --binary)
    binary="$(realpath "${2:?--binary needs a file}")"
    shift
    ;;
  --deb)
    deb="$(realpath "${2:?--deb needs a file}")"
    shift
    ;;
  --dest)
    dest="${2:?--dest needs a folder}"
    shift
    ;;
  -h | --help)
    usage
    exit 0
    ;;
  *)
    usage_error
    ;;
  esac
  shift
done
if [[ -n "$dest" ]]; then
  mkdir -p "$dest"
  dest="$(cd "$dest" && pwd)"
  [[ "$dest" != "/" ]] || dest=""
fi

# --- doing, or saying what would be done --------------------------------------------------------
path() { printf '%s%s' "$dest" "$1"; } # a system path, under --dest when staging

run() { # run COMMAND...: files and builds; printed only in a dry run
  if ((dry)); then
    printf 'would run: %s\n' "$*"
  else
    "$@"
  fi
}

system() { # system COMMAND...: changes the running system; printed only in a dry run or with --dest
  if ((dry)); then
    printf 'would run: %s\n' "$*"
  elif [[ -n "$dest" ]]; then
    printf 'skipped (--dest): %s\n' "$*"
  else
    "$@"
  fi
}

have_systemd() { [[ -z "$dest" && -d /run/systemd/system ]]; }

# --- checks -------------------------------------------------------------------------------------
os_codename() {
  local file
  file="$(path /etc/os-release)"
  [[ -f "$file" ]] || file=/etc/os-release
  # shellcheck disable=SC1090
  (. "$file" && printf '%s' "${VERSION_CODENAME:-unknown}")
}

preflight() {
  if ((!dry)) && [[ -z "$dest" && $EUID -ne 0 ]]; then
    die "needs root: run it as sudo bash deploy/install.sh (or try --dry-run)"
  fi
  local arch
  # The userland decides, not the kernel: a 32-bit Raspberry Pi OS often runs a 64-bit kernel,
  # where uname -m says aarch64 but the packages are armhf.
  arch="$(dpkg --print-architecture 2>/dev/null || uname -m)"
  case "$arch" in
  arm64 | amd64) ;;
  aarch64 | x86_64) ;;
  armv6l | armv7l | armhf | armel)
    die "this is a 32-bit Raspberry Pi OS ($arch): Debian's Swift, and so the pomodoro package
(the apt repository's and --deb's), exists for 64-bit only (arm64, amd64). Fix: reflash the card
with Raspberry Pi OS (64-bit) in Raspberry Pi Imager; a Pi 3, 4, 5 or Zero 2 W runs it. A binary
from the arm64 package does not help here: it is aarch64 (64-bit) too"
    ;;
  *) say "warning: untested architecture $arch" ;;
  esac
}

# --- 1. build dependencies ----------------------------------------------------------------------
# apt_packages RELATIONS...: apt-get update, then `apt-get satisfy` them (package names, or
# lists like build_depends's `a (>= 2), b`); with --no-apt only checks that they are installed.
apt_packages() {
  if ((no_apt)); then
    local p missing=()
    for p in $(printf '%s\n' "$@" | tr ',' '\n' | sed -E 's/^ +//; s/ *\(.*//'); do
      [[ "$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null)" == installed ]] || missing+=("$p")
    done
    ((${#missing[@]} == 0)) || die "--no-apt, but not installed: ${missing[*]}: install them (sudo apt-get install ${missing[*]}) or drop --no-apt"
    say "--no-apt: $* already installed"
    return
  fi
  apt_retry system apt-get update -o Acquire::Retries=3 ||
    die "apt-get update failed: check the network (or use --no-apt when the packages are installed)"
  apt_retry system env DEBIAN_FRONTEND=noninteractive apt-get satisfy -y -o Acquire::Retries=3 \
    --no-install-recommends "$@" ||
    die "could not install $*: check the network and 'sudo apt-get update'"
}

install_dependencies() {
  local codename
  codename="$(os_codename)"
  say "system: $codename ($(uname -m))"
  case "$codename" in
  trixie | forky | sid)
    apt_packages "$(build_depends --no-packaging)"
    ;;
  bookworm)
    # The package's build dependencies as bookworm has them: no swiftlang (Swift is installed by
    # hand, below), libgpiod 1.6 (the shim's v1 branch), GCC 12's libstdc++.
    apt_packages "$(build_depends --no-packaging | sed -E 's/swiftlang[^,]*, //; s/libgpiod-dev \([^)]*\)/libgpiod-dev/; s/libstdc\+\+-14-dev/libstdc++-12-dev/')"
    ;;
  *)
    say "warning: $codename is neither bookworm nor trixie; installing trixie's build dependencies"
    apt_packages "$(build_depends --no-packaging)"
    ;;
  esac
  [[ -d $SWIFT_BIN ]] && PATH="$SWIFT_BIN:$PATH"
  if ! command -v swift-build >/dev/null; then
    if ((dry)); then
      say "note: swift-build is not installed yet (the apt step above brings it on trixie)"
      return
    fi
    die "swift-build (Swift 6.0 or later) is not installed.
  Raspberry Pi OS bookworm has no Swift package. Either:
  - move to Raspberry Pi OS trixie (64-bit), where this script installs Debian's swiftlang
    (or installs a binary built on a PC, e.g. the arm64 package's: --binary FILE); or
  - install a Swift 6.0+ toolchain for Debian 12 aarch64 from swift.org (its 'swiftly'
    installer, or the tarball unpacked to /opt/swift), put its usr/bin on root's PATH,
    check that 'swift-build --version' works, and run this script again.
  A binary built for trixie (the packages') needs trixie's libgpiod.so.3 (libgpiod 2)
  and glibc, so it does not run on bookworm."
  fi
}

# --- 2. build -----------------------------------------------------------------------------------
build() {
  local as=() out
  # Build as the user who ran sudo, so that .build/ stays theirs (with root's PATH for Swift).
  if [[ $EUID -eq 0 && -n "${SUDO_USER:-}" && "${SUDO_USER}" != root ]]; then
    as=(runuser -u "$SUDO_USER" -- env "PATH=$PATH")
  fi
  # The Swift runtime is linked in statically (libstdc++-*-dev is for that): the installed
  # binary needs only libc, libstdc++, libgpiod and libi2c, not the toolchain.
  # --manifest-cache none: Package.swift looks for the headers the apt step may just have
  # installed, and SwiftPM would otherwise reuse its result from a build made before them
  # (a binary without the hardware backend).
  run "${as[@]}" swift-build --package-path "$repo" -c release --static-swift-stdlib --manifest-cache none
  if ((dry)); then
    binary="$repo/.build/release/pomodoro"
    return
  fi
  out="$("${as[@]}" swift-build --package-path "$repo" -c release --static-swift-stdlib --manifest-cache none --show-bin-path)"
  binary="$out/pomodoro"
  [[ -x "$binary" ]] || die "the build finished but $binary is missing"
}

# --- 3. files -----------------------------------------------------------------------------------
install_files() {
  run install -d -m 0755 "$(path /usr/local/bin)" "$(path $CONF_DIR)" "$(path $DOC_DIR)" \
    "$(path /etc/systemd/system)"
  # A new file renamed over the old one: a running service keeps its binary until restarted.
  run install -m 0755 "$binary" "$(path $BIN).new"
  run mv -f "$(path $BIN).new" "$(path $BIN)"
  say "binary: $BIN"
  run install -m 0644 "$repo/deploy/pomodoro.conf" "$(path $CONF).example"
  if [[ -e "$(path $CONF)" ]]; then
    say "config: kept $CONF (the shipped one is $CONF.example)"
  else
    run install -m 0644 "$repo/deploy/pomodoro.conf" "$(path $CONF)"
    say "config: $CONF"
  fi
  run install -m 0644 "$repo/deploy/pomodoro.service" "$(path $UNIT)"
  say "unit: $UNIT"
  run install -m 0644 "$repo/README.md" "$repo/hardware/WIRING.md" "$(path $DOC_DIR)/"
  if [[ -f "$repo/hardware/wiring.svg" ]]; then run install -m 0644 "$repo/hardware/wiring.svg" "$(path $DOC_DIR)/"; fi
}

# --- 4. user ------------------------------------------------------------------------------------
# The package's sysusers file and udev rule, as they are: systemd-sysusers makes what is missing
# (the groups gpio and i2c on plain Debian; Raspberry Pi OS has them), the user pomodoro in both;
# the rule gives the groups the devices (as Raspberry Pi OS's 99-com.rules does).
install_user() {
  run install -D -m 0644 "$repo/deploy/debian/pomodoro.sysusers" "$(path $SYSUSERS)"
  system systemd-sysusers "$SYSUSERS"
  say "user: pomodoro in gpio,i2c ($SYSUSERS)"
  run install -D -m 0644 "$repo/deploy/debian/pomodoro.udev" "$(path $UDEV_RULE)"
  system udevadm trigger --subsystem-match=gpio --subsystem-match=i2c-dev
  say "udev: $UDEV_RULE (gpiochip* to gpio, i2c-* to i2c)"
}

# --- 5. I2C -------------------------------------------------------------------------------------
boot_config() {
  local candidate
  for candidate in /boot/firmware/config.txt /boot/config.txt; do
    if [[ -f "$(path $candidate)" ]]; then
      printf '%s' "$candidate"
      return
    fi
  done
}

enable_i2c() {
  local cfg file backup edited
  cfg="$(boot_config)"
  if [[ -z "$cfg" ]]; then
    say "warning: no /boot/firmware/config.txt (not a Raspberry Pi?): enable I2C bus 1 yourself"
  else
    file="$(path "$cfg")"
    edited="$(mktemp)"
    i2c_config <"$file" >"$edited"
    if cmp -s "$file" "$edited"; then
      say "I2C: already on at 400 kHz in $cfg"
    else
      backup="$file.pomodoro-$(date +%Y%m%d-%H%M%S).bak"
      run cp -p "$file" "$backup"
      if ((dry)); then
        say "would change $cfg (backup $backup):"
        diff -u "$file" "$edited" | sed -n '3,$p' || true
      else
        cat "$edited" >"$file"
        say "I2C: enabled in $cfg (backup: $backup)"
      fi
      reboot_needed=1
    fi
    rm -f "$edited"
  fi
  run install -D -m 0644 "$repo/deploy/debian/pomodoro-i2c.conf" "$(path $MODULES_LOAD)"
  if [[ -z "$dest" ]] && ! grep -qw i2c_dev /proc/modules 2>/dev/null; then
    system modprobe i2c-dev || true
  fi
}

# i2c_config: config.txt on stdin, the same with I2C on at 400 kHz on stdout. Uncomments or
# rewrites the existing lines where there are some (they are in the file's unconditional
# part on Raspberry Pi OS); otherwise appends them under [all], so that a [pi4]-style
# section at the end cannot swallow them.
i2c_config() {
  awk '
    { lines[NR] = $0 }
    /^[ \t]*dtparam=i2c_arm=on[ \t]*$/ { on = NR }
    /^[ \t]*#[ \t]*dtparam=i2c_arm=on[ \t]*$/ && !commented { commented = NR }
    /^[ \t]*dtparam=i2c_arm=off[ \t]*$/ && !off { off = NR }
    /^[ \t]*#?[ \t]*dtparam=i2c_arm_baudrate=/ && !baud { baud = NR }
    /^[ \t]*dtparam=i2c_arm_baudrate=400000[ \t]*$/ { fast = NR }
    END {
      if (!on && off) { lines[off] = "dtparam=i2c_arm=on"; on = off }
      if (!on && commented) { lines[commented] = "dtparam=i2c_arm=on"; on = commented }
      if (!fast && baud) { lines[baud] = "dtparam=i2c_arm_baudrate=400000"; fast = baud }
      for (i = 1; i <= NR; i++) {
        print lines[i]
        if (i == on && !fast) { print "dtparam=i2c_arm_baudrate=400000"; fast = i }
      }
      if (!on) {
        print ""
        print "[all]"
        print "# I2C bus 1 at 400 kHz for the Pomodoro device display (deploy/install.sh)"
        print "dtparam=i2c_arm=on"
        if (!fast) print "dtparam=i2c_arm_baudrate=400000"
      }
    }'
}

# --- 6. service ---------------------------------------------------------------------------------
start_service() {
  if ! have_systemd && ((!dry)); then
    say "systemd is not running here${dest:+ (--dest)}: enable it later with: systemctl enable --now pomodoro"
    return
  fi
  system systemctl daemon-reload
  system systemctl enable pomodoro.service
  if ((reboot_needed)); then
    say "I2C was just enabled: reboot (sudo reboot) and the service starts by itself"
  elif ((start)); then
    # restart: starts it when stopped, and moves a running one onto the new binary and unit.
    system systemctl restart pomodoro.service
    say "started: systemctl status pomodoro; journalctl -u pomodoro -f"
  else
    say "not started (--no-start): sudo systemctl start pomodoro"
  fi
}

# --- 7. the MQTT bridge (--with-mqtt) ----------------------------------------------------------
# mqtt_dependencies: before the build, libmosquitto-dev (the bridge is compiled in only where
# mosquitto.h exists); with --binary, the library it loads (by name, libmosquitto.so.1: a binary
# built without the header does not carry that name).
mqtt_dependencies() {
  if [[ -n "$binary" ]]; then
    apt_packages libmosquitto1
    if ! grep -qa 'libmosquitto\.so\.1' "$binary"; then
      say "warning: $binary was built without libmosquitto: its 'pomodoro mqtt' says so and exits 69;" \
        "build it where libmosquitto-dev is installed"
    fi
  else
    apt_packages libmosquitto-dev
  fi
}

# install_companion NAME WHAT HINT: a process of its own beside the device (pomodoro-mqtt, the
# bridge; pomodoro-web, the page): deploy/NAME.service to /etc/systemd/system, its system user
# NAME (in the group pomodoro, for the control socket) from the package's sysusers file, as it is,
# enabled and (re)started like the device's unit; HINT is said when it is started.
install_companion() {
  local name=$1 what=$2 hint=$3
  local unit=/etc/systemd/system/$name.service sysusers=/etc/sysusers.d/$name.conf
  run install -m 0644 "$repo/deploy/$name.service" "$(path "$unit")"
  say "unit: $unit"
  # The group pomodoro (made with the user pomodoro) owns /run/pomodoro and the control socket.
  run install -D -m 0644 "$repo/deploy/debian/$name.sysusers" "$(path "$sysusers")"
  system systemd-sysusers "$sysusers"
  say "user: $name in pomodoro (the control socket), no devices ($sysusers)"
  if ! have_systemd && ((!dry)); then
    say "systemd is not running here${dest:+ (--dest)}: enable it later with: systemctl enable --now $name"
    return
  fi
  system systemctl daemon-reload
  system systemctl enable "$name.service"
  if ((reboot_needed)); then
    say "the $what starts after the reboot, with the device"
  elif ((start)); then
    system systemctl restart "$name.service"
    say "$what started: journalctl -u $name -f ($hint)"
  else
    say "$what not started (--no-start): sudo systemctl start $name"
  fi
}

uninstall_companion() { # uninstall_companion NAME: its unit stopped, disabled and removed
  if have_systemd || ((dry)); then
    system systemctl disable --now "$1.service" || true
  fi
  run rm -f "$(path "/etc/systemd/system/$1.service")" "$(path "/etc/sysusers.d/$1.conf")"
}

install_mqtt() { install_companion pomodoro-mqtt bridge "the broker: mqtt_host in $CONF"; }

# --- 8. the web page (--with-web) ---------------------------------------------------------------
# web_dependencies: with --binary, the library the page's server loads (by name,
# libmicrohttpd.so.12: a binary built without the header does not carry that name); a build gets
# libmicrohttpd-dev with the build dependencies (step 1).
web_dependencies() {
  [[ -n "$binary" ]] || return 0
  case "$(os_codename)" in
  bookworm) apt_packages libmicrohttpd12 ;;
  *) apt_packages libmicrohttpd12t64 ;; # trixie's name (64-bit time_t)
  esac
  if ! grep -qa 'libmicrohttpd\.so\.12' "$binary"; then
    say "warning: $binary was built without libmicrohttpd: its 'pomodoro web' says so and exits 69;" \
      "build it where libmicrohttpd-dev is installed"
  fi
}

install_web() {
  install_companion pomodoro-web "web page" "open http://$(uname -n).local:8080 from a phone; web_port in $CONF"
}

# --- --deb: the Debian package --------------------------------------------------------------
install_deb() {
  [[ -f "$deb" && "${deb##*/}" == pomodoro_*.deb ]] || die "--deb $deb is not a pomodoro_VERSION_ARCH.deb file"
  [[ -z "$binary" ]] || die "--deb and --binary exclude each other"
  local packages=("$deb")
  if ((mqtt)); then
    local bridge
    bridge="$(dirname "$deb")/pomodoro-mqtt_${deb##*/pomodoro_}"
    [[ -f "$bridge" ]] || die "--with-mqtt: no $bridge beside $deb (build-deb.sh makes both)"
    packages+=("$bridge")
  fi
  if ((web)); then
    local page
    page="$(dirname "$deb")/pomodoro-web_${deb##*/pomodoro_}"
    [[ -f "$page" ]] || die "--with-web: no $page beside $deb (build-deb.sh makes it)"
    packages+=("$page")
  fi
  # A source install's files: /etc/systemd/system would override the package's unit.
  local f
  for f in "$BIN" "$UNIT" "$MQTT_UNIT" "$WEB_UNIT"; do
    if [[ -e "$(path "$f")" ]]; then
      say "removing the source install's $f (the package has its own)"
      run rm -f "$(path "$f")"
    fi
  done
  ((no_apt)) && die "--deb installs with apt: drop --no-apt"
  # The package is built against trixie's libraries (libgpiod.so.3, glibc 2.41): apt cannot
  # install it elsewhere, or it would not run.
  local codename
  codename="$(os_codename)"
  [[ "$codename" == trixie ]] || die "the pomodoro package is for Debian trixie (Raspberry Pi OS
trixie, 64-bit); this system is $codename. Fix: reflash the card with the current Raspberry Pi OS
(64-bit), which is trixie, in Raspberry Pi Imager (or upgrade this one to trixie); on $codename,
build from source instead: sudo bash deploy/install.sh"
  apt_retry system env DEBIAN_FRONTEND=noninteractive apt-get install -y -o Acquire::Retries=3 \
    --no-install-recommends "${packages[@]}" || die "apt-get install ${packages[*]} failed"
  say "installed ${packages[*]##*/} (the service is enabled and started by the package)"
  enable_i2c
  if ((reboot_needed)); then
    say "REBOOT NEEDED: I2C was enabled in config.txt; run: sudo reboot"
  fi
  say "done. Check the hardware with: sudo -u pomodoro pomodoro probe"
}

# --- uninstall ----------------------------------------------------------------------------------
# uninstall_all: what `apt remove pomodoro pomodoro-mqtt pomodoro-web` does: the installed files go (binary,
# units, the shipped config's copy, docs, udev rule, sysusers and modules files); the config,
# the state with the history, and the users stay. It says what purge would delete besides.
uninstall_all() {
  uninstall_companion pomodoro-mqtt
  uninstall_companion pomodoro-web
  if have_systemd || ((dry)); then
    system systemctl disable --now pomodoro.service || true
  fi
  run rm -f "$(path $UNIT)" "$(path $BIN)" "$(path $MODULES_LOAD)" "$(path $UDEV_RULE)" "$(path $SYSUSERS)" \
    "$(path $CONF).example"
  run rm -rf "$(path $DOC_DIR)"
  if have_systemd || ((dry)); then system systemctl daemon-reload; fi
  say "kept, as apt remove keeps them: the config $CONF, the state and history in $STATE_DIR" \
    "(a new install takes them over), the paired browsers in $WEB_STATE_DIR, the users pomodoro," \
    "$MQTT_USER and pomodoro-web"
  say "apt purge would also delete $CONF, $STATE_DIR (the timer and the history), $MQTT_STATE_DIR and" \
    "$WEB_STATE_DIR (the paired browsers), having first withdrawn the desk from Home Assistant; by hand:" \
    "sudo pomodoro mqtt --remove (before --uninstall, with the bridge installed), then" \
    "sudo rm -rf $CONF_DIR $STATE_DIR $MQTT_STATE_DIR $WEB_STATE_DIR" \
    "(the users stay, as Debian's do)"
  say "I2C stays enabled in config.txt (other devices may use it); the backups are beside it"
  say "removed the Pomodoro device"
}

# --- main ---------------------------------------------------------------------------------------
preflight
((dry)) && say "dry run: nothing is changed"
if ((uninstall)); then
  uninstall_all
  exit 0
fi
if [[ -n "$deb" ]]; then
  install_deb
  exit 0
fi
if [[ -n "$binary" ]]; then
  [[ -x "$binary" ]] || die "--binary $binary is not an executable file"
  say "installing the given binary $binary (no build)"
  # What such a binary needs at run time (built for trixie, as the packages' is).
  case "$(os_codename)" in
  bookworm) say "note: a binary built for trixie needs libgpiod.so.3 and glibc 2.38, which bookworm lacks" ;;
  *)
    apt_packages libgpiod3 libi2c0
    ;;
  esac
else
  install_dependencies
fi
((mqtt)) && mqtt_dependencies
((web)) && web_dependencies
[[ -n "$binary" ]] || build
install_files
install_user
enable_i2c
start_service
((!mqtt)) || install_mqtt
((!web)) || install_web
((reboot_needed)) && say "REBOOT NEEDED: I2C was enabled in config.txt; run: sudo reboot"
say "done. Check the hardware with: sudo -u pomodoro $BIN probe --config $CONF"
