#!/usr/bin/env bash
# shellcheck disable=SC2016 # dpkg-query formats (${Version}) are dpkg's, not the shell's
# Tests/deb/run.sh: test the Debian packages that deploy/build-deb.sh made, as an owner and
# Debian's tools would see them. Prints a PASS or FAIL line a check and `N passed, M failed`.
#
#  1. The upgrade package: a second amd64 build (build-deb.sh, in the same root, so only what
#     changed recompiles) from a copy of the source whose version is VERSION+upgradetest and
#     whose shipped config (deploy/pomodoro.conf) changed: Tests/lib/host.sh, which
#     reuses the one Tests/system/run.sh made into the same --debs folder (CI runs that first).
#  2. In the build root: lintian on every package of deploy/debian/control (pomodoro,
#     pomodoro-mqtt, pomodoro-web, pomodoro-hooks: common.sh's binary_packages) for amd64 and arm64
#     (no error and no warning; --pedantic, infos shown); each package's Version against its own
#     binary's `pomodoro --version` (arm64 under qemu-aarch64-static), which must name libgpiod
#     v2, libi2c and libmosquitto, and carry the web page's server (libmicrohttpd) and the hooks'
#     webhooks (libcurl); every Tests/scenarios/*.pomo (with its NAME.conf when it has one) run by the amd64 package's binary
#     and the arm64 one under qemu (its `# expect` lines checked by pomodoro itself), with the
#     same transcript from both.
#  3. In a fresh trixie root (debootstrap minbase), with apt-get -y and no terminal
#     (</dev/null), as docs/install.md says: install, the owner edits the config and has a
#     history, upgrade to the second build (no prompt, the edit kept, no warning), remove (config
#     and history kept), purge (nothing left that docs/install.md does not name: the system users
#     pomodoro, pomodoro-mqtt, pomodoro-web and pomodoro-hooks and the groups gpio and i2c),
#     install again; every package each time. pomodoro-web: its user, `sudo pomodoro web pair` and
#     `forget` in the state directory as systemd makes it (the files they write readable by the
#     service's user), the page served as the unit runs it, the pairings kept by upgrade and
#     remove. pomodoro-hooks: its user, its unit (and the condition that skips it until a hook is
#     set), the recipes shipped executable, `pomodoro hooks` as its user with libcurl loaded and
#     stopped by SIGTERM, what the hooks kept gone with purge.
#
# Usage: sudo bash Tests/deb/run.sh --debs DIR --root DIR [--source DIR] [--keep]
#   --debs DIR    the folder with PACKAGE_VERSION_{amd64,arm64}.deb (build-deb.sh --out)
#   --root DIR    the root build-deb.sh --keep kept (its arm64 sysroot runs the arm64 binary)
#   --source DIR  the package (default: the repository holding this script)
#   --keep        keep the scratch folder and the fresh root (their mounts are undone)
# Environment: DEBIAN_MIRROR (default: debootstrap's own default mirror).
set -uo pipefail

readonly SUITE=trixie
readonly MIRROR="${DEBIAN_MIRROR:-}"
readonly READY_MARK=.pomodoro-test-deb-ready
PROG=test-deb
readonly SYSROOT=/opt/pomodoro-sysroot-arm64 # build-deb.sh's
readonly CONF=/etc/pomodoro/pomodoro.conf

# shellcheck source=Tests/lib/host.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
debs="" build_root=""
parse_args --debs=debs/ --root=build_root/ -- "$@"
[[ -n "$debs" && -n "$build_root" ]] || usage_error "--debs and --root are needed"
[[ $EUID -eq 0 ]] || die "needs root (debootstrap, chroot and mounts): run it with sudo"

root=""
version="$(package_version "$source_dir")"
[[ -n "$version" ]] || die "no version in $source_dir/$RELEASE_FILE"
upgrade_version="$version$UPGRADE_SUFFIX"
scratch_folder test-deb
when_finished root_cleanup_if_any

deb() { printf '%s/%s_%s_%s.deb' "$debs" "$1" "$2" "$3"; } # deb PACKAGE VERSION ARCH
mapfile -t packages < <(binary_packages) # deploy/debian/control's, pomodoro first

# --- 1. the upgrade package ----------------------------------------------------------------
say "the upgrade package $upgrade_version (amd64): Tests/lib/host.sh (build-deb.sh)"
if how="$(upgrade_debs "$source_dir" "$build_root" "$debs" "$work/v2.log")"; then
  pass "the upgrade package $upgrade_version: $how"
else
  fail "the upgrade package $upgrade_version built" "$(tail -n 20 "$work/v2.log")"
fi

# --- 2. in the build root: lintian, versions, scenarios -------------------------------------
root="$build_root"
keep_arg=$keep keep=1
root_mounts
say "lintian and qemu-user-static in the build root"
apt_in_root -y -qq install lintian qemu-user-static >/dev/null 2>&1 ||
  { apt_in_root -qq update >/dev/null 2>&1 && apt_in_root -y -qq install lintian qemu-user-static >/dev/null; } ||
  die "could not install lintian and qemu-user-static in $root"
rm -rf "$root/var/tmp/test-deb"
mkdir -p "$root/var/tmp/test-deb"
cp "$debs"/*.deb "$root/var/tmp/test-deb/"
mkdir -p "$root/var/tmp/test-deb/Tests"
cp -r "$source_dir/Tests/scenarios" "$root/var/tmp/test-deb/Tests/"

for arch in amd64 arm64; do
  for package in "${packages[@]}"; do
    file="$(deb "$package" "$version" "$arch")"
    if [[ ! -f "$file" ]]; then
      fail "lintian $package $arch" "no ${file##*/} in $debs (build-deb.sh --arch $arch --out $debs)"
      continue
    fi
    # --fail-on error,warning; infos are shown. Overrides: none (deploy/debian has no
    # lintian-overrides file).
    out="$(in_root lintian --pedantic --display-info --fail-on error,warning "/var/tmp/test-deb/${file##*/}" 2>&1)"
    status=$?
    out="$(grep -v 'running with root privileges' <<<"$out")"
    if ((status == 0)); then
      pass "lintian $package $arch: no error, no warning${out:+ (besides: $(grep -cE '^[IPX]:' <<<"$out") info, pedantic or experimental tags)}"
    else
      fail "lintian $package $arch" "$out"
    fi
  done
done

# A package that only simulates cannot be made: the manifest stops, naming each missing header.
mkdir -p "$root/var/tmp/test-deb/empty-sysroot" "$root/var/tmp/test-deb/pkg"
cp "$source_dir/Package.swift" "$root/var/tmp/test-deb/pkg/"
manifest() { # manifest SYSROOT: the manifest as the packages' build evaluates it
  in_root env POMODORO_SYSROOT="$1" POMODORO_REQUIRE_HARDWARE=1 \
    swift-package --package-path /var/tmp/test-deb/pkg --manifest-cache none dump-package 2>&1
}
out="$(manifest /var/tmp/test-deb/empty-sysroot)"
status=$?
if ((status != 0)) && grep -q 'empty-sysroot/usr/include/gpiod.h is missing' <<<"$out" &&
  grep -q 'mosquitto.h is missing' <<<"$out" && grep -q 'microhttpd.h is missing' <<<"$out" &&
  grep -q 'curl/curl.h is missing' <<<"$out"; then
  pass "POMODORO_REQUIRE_HARDWARE=1 with a sysroot without the headers: the manifest stops, naming them"
else
  fail "POMODORO_REQUIRE_HARDWARE=1 with a sysroot without the headers: the manifest stops, naming them" \
    "exit $status" "$(grep -v '^error: .*Invalid manifest (compiled with' <<<"$out" | tail -n 5)"
fi
out="$(manifest "$SYSROOT")"
check "POMODORO_REQUIRE_HARDWARE=1 with the arm64 sysroot: the manifest is content" "$(tail -n 5 <<<"$out")" \
  grep -q '"name" : "pomodoro"' <<<"$out"

run_binary() { # run_binary ARCH ARGS...: the package's pomodoro, in the build root
  local arch=$1
  shift
  if [[ "$arch" == arm64 ]]; then
    in_root qemu-aarch64-static -L "$SYSROOT" "/var/tmp/test-deb/$arch/usr/bin/pomodoro" "$@"
  else
    in_root "/var/tmp/test-deb/$arch/usr/bin/pomodoro" "$@"
  fi
}

for arch in amd64 arm64; do
  file="$(deb pomodoro "$version" "$arch")"
  [[ -f "$file" ]] || continue
  dpkg-deb -x "$file" "$root/var/tmp/test-deb/$arch"
  package_version="$(dpkg-deb -f "$file" Version)"
  said="$(run_binary "$arch" --version 2>&1)"
  want="pomodoro $package_version (libgpiod v2 API, libi2c, libmosquitto, libmicrohttpd)"
  check "$arch: the package's Version ($package_version) is its pomodoro --version, with the hardware" \
    "pomodoro --version said: $said; wanted: $want" [ "$said" = "$want" ]
  # The web page's server compiled in: the shim names the library it loads (its 'not installed'
  # body does not).
  check "$arch: pomodoro web is compiled in (the binary loads libmicrohttpd.so.12)" \
    "no libmicrohttpd.so.12 in /usr/bin/pomodoro" grep -qa 'libmicrohttpd\.so\.12' "$root/var/tmp/test-deb/$arch/usr/bin/pomodoro"
  # The hooks' webhooks compiled in: the shim names the library it loads (pomodoro-hooks Depends on it).
  check "$arch: pomodoro hooks' webhooks are compiled in (the binary loads libcurl.so.4)" \
    "no libcurl.so.4 in /usr/bin/pomodoro" grep -qa 'libcurl\.so\.4' "$root/var/tmp/test-deb/$arch/usr/bin/pomodoro"
done
if [[ -f "$(deb pomodoro "$upgrade_version" amd64)" ]]; then
  check "the upgrade package's Version is $upgrade_version" "it is $(dpkg-deb -f "$(deb pomodoro "$upgrade_version" amd64)" Version)" \
    [ "$(dpkg-deb -f "$(deb pomodoro "$upgrade_version" amd64)" Version)" = "$upgrade_version" ]
fi

if [[ -x "$root/var/tmp/test-deb/amd64/usr/bin/pomodoro" && -x "$root/var/tmp/test-deb/arm64/usr/bin/pomodoro" ]]; then
  scenarios=("$root"/var/tmp/test-deb/Tests/scenarios/*.pomo)
  [[ -f "${scenarios[0]}" ]] || fail "scenarios: none in $source_dir/Tests/scenarios"
  for scenario in "${scenarios[@]}"; do
    [[ -f "$scenario" ]] || continue
    name="${scenario##*/}"
    # NAME.conf beside NAME.pomo is the config it runs with (docs/scripts.md), as swift test gives it.
    args=(simulate --script "/var/tmp/test-deb/Tests/scenarios/$name")
    [[ ! -f "${scenario%.pomo}.conf" ]] || args+=(--config "/var/tmp/test-deb/Tests/scenarios/${name%.pomo}.conf")
    run_binary amd64 "${args[@]}" >"$work/amd64.out" 2>"$work/amd64.err"
    amd64_status=$?
    run_binary arm64 "${args[@]}" >"$work/arm64.out" 2>"$work/arm64.err"
    arm64_status=$?
    if ((amd64_status != 0 || arm64_status != 0)); then
      fail "scenario $name: every # expect met on amd64 and arm64 (qemu)" \
        "exit amd64 $amd64_status, arm64 $arm64_status" "$(cat "$work/amd64.err" "$work/arm64.err")"
    elif ! grep -q '"event":"summary"' "$work/amd64.out"; then
      fail "scenario $name: a transcript with its summary" "$(tail -n 3 "$work/amd64.out")"
    elif ! diff -q "$work/amd64.out" "$work/arm64.out" >/dev/null; then
      fail "scenario $name: arm64's transcript is amd64's" "$(diff "$work/amd64.out" "$work/arm64.out" | head -n 10)"
    else
      pass "scenario $name: every # expect met, arm64's transcript (qemu) is amd64's ($(wc -l <"$work/amd64.out") lines)"
    fi
  done
else
  fail "scenarios on both arches" "no amd64 or arm64 pomodoro package in $debs"
fi
root_cleanup
mounted=()

# --- 3. install, upgrade, remove, purge, install in a fresh trixie root -----------------------
root=""
keep=$keep_arg
root_folder test-deb
say "debootstrap $SUITE (minbase) into $root"
debootstrap_root "$SUITE" "$MIRROR"
root_mounts
mkdir -p "$root/var/tmp/debs"
cp "$debs"/*.deb "$root/var/tmp/debs/"
chmod -R a+rX "$root/var/tmp/debs" # apt reads local packages as _apt

# debs_of VERSION: every package's amd64 file of VERSION, as the fresh root sees it, one a line.
debs_of() { printf "/var/tmp/debs/%s_$1_amd64.deb\n" "${packages[@]}"; }
mapfile -t old_debs < <(debs_of "$version")
mapfile -t new_debs < <(debs_of "$upgrade_version")
for f in "${old_debs[@]}"; do [[ -f "$root$f" ]] || die "no ${f##*/} in $debs"; done

# apt_step LOG ARGS...: apt-get -y ARGS with no terminal; its output in $work/LOG.
apt_step() {
  local log="$work/$1"
  shift
  in_root apt-get -y -o APT::Install-Recommends=false "$@" </dev/null >"$log" 2>&1
}
# no_warnings LOG: nothing in it that warns or asks (apt's W:, a warning, a conffile prompt).
no_warnings() { ! grep -qiE '^W: |warn|already a member|conffile|\(Y/I/N/O/D/Z\)' "$work/$1"; }
warnings() { grep -iE '^W: |warn|already a member|conffile|\(Y/I/N/O/D/Z\)' "$work/$1"; }

# The packages' dependencies first, so that what is left after purge is measured against a
# system that has them.
dependencies="$(for f in "${old_debs[@]}"; do dpkg-deb -f "$root$f" Depends; done |
  tr ',' '\n' | sed -E 's/\|.*//; s/\(.*\)//; s/ //g' | grep -vx 'pomodoro' | sort -u | xargs)"
say "dependencies: $dependencies"
apt_retry in_root apt-get -qq update >/dev/null || die "apt-get update in $root failed"
# shellcheck disable=SC2086 # a list of package names
apt_retry apt_step deps.log install $dependencies || die "apt-get install $dependencies failed: $(tail -n 5 "$work/deps.log")"

# snapshot: every path in the root but the kernel's, the temporary and apt's and dpkg's own.
snapshot() {
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp -o -path ./run \
    -o -path ./var/cache -o -path ./var/lib/apt -o -path ./var/lib/dpkg -o -path ./var/log \
    -o -path ./var/tmp \) -prune -o -print | sort)
}
snapshot >"$work/before"

status_of() { in_root dpkg-query -W -f '${db:Status-Abbrev}' "$1" 2>/dev/null | tr -d ' '; }
in_groups() { in_root id -nG "$1" 2>/dev/null | tr ' ' '\n' | sort | xargs; }

statuses() { for package in "${packages[@]}"; do status_of "$package"; done; }
# every STATUS: the status of each package ("iiii...", "rcrc...").
every() { printf "$1%.0s" "${packages[@]}"; }

# 3a. install
apt_step install.log install "${old_debs[@]}"
check "install $version: apt-get -y with no terminal succeeds (${packages[*]})" "$(tail -n 20 "$work/install.log")" \
  [ "$(statuses)" = "$(every ii)" ]
check "install: no warning" "$(warnings install.log)" no_warnings install.log
check "install: pomodoro --version is $version" "$(in_root pomodoro --version 2>&1)" \
  [ "$(in_root pomodoro --version 2>&1)" = "pomodoro $version (libgpiod v2 API, libi2c, libmosquitto, libmicrohttpd)" ]
groups="$(in_groups pomodoro)"
check "install: the system user pomodoro is in gpio and i2c" "id -nG pomodoro: $groups" \
  [ "$groups" = "gpio i2c pomodoro" ]
check "install: pomodoro-mqtt's binary, which pomodoro mqtt execs" "$(ls -l "$root/usr/lib/pomodoro" 2>&1)" \
  [ -x "$root/usr/lib/pomodoro/pomodoro-mqtt" ]
groups="$(in_groups pomodoro-mqtt)"
check "install: the system user pomodoro-mqtt is in pomodoro, nothing else" "id -nG pomodoro-mqtt: $groups" \
  [ "$groups" = "pomodoro pomodoro-mqtt" ]
groups="$(in_groups pomodoro-web)"
check "install: the system user pomodoro-web is in pomodoro, nothing else" "id -nG pomodoro-web: $groups" \
  [ "$groups" = "pomodoro pomodoro-web" ]
check "install: $CONF made from /usr/share/pomodoro/pomodoro.conf" "$(ls -l "$root/etc/pomodoro" 2>&1)" \
  cmp -s "$root$CONF" "$root/usr/share/pomodoro/pomodoro.conf"
check "install: the shipped config has every key commented out (each takes its default)" \
  "$(grep -nE '^[a-z_]+ *=' "$root$CONF")" bash -c "! grep -qE '^[a-z_]+ *=' '$root$CONF'"
printf 'wait 2s\n' >"$root/var/tmp/wait.pomo"
check "install: pomodoro reads $CONF (simulate --config)" \
  "$(in_root pomodoro simulate --config "$CONF" --script /var/tmp/wait.pomo 2>&1 | tail -n 3)" \
  in_root sh -c "pomodoro simulate --config $CONF --script /var/tmp/wait.pomo | grep -q summary"
for unit in "${packages[@]}"; do
  check "install: $unit.service enabled (multi-user.target.wants)" \
    "$(ls -l "$root/etc/systemd/system/multi-user.target.wants/" 2>&1)" \
    [ "$(readlink "$root/etc/systemd/system/multi-user.target.wants/$unit.service")" = "/usr/lib/systemd/system/$unit.service" ]
done
check "install: the unit runs /usr/bin/pomodoro" "$(grep -E '^(ExecStart|Documentation)=' "$root/usr/lib/systemd/system/pomodoro.service")" \
  grep -qx 'ExecStart=/usr/bin/pomodoro run --config /etc/pomodoro/pomodoro.conf' "$root/usr/lib/systemd/system/pomodoro.service"
check "install: postinst says how to turn I2C on" "$(cat "$work/install.log")" \
  grep -q 'sudo raspi-config nonint do_i2c 0' "$work/install.log"
check "install: /boot/firmware/config.txt untouched (none made)" "$(ls -la "$root/boot" 2>&1)" \
  [ ! -e "$root/boot/firmware/config.txt" ]

# The web page as its unit runs it. No systemd here: the state directory made as StateDirectory=
# makes it (the service's user's, 0700), then what the owner does as root in it, then the server
# as that user (setpriv, the unit's user and groups), on a port of its own on 127.0.0.1.
web_state=/var/lib/pomodoro-web
owner_mode() { in_root stat -c '%U:%G %a' "$1" 2>&1; }
# pairings_are N: N pairings, each kept as its keyed hash ($h1$ and HMAC-SHA-256's 64 hex digits,
# never the token), the file the service user's and 0600.
pairings_are() {
  [[ "$(grep -cE '^\$h1\$[0-9a-f]{64} ' "$root$web_state/pairings" 2>/dev/null)" == "$1" &&
    "$(owner_mode "$web_state/pairings")" == "pomodoro-web:pomodoro-web 600" ]]
}
# http PORT METHOD PATH [BODY]: the status line of a request to 127.0.0.1:PORT (Host: localhost).
http() {
  # shellcheck disable=SC2016 # the inner bash's
  timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" \
      "$2" "$3" "${#4}" "$4" >&3
    head -n 1 <&3 | tr -d "\r"' http "$@" 2>/dev/null
}
check "install: the web unit runs /usr/bin/pomodoro web" "$(grep -E '^ExecStart=' "$root/usr/lib/systemd/system/pomodoro-web.service")" \
  grep -qx 'ExecStart=/usr/bin/pomodoro web --config /etc/pomodoro/pomodoro.conf' "$root/usr/lib/systemd/system/pomodoro-web.service"
in_root install -d -m 0700 -o pomodoro-web -g pomodoro-web "$web_state"
code="$(in_root pomodoro web pair 2>&1)"
check "sudo pomodoro web pair: prints a code" "$code" grep -qE '^[0-9]{6}  \(' <<<"$code"
code="${code%% *}"
check "sudo pomodoro web pair: the code it leaves is the service user's (pomodoro-web, 0600)" \
  "$(owner_mode "$web_state/pair-code")" [ "$(owner_mode "$web_state/pair-code")" = "pomodoro-web:pomodoro-web 600" ]
port=$((20000 + RANDOM % 20000))
printf 'web_port = %d\nweb_bind = 127.0.0.1\n' "$port" >"$root/var/tmp/web.conf"
# chroot, env, timeout, setpriv and env exec each other: $! is timeout, which passes SIGTERM on.
chroot "$root" /usr/bin/env -i LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  timeout --preserve-status 30 setpriv --reuid=pomodoro-web --regid=pomodoro-web --init-groups \
  env STATE_DIRECTORY="$web_state" pomodoro web --config /var/tmp/web.conf >"$work/web.log" 2>&1 &
web_pid=$!
serving() { [[ -n "$(http "$port" GET /api/session)" ]]; }
wait_for 25 serving
answer="$(http "$port" POST /api/pair "{\"code\":\"$code\"}")"
kill -TERM "$web_pid" 2>/dev/null
wait "$web_pid"
web_status=$?
served() { ((web_status == 0)) && grep -q "serving the page on 127.0.0.1 port $port" "$work/web.log"; }
check "pomodoro web as pomodoro-web: serves (libmicrohttpd loaded), stops on SIGTERM with 0" \
  "exit $web_status; $(cat "$work/web.log")" served
check "pomodoro web: the printed code pairs a browser (POST /api/pair: 200)" "answer: ${answer:-none}; $(cat "$work/web.log")" \
  [ "$answer" = "HTTP/1.1 200 OK" ]
check "pomodoro web: the pairing kept, hashed, in $web_state/pairings (the service user's, 0600)" \
  "$(owner_mode "$web_state/pairings"); $(cat "$root$web_state/pairings" 2>&1)" pairings_are 1
cp "$root$web_state/pairings" "$work/pairings"

# The hooks as their unit runs them: the user, the unit and its condition, the recipes, then
# `pomodoro hooks` as that user (setpriv, as the web page above) with a hook and a webhook set.
hooks_state=/var/lib/pomodoro-hooks
hooks_unit="$root/usr/lib/systemd/system/pomodoro-hooks.service"
groups="$(in_groups pomodoro-hooks)"
check "install: the system user pomodoro-hooks is in pomodoro, nothing else" "id -nG pomodoro-hooks: $groups" \
  [ "$groups" = "pomodoro pomodoro-hooks" ]
home="$(in_root getent passwd pomodoro-hooks | cut -d: -f6)"
check "install: pomodoro-hooks' home is its state directory $hooks_state (~/.ssh for a hook that uses ssh)" \
  "home: $home" [ "$home" = "$hooks_state" ]
check "install: the hooks unit runs /usr/bin/pomodoro hooks" "$(grep -E '^ExecStart=' "$hooks_unit")" \
  grep -qx 'ExecStart=/usr/bin/pomodoro hooks --config /etc/pomodoro/pomodoro.conf' "$hooks_unit"
examples=/usr/share/doc/pomodoro-hooks/examples
for recipe in "$source_dir"/deploy/hooks/*; do
  shipped="$root$examples/${recipe##*/}"
  check "install: the recipe ${recipe##*/} in $examples, as written and executable" "$(ls -l "$root$examples" 2>&1)" \
    bash -c "[ -x '$shipped' ] && cmp -s '$recipe' '$shipped'"
done
# The unit's ExecCondition=, run as the unit runs it, on a config at a path of the test's own:
# false (the unit skipped, not failed) with the shipped config and a commented-out hook, true
# once a hook or a webhook is set.
condition="$(sed -n 's/^ExecCondition=//p' "$hooks_unit")"
condition_on() { # condition_on CONFIG-TEXT: the condition's exit status on a config holding it
  printf '%s\n' "$1" >"$root/var/tmp/condition.conf"
  chmod 644 "$root/var/tmp/condition.conf"
  in_root setpriv --reuid=pomodoro-hooks --regid=pomodoro-hooks --init-groups \
    sh -c "${condition//\/etc\/pomodoro\/pomodoro.conf//var/tmp/condition.conf}"
}
said=""
for text in "$(cat "$root$CONF")" "# hook_command = /etc/pomodoro/hooks/ntfy"; do
  condition_on "$text" && said="$said; true on: ${text:0:40}"
done
for text in "hook_command = /etc/pomodoro/hooks/ntfy" "  webhook_url = https://ntfy.sh/desk"; do
  condition_on "$text" || said="$said; false on: $text"
done
check "the hooks unit's ExecCondition: skipped with the shipped config, started once hook_command or webhook_url is set" \
  "ExecCondition=${condition:-none}$said" [ -n "$condition" -a -z "$said" ]
in_root install -d -m 0700 -o pomodoro-hooks -g pomodoro-hooks "$hooks_state"
printf '#!/bin/sh\ncat >>"$STATE_DIRECTORY/events"\n' >"$root/var/tmp/hook.sh"
chmod 755 "$root/var/tmp/hook.sh"
printf 'hook_command = /var/tmp/hook.sh\nwebhook_url = http://127.0.0.1:9/hook\n' >"$root/var/tmp/hooks.conf"
chmod 644 "$root/var/tmp/hooks.conf"
chroot "$root" /usr/bin/env -i LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  timeout --preserve-status 30 setpriv --reuid=pomodoro-hooks --regid=pomodoro-hooks --init-groups \
  env STATE_DIRECTORY="$hooks_state" pomodoro hooks --config /var/tmp/hooks.conf >"$work/hooks.log" 2>&1 &
hooks_pid=$!
for _ in $(seq 50); do
  ! grep -q 'running hook_command' "$work/hooks.log" || break
  sleep 0.2
done
kill -TERM "$hooks_pid" 2>/dev/null
wait "$hooks_pid"
hooks_status=$?
hooks_ran() {
  ((hooks_status == 0)) && grep -q 'running hook_command /var/tmp/hook.sh and webhook_url' "$work/hooks.log" &&
    grep -q '>stopped$' "$work/hooks.log" && ! grep -q 'webhooks cannot be posted' "$work/hooks.log"
}
check "pomodoro hooks as pomodoro-hooks: runs (libcurl.so.4 loaded, the Depends brought it), stops on SIGTERM with 0" \
  "exit $hooks_status; $(cat "$work/hooks.log")" hooks_ran
# What a hook keeps (the slack-status recipe's status), written as the hooks' user.
in_root setpriv --reuid=pomodoro-hooks --regid=pomodoro-hooks --init-groups \
  sh -c "echo '{\"status_text\":\"before\"}' >$hooks_state/slack-status.json"
cp "$root$hooks_state/slack-status.json" "$work/hooks-kept"

# 3b. the owner's edit and history, then the upgrade with a changed shipped config
sed -i 's/^# focus = 25m$/focus = 50m/' "$root$CONF"
printf '# my desk\n' >>"$root$CONF"
cp "$root$CONF" "$work/edited.conf"
check "the owner's edit is in place (focus = 50m)" "$(grep -n focus "$root$CONF")" grep -qx 'focus = 50m' "$root$CONF"
mkdir -p "$root/var/lib/pomodoro"
printf '{"history":"line"}\n' >"$root/var/lib/pomodoro/history.jsonl"
in_root chown -R pomodoro:pomodoro /var/lib/pomodoro
cp "$root/var/lib/pomodoro/history.jsonl" "$work/history.jsonl"

if [[ -f "$root${new_debs[0]}" ]]; then
  apt_step upgrade.log install "${new_debs[@]}"
  check "upgrade to $upgrade_version with no terminal succeeds (every package)" "$(tail -n 20 "$work/upgrade.log")" \
    [ "$(in_root dpkg-query -W -f '${Version} ${db:Status-Abbrev}\n' "${packages[@]}" | tr -d ' ' | sort -u)" = "${upgrade_version}ii" ]
  check "upgrade: no prompt, no warning" "$(warnings upgrade.log)" no_warnings upgrade.log
  check "upgrade: pomodoro --version is $upgrade_version" "$(in_root pomodoro --version 2>&1)" \
    in_root sh -c "pomodoro --version | grep -qF 'pomodoro $upgrade_version ('"
  check "upgrade: the new shipped config is in /usr/share/pomodoro" "$(tail -n 2 "$root/usr/share/pomodoro/pomodoro.conf")" \
    grep -q "^# Changed in $upgrade_version" "$root/usr/share/pomodoro/pomodoro.conf"
  check "upgrade: the owner's $CONF kept as edited" "$(diff "$work/edited.conf" "$root$CONF")" \
    cmp -s "$work/edited.conf" "$root$CONF"
  check "upgrade: the history kept" "$(ls -la "$root/var/lib/pomodoro" 2>&1)" \
    cmp -s "$work/history.jsonl" "$root/var/lib/pomodoro/history.jsonl"
  check "upgrade: the web pairings kept" "$(ls -la "$root$web_state" 2>&1)" cmp -s "$work/pairings" "$root$web_state/pairings"
  check "upgrade: what the hooks kept, kept" "$(ls -la "$root$hooks_state" 2>&1)" \
    cmp -s "$work/hooks-kept" "$root$hooks_state/slack-status.json"
else
  fail "upgrade to $upgrade_version" "no ${new_debs[0]##*/} in $debs"
fi

# sudo pomodoro web forget: every pairing revoked, the file still the service user's.
said="$(in_root pomodoro web forget 2>&1)"
check "sudo pomodoro web forget: forgets the one paired browser" "$said" grep -q '^forgot 1 paired browser;' <<<"$said"
check "sudo pomodoro web forget: no pairing left, pairings still the service user's" \
  "$(owner_mode "$web_state/pairings"); $(cat "$root$web_state/pairings" 2>&1)" pairings_are 0
cp "$root$web_state/pairings" "$work/pairings"

# 3c. remove: the config, the history and the pairings stay
apt_step remove.log remove "${packages[@]}"
check "remove: every package removed, its config state kept (rc)" "$(tail -n 10 "$work/remove.log")" \
  [ "$(statuses)" = "$(every rc)" ]
check "remove: /usr/bin/pomodoro gone" "$(ls -l "$root/usr/bin/pomodoro" 2>&1)" [ ! -e "$root/usr/bin/pomodoro" ]
check "remove: /usr/lib/pomodoro/pomodoro-mqtt gone" "$(ls -l "$root/usr/lib/pomodoro" 2>&1)" \
  [ ! -e "$root/usr/lib/pomodoro/pomodoro-mqtt" ]
check "remove: $CONF kept as edited" "$(ls -la "$root/etc/pomodoro" 2>&1)" cmp -s "$work/edited.conf" "$root$CONF"
check "remove: the history kept" "$(ls -la "$root/var/lib/pomodoro" 2>&1)" \
  cmp -s "$work/history.jsonl" "$root/var/lib/pomodoro/history.jsonl"
check "remove: the web pairings kept" "$(ls -la "$root$web_state" 2>&1)" cmp -s "$work/pairings" "$root$web_state/pairings"
check "remove: what the hooks kept, kept" "$(ls -la "$root$hooks_state" 2>&1)" \
  cmp -s "$work/hooks-kept" "$root$hooks_state/slack-status.json"

# 3d. purge: nothing left but the system users and groups (lines in /etc/passwd, group...)
apt_step purge.log purge "${packages[@]}"
check "purge: every package purged" "$(tail -n 10 "$work/purge.log")" [ -z "$(statuses)" ]
check "purge: /etc/pomodoro gone" "$(ls -la "$root/etc/pomodoro" 2>&1)" [ ! -e "$root/etc/pomodoro" ]
check "purge: /var/lib/pomodoro (state and history) gone" "$(ls -la "$root/var/lib/pomodoro" 2>&1)" \
  [ ! -e "$root/var/lib/pomodoro" ]
check "purge: $web_state (the pairings) gone" "$(ls -la "$root$web_state" 2>&1)" [ ! -e "$root$web_state" ]
check "purge: $hooks_state (what the hooks kept) gone" "$(ls -la "$root$hooks_state" 2>&1)" [ ! -e "$root$hooks_state" ]
snapshot >"$work/after"
check "purge: no file left behind (against the root before the first install)" \
  "$(diff "$work/before" "$work/after")" cmp -s "$work/before" "$work/after"
# Each package's user is named as the package.
check "purge: the system users stay (docs/install.md)" "$(grep -E '^pomodoro' "$root/etc/passwd")" \
  [ "$(cut -d: -f1 "$root/etc/passwd" | grep -cxF -f <(printf '%s\n' "${packages[@]}"))" = "${#packages[@]}" ]

# 3e. install again
apt_step reinstall.log install "${old_debs[@]}"
check "install again after purge succeeds" "$(tail -n 20 "$work/reinstall.log")" \
  [ "$(statuses)" = "$(every ii)" ]
check "install again: no warning (the users exist)" "$(warnings reinstall.log)" no_warnings reinstall.log
check "install again: a fresh $CONF from the shipped one" "$(diff "$root/usr/share/pomodoro/pomodoro.conf" "$root$CONF")" \
  cmp -s "$root$CONF" "$root/usr/share/pomodoro/pomodoro.conf"

test_done
