#!/usr/bin/env bash
# Tests/mdns/run.sh: pomodoro web announced over mDNS by a real avahi-daemon, in seconds and
# without a guest: the whole test runs in network and mount namespaces of its own with a veth
# pair 192.0.2.10 and its own dbus-daemon (a socket in the scratch folder), so no packet leaves
# it and no daemon of this machine is touched (avahi-browse writes a name's space \\032, # \\035). Checks: announced as "Pomodoro on <host name>" on
# the served port with TXT path=/ (avahi-browse -rpt _http._tcp); a second server on this host
# takes "... #2"; avahi-daemon killed and started again: announced again; D-Bus and avahi-daemon
# both killed (the new Avahi client cannot be made: issue 46, tried again with back-off, said once)
# and started again: announced again; SIGTERM: withdrawn.
# Needs root (unshare, ip), avahi-daemon, avahi-utils, dbus-daemon and a pomodoro built with
# libavahi-client and libmicrohttpd; says SKIP and exits 0 where one is missing.
# Usage: sudo bash Tests/mdns/run.sh [--binary FILE]
set -euo pipefail
PROG=mdns
# shellcheck source=Tests/lib/host.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
binary=""
parse_args --binary=binary -- "$@"
binary=${binary:-$REPO/.build/debug/pomodoro}

missing=""
for tool in unshare ip avahi-daemon avahi-browse dbus-daemon; do
  command -v "$tool" >/dev/null || missing="$missing $tool"
done
[[ -x "$binary" ]] || missing="$missing $binary"
if [[ $EUID -ne 0 || -n "$missing" ]]; then
  skip "pomodoro web over mDNS" "needs root and${missing:- nothing else}"
  test_done mdns
  exit 0
fi
if [[ -z "${POMODORO_MDNS_NETNS:-}" ]]; then
  exec unshare --net --mount env POMODORO_MDNS_NETNS=1 bash "$0" --binary "$binary"
fi
# The daemon's pid file and socket live in /run/avahi-daemon: a tmpfs of this mount namespace's
# own, so that an avahi-daemon of this machine is neither seen nor touched.
mkdir -p /run/avahi-daemon
mount -t tmpfs tmpfs /run/avahi-daemon

work=$(mktemp -d "${TMPDIR:-/tmp}/pomodoro-mdns.XXXXXX")
pids=()
stop_all() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
when_finished stop_all

ip link set lo up
ip link add mdns0 type veth peer name mdns1
ip link set mdns1 up
ip link set mdns0 multicast on up
ip addr add 192.0.2.10/24 dev mdns0
cat >"$work/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$work/bus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
CONF
start_dbus() {
  rm -f "$work/bus.sock"
  dbus-daemon --config-file="$work/bus.conf" --nofork --nopidfile 2>>"$work/dbus.log" &
  dbus_pid=$!
  pids+=("$dbus_pid")
  wait_for 30 test -S "$work/bus.sock" || die "dbus-daemon made no socket within 30 s: $(tail -n 3 "$work/dbus.log")"
}
start_dbus
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/bus.sock
start_avahi() {
  avahi-daemon --no-drop-root --no-chroot --no-rlimits >>"$work/avahi.log" 2>&1 &
  avahi_pid=$!
  pids+=("$avahi_pid")
}
start_avahi
host=$(hostname)
name_re() { printf 'Pomodoro(\\\\032| )on(\\\\032| )%s%s' "$host" "$1"; }
# announced PORT [SUFFIX]: avahi-browse finds the service on 192.0.2.10:PORT with path=/.
announced() {
  avahi-browse -rpt _http._tcp >"$work/browse.txt" 2>&1 || true
  grep -Eq "^=;mdns0;IPv4;$(name_re "${2:-}");[^;]*;local;[^;]*;192\.0\.2\.10;$1;\"path=/\"" "$work/browse.txt"
}
serve() {
  mkdir -p "$work/state-$1"
  printf 'control_socket = %s/none.sock\nweb_port = %s\n' "$work" "$1" >"$work/web-$1.conf"
  STATE_DIRECTORY="$work/state-$1" "$binary" web --config "$work/web-$1.conf" >"$work/web-$1.log" 2>&1 &
  pids+=($!)
}
: >"$work/browse.txt"
said() { tr '\n' '|' <"$work/$1" 2>/dev/null | cut -c1-400; }

serve 18777
check "announced: 'Pomodoro on $host' on 192.0.2.10:18777 with path=/" "$(said browse.txt) $(said web-18777.log)" \
  wait_for 20 announced 18777
web_pid=${pids[-1]}
serve 18778
check "a second server on this host: 'Pomodoro on $host #2' on 18778" "$(said browse.txt) $(said web-18778.log)" \
  wait_for 20 announced 18778 '(\\032| )(\\035|#)2'
kill -KILL "$avahi_pid"
wait "$avahi_pid" 2>/dev/null || true
start_avahi
check "avahi-daemon started again: announced again" "$(said browse.txt) $(said web-18777.log)" \
  wait_for 20 announced 18777
# The system bus gone with the daemon: the client fails and no new one can be made until both
# are back; the server says so once, tries again with back-off, and is announced again.
kill -KILL "$avahi_pid" "$dbus_pid"
wait "$avahi_pid" "$dbus_pid" 2>/dev/null || true
retrying() { grep -q "trying again with back-off" "$work/web-18777.log"; }
check "D-Bus and avahi-daemon gone: said once, trying again with back-off" "$(said web-18777.log)" wait_for 20 retrying
start_dbus
start_avahi
check "D-Bus and avahi-daemon back: announced again" "$(said browse.txt) $(said web-18777.log)" \
  wait_for 40 announced 18777
check "said once" "$(said web-18777.log)" \
  bash -c "[[ \$(grep -c 'trying again with back-off' '$work/web-18777.log') == 1 ]]"
kill -TERM "$web_pid"
withdrawn() { ! announced 18777; }
check "SIGTERM: withdrawn" "$(said browse.txt)" wait_for 20 withdrawn
check "the server said so: announced, went away, announced, withdrew" "$(said web-18777.log)" \
  bash -c "grep -q 'announced as' '$work/web-18777.log' && grep -q 'avahi-daemon went away' '$work/web-18777.log' && grep -q 'withdrew' '$work/web-18777.log'"
test_done mdns
