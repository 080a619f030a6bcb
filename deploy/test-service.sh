#!/usr/bin/env bash
# deploy/test-service.sh: checks deploy/pomodoro.service without booting it.
#  - systemd-analyze verify finds no unknown or malformed setting (a missing
#    /usr/local/bin/pomodoro on the build machine is expected and ignored);
#  - the settings the device relies on are there (Type=notify, the watchdog, the user...);
#  - `systemd-analyze security --offline=true` rates its exposure at MAX or lower (default 1.5).
# Usage: bash deploy/test-service.sh [UNIT-FILE] [MAX]
set -euo pipefail
cd "$(dirname "$0")/.."
unit="${1:-deploy/pomodoro.service}"
max="${2:-1.5}"
failures=0
passed=0
pass() {
  printf 'ok   %s\n' "$1"
  passed=$((passed + 1))
}
fail() {
  printf 'FAIL %s\n' "$1"
  failures=$((failures + 1))
}

command -v systemd-analyze >/dev/null || {
  echo "test-service: systemd-analyze is missing (package systemd)" >&2
  exit 1
}

# 1. Syntax: every line is a setting systemd knows, with a value it accepts.
problems="$(systemd-analyze verify --man=no "$unit" 2>&1 |
  grep -v -e 'Command /usr/local/bin/pomodoro is not executable' -e '^$' || true)"
if [[ -z "$problems" ]]; then
  pass "systemd-analyze verify: no unknown or malformed settings"
else
  fail "systemd-analyze verify: $problems"
fi

# 2. The settings the runtime and the installer rely on.
required=(
  "Type=notify"
  "WatchdogSec="
  "Restart=on-failure"
  "User=pomodoro"
  "SupplementaryGroups=gpio i2c"
  "StateDirectory=pomodoro"
  "ExecStart=/usr/local/bin/pomodoro run --config /etc/pomodoro/pomodoro.conf"
  "DeviceAllow=char-gpiochip rw"
  "DeviceAllow=char-i2c rw"
  "DevicePolicy=closed"
  "NoNewPrivileges=yes"
)
for setting in "${required[@]}"; do
  if grep -q "^${setting}" "$unit"; then
    pass "has ${setting}"
  else
    fail "missing ${setting}"
  fi
done
if grep -q '^DynamicUser=yes' "$unit"; then fail "DynamicUser=yes: the history must belong to the pomodoro user"; fi

# 3. The exposure rating.
report="$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1 || true)"
rating="$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' | tail -n 1)"
if [[ -z "$rating" ]]; then
  fail "systemd-analyze security printed no rating: $(printf '%s\n' "$report" | tail -n 3)"
elif awk -v r="$rating" -v m="$max" 'BEGIN { exit !(r <= m) }'; then
  pass "systemd-analyze security --offline=true: exposure $rating (at most $max)"
else
  fail "systemd-analyze security --offline=true: exposure $rating, above $max; its findings:"
  printf '%s\n' "$report" | grep '✗' || true
fi

echo "test-service: $passed passed, $failures failed"
((failures == 0))
