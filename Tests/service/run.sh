#!/usr/bin/env bash
# Tests/service/run.sh: checks deploy/pomodoro.service, deploy/pomodoro-mqtt.service (the
# MQTT bridge), deploy/pomodoro-web.service (the web page) and deploy/pomodoro-hooks.service (the
# owner's hooks) without booting them.
#  - systemd-analyze verify finds no unknown or malformed setting (a missing
#    /usr/bin/pomodoro on the build machine is expected and ignored);
#  - the settings each relies on are there (the device: Type=notify, the watchdog, the user, the
#    runtime folder of its control socket...; the bridge, the page and the hooks: their user in
#    the group pomodoro, no devices, the network; the page: every sandbox line of the bridge's
#    unit but those it must differ in, the hooks every one of the page's, said below);
#  - `systemd-analyze security --offline=true` rates each one's exposure at MAX or lower (default 1.5).
# Usage: bash Tests/service/run.sh [UNIT-FILE] [MAX]   (no UNIT-FILE: the four units)
set -euo pipefail
PROG=service
# shellcheck source=Tests/lib/host.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
parse_args @ -- "$@"
set -- "${ARGS[@]}"
cd "$REPO"
max="${2:-1.5}"

command -v systemd-analyze >/dev/null || {
  echo "test-service: systemd-analyze is missing (package systemd)" >&2
  exit 1
}

# check_unit UNIT-FILE: the three checks above, each line prefixed with the unit's name.
check_unit() {
  local unit="$1" name problems setting report rating
  name="$(basename "$unit")"
  # 1. Syntax: every line is a setting systemd knows, with a value it accepts.
  problems="$(systemd-analyze verify --man=no "$unit" 2>&1 |
    grep -v -e 'Command /usr/bin/pomodoro is not executable' -e '^$' || true)"
  if [[ -z "$problems" ]]; then
    pass "$name: systemd-analyze verify: no unknown or malformed settings"
  else
    fail "$name: systemd-analyze verify: $problems"
  fi

  # 2. The settings the runtime and the installer rely on.
  local required=() forbidden=()
  case "$name" in
  pomodoro-mqtt.service)
    required=(
      "ExecStart=/usr/bin/pomodoro mqtt --config /etc/pomodoro/pomodoro.conf"
      "Restart=on-failure"
      # Below the device on the CPU (a flood slows the bridge, not the buttons).
      "Nice=10$"
      "User=pomodoro-mqtt"
      "SupplementaryGroups=pomodoro"
      "PrivateDevices=yes"
      "DevicePolicy=closed"
      "NoNewPrivileges=yes"
      "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6"
      # Where it remembers the device it announced (STATE_DIRECTORY), to withdraw it on a rename.
      "StateDirectory=pomodoro-mqtt"
    )
    # The broker is on the network, and the control socket is the pomodoro group's.
    forbidden=("PrivateNetwork=yes" "IPAddressDeny=any" "PrivateUsers=yes" "DynamicUser=yes")
    ;;
  pomodoro-web.service)
    required=(
      "ExecStart=/usr/bin/pomodoro web --config /etc/pomodoro/pomodoro.conf"
      "Restart=on-failure"
      # Below the device on the CPU (a flood slows the server, not the buttons).
      "Nice=10$"
      # 69 (a port held by another program, an address not there yet) restarts, a few times.
      "RestartPreventExitStatus=64 78$"
      "RestartSec=5s"
      "StartLimitBurst=5"
      "User=pomodoro-web"
      "Group=pomodoro-web"
      "SupplementaryGroups=pomodoro$"
      "PrivateDevices=yes"
      "DevicePolicy=closed"
      "NoNewPrivileges=yes"
      # AF_NETLINK: getifaddrs, the addresses a request's Host may name.
      "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK$"
      # The pairings, and the code `sudo pomodoro web pair` leaves (STATE_DIRECTORY).
      "StateDirectory=pomodoro-web$"
      "StateDirectoryMode=0700"
    )
    # The phones are on the network and the control socket is the pomodoro group's; ProcSubset=pid
    # would hide /proc/sys/kernel/random/boot_id, which a printed pairing code is checked against.
    forbidden=("PrivateNetwork=yes" "IPAddressDeny=any" "PrivateUsers=yes" "DynamicUser=yes" "ProcSubset=")
    ;;
  pomodoro-hooks.service)
    required=(
      "ExecStart=/usr/bin/pomodoro hooks --config /etc/pomodoro/pomodoro.conf"
      # Skipped, not failed, until hook_command or webhook_url is set (the shipped config sets
      # neither, and pomodoro hooks exits 78 without one).
      "ExecCondition=/usr/bin/grep "
      "Restart=on-failure"
      # Below the device on the CPU (a hook that floods or spins slows the hooks, not the buttons).
      "Nice=10$"
      "RestartPreventExitStatus=64 78$"
      "StartLimitBurst=5"
      "User=pomodoro-hooks"
      "Group=pomodoro-hooks"
      "SupplementaryGroups=pomodoro$"
      "PrivateDevices=yes"
      "NoNewPrivileges=yes"
      # The webhooks and the hooks' own calls; no AF_NETLINK (getaddrinfo resolves without it).
      "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6$"
      # What a hook keeps (the slack-status recipe: the status it replaced), STATE_DIRECTORY.
      "StateDirectory=pomodoro-hooks$"
      "StateDirectoryMode=0700"
      "MemoryDenyWriteExecute=yes"
    )
    # The webhooks go out on the network and the control socket is the pomodoro group's; a hook is
    # the owner's program, which may read /proc as any program does (ProcSubset=pid hides most).
    forbidden=("PrivateNetwork=yes" "IPAddressDeny=any" "PrivateUsers=yes" "DynamicUser=yes" "ProcSubset=")
    ;;
  *)
    required=(
      "Type=notify"
      "WatchdogSec="
      "Restart=on-failure"
      "User=pomodoro"
      "SupplementaryGroups=gpio i2c"
      "StateDirectory=pomodoro"
      "RuntimeDirectory=pomodoro"
      "ExecStart=/usr/bin/pomodoro run --config /etc/pomodoro/pomodoro.conf"
      "DeviceAllow=char-gpiochip rw"
      "DeviceAllow=char-i2c rw"
      "DevicePolicy=closed"
      "NoNewPrivileges=yes"
    )
    # DynamicUser=yes: the history must belong to the pomodoro user.
    forbidden=("DynamicUser=yes")
    ;;
  esac
  for setting in "${required[@]}"; do
    if grep -q "^${setting}" "$unit"; then
      pass "$name: has ${setting%\$}"
    else
      fail "$name: missing ${setting%\$}"
    fi
  done
  for setting in "${forbidden[@]}"; do
    if grep -q "^${setting}" "$unit"; then fail "$name: has ${setting}"; else pass "$name: no ${setting}"; fi
  done

  # 2b. The page is sandboxed as the bridge is, and the hooks as the page: each of the other's
  # [Service] lines but those that name it, its exit codes, its address families and ProcSubset=
  # (above; the hooks' exit codes are the page's).
  local base=""
  case "$name" in
  pomodoro-web.service) base=pomodoro-mqtt.service ;;
  pomodoro-hooks.service) base=pomodoro-web.service ;;
  esac
  if [[ -n "$base" ]]; then
    local line missing=()
    while IFS= read -r line; do
      grep -qxF -- "$line" "$unit" || missing+=("$line")
    done < <(sed -n '/^\[Service\]/,/^\[/p' "$(dirname "$unit")/$base" |
      grep -E '^[A-Za-z]+=' | grep -vE '^(ExecStart|User|Group|StateDirectory|RestartPreventExitStatus|RestrictAddressFamilies|ProcSubset)=')
    if ((${#missing[@]} == 0)); then
      pass "$name: every sandbox line of $base"
    else
      fail "$name: lacks $base's ${missing[*]}"
    fi
  fi

  # 3. The exposure rating.
  report="$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1 || true)"
  rating="$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' | tail -n 1)"
  if [[ -z "$rating" ]]; then
    fail "$name: systemd-analyze security printed no rating: $(printf '%s\n' "$report" | tail -n 3)"
  elif awk -v r="$rating" -v m="$max" 'BEGIN { exit !(r <= m) }'; then
    pass "$name: systemd-analyze security --offline=true: exposure $rating (at most $max)"
  else
    fail "$name: systemd-analyze security --offline=true: exposure $rating, above $max; its findings:"
    printf '%s\n' "$report" | grep '✗' || true
  fi
}

if (($#)); then
  check_unit "$1"
else
  check_unit deploy/pomodoro.service
  check_unit deploy/pomodoro-mqtt.service
  check_unit deploy/pomodoro-web.service
  check_unit deploy/pomodoro-hooks.service
fi

test_done test-service
