#!/usr/bin/env bash
# Tests/room/run.sh: a room of desks (docs/room.md) on a real mosquitto. Four interactive
# simulators (under tmux) with their control sockets and their bridges (`pomodoro mqtt`), on a
# broker on 127.0.0.1 on a free port; desk c (its simulator and its bridge) under libfaketime
# 90 s ahead with the monotonic clock left alone. Checks:
#   - every desk counts the room (3 members) through its bridge
#   - a start on a's button runs the focus on b and c; the time left on the three within 1 s
#   - pause on b pauses all three, resume on c (the desk 90 s off) runs all three again
#   - cancel on b: b idle, a and c run on; skip on a: every desk in the short break, b too
#   - a late desk d joins the running break at the right second (the retained session's age)
#   - d killed (its bridge SIGKILLed): the others count 3 again (its will)
#   - the broker restarted: the desks run on and count the room again
#   - two starts in the same second (a and b, in a room where nothing runs): one session on every
#     desk, the same on each (b's: the greater desk id), and on the broker
#   - 26,000 hostile room messages (Tests/room/hostile.py) while a desk's button is pressed: the
#     press reaches every desk, nothing else changes, the refusals are said rate-limited
#   - resume on c's command topic (Home Assistant's way, through its bridge), pause on b's button
# Prints PASS/FAIL lines and `N passed, M failed`.
#
# Usage: bash Tests/room/run.sh [--binary FILE] [--work DIR] [--keep]
set -uo pipefail

PROG=room/run.sh
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=Tests/lib/host.sh
source "$here/../lib/host.sh"
repo=$REPO
binary="" work=""
parse_args --binary=binary --work=work -- "$@"

for tool in tmux python3 mosquitto faketime; do
  command -v "$tool" >/dev/null || die "$tool is missing: apt-get install tmux python3 mosquitto faketime"
done
if [[ -z "$binary" ]]; then
  binary="$repo/.build/debug/pomodoro"
  [[ -x "$binary" ]] || (cd "$repo" && swift build --product pomodoro) >&2 || die "swift build failed"
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
if [[ -z "$work" ]]; then
  scratch_folder room
else
  mkdir -p "$work" && work="$(cd "$work" && pwd)"
  keep=1
fi

tmux_sock="pomodoro-room-$$"
pids=()
when_finished stop_processes

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$port" >"$work/mosquitto.conf"
broker_start() {
  mosquitto -c "$work/mosquitto.conf" >>"$work/mosquitto.log" 2>&1 &
  broker=$!
  pids+=("$broker")
  for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && return 0
    sleep 0.1
  done
  die "mosquitto did not listen on 127.0.0.1:$port: $(tail -n 3 "$work/mosquitto.log")"
}
broker_start

# desk NAME [faketime]: its config, its simulator (tmux window) and its bridge.
desk() {
  local d=$1 pre=""
  [[ "${2:-}" == faketime ]] && pre="env FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f +90s"
  mkdir -p "$work/$d/state"
  printf '%s\n' "control_socket = $work/$d/control.sock" "state_dir = $work/$d/state" "room = team" \
    "mqtt_host = 127.0.0.1" "mqtt_port = $port" "mqtt_device_id = desk-$d" >"$work/$d/pomodoro.conf"
  local cmd="exec $pre '$binary' simulate --no-bell --config '$work/$d/pomodoro.conf' --control '$work/$d/control.sock' 2>>'$work/$d/simulator.log'"
  if tmux -L "$tmux_sock" has-session 2>/dev/null; then
    tmux -L "$tmux_sock" new-window -d "$cmd"
  else
    tmux -L "$tmux_sock" -f /dev/null new-session -d -x 100 -y 40 "$cmd"
  fi
  for _ in $(seq 100); do ctl "$d" status >/dev/null 2>&1 && break; sleep 0.1; done
  # The bridge below the device on the CPU, as its unit runs it (Nice=10).
  # shellcheck disable=SC2086 # pre: words
  $pre nice -n 10 "$binary" mqtt --config "$work/$d/pomodoro.conf" >>"$work/$d/bridge.log" 2>&1 &
  bridge[$d]=$!
  pids+=("${bridge[$d]}")
}
ctl() { "$binary" ctl --socket "$work/$1/control.sock" "${@:2}"; }
# field DESK NAME: one field of the desk's state (ctl status --json).
field() {
  ctl "$1" status --json 2>/dev/null | python3 -c "import json,sys; s=json.load(sys.stdin)['state']; v=s.get('$2'); print(json.dumps(v) if isinstance(v, dict) else v)"
}
# is DESK NAME VALUE [SECONDS]: waits up to SECONDS (10) for the field to read VALUE.
is() {
  local v
  for _ in $(seq "$((${4:-10} * 10))"); do
    v=$(field "$1" "$2")
    [[ "$v" == "$3" ]] && return 0
    sleep 0.1
  done
  echo "desk $1: $2 is '$v', not '$3'"
  return 1
}
# together DESKS...: their time left within 1000 ms of each other. Each desk is read by ctl, its
# time left taken at the middle of the call and moved to the first reading's instant; a reading
# is uncertain by half its call's length. Apart only when certainly apart (the spread less the
# uncertainty over 1000 ms); a reading too uncertain to say (a loaded machine) is made again, up
# to 20 times.
together() {
  python3 - "$binary" "$work" "$@" <<'PY'
import json, subprocess, sys, time
binary, work, desks = sys.argv[1], sys.argv[2], sys.argv[3:]
def reading():
    t0, seen, unsure = None, {}, 0
    for d in desks:
        before = time.monotonic()
        out = subprocess.run([binary, "ctl", "--socket", f"{work}/{d}/control.sock", "status", "--json"],
                             capture_output=True, text=True).stdout
        after = time.monotonic()
        mid = (before + after) / 2
        t0 = mid if t0 is None else t0
        s = json.loads(out)["state"]
        running = s["phase"] == "running"
        seen[d] = s["remaining_ms"] + (int((mid - t0) * 1000) if running else 0)
        unsure += int((after - before) * 500) if running else 0
    return seen, max(seen.values()) - min(seen.values()), unsure
for attempt in range(20):
    seen, spread, unsure = reading()
    if spread + unsure <= 1000 or spread - unsure > 1000:
        break
print(f"time left {seen}, spread {spread} ms (give or take {unsure} ms; reading {attempt + 1})")
sys.exit(0 if spread - unsure <= 1000 else 1)
PY
}

declare -A bridge
for d in a b; do desk "$d"; done
desk c faketime
say "three desks (c 90 s ahead), their bridges, mosquitto on 127.0.0.1:$port"
for d in a b c; do
  check "desk $d counts the room through its bridge" "$(tail -n 3 "$work/$d/bridge.log")" is "$d" room_members 3
done

# The first start from a desk's own button (its simulator's Space; tmux window N is desk N+1).
tmux -L "$tmux_sock" send-keys -t 0:0 Space
for d in b c; do check "a start on a's button runs the focus on $d" "" is "$d" phase running; done
expect "the time left on a, b and c within 1 s" together a b c
check "c says its clock is not trusted (no timesync flag here)" "" is c room_clock_trusted False

ctl b pause >/dev/null
for d in a c; do check "pause on b pauses $d" "" is "$d" phase paused; done
expect "paused: the time left on a, b and c within 1 s" together a b c
ctl c resume >/dev/null
for d in a b; do check "resume on c (90 s off) runs $d" "" is "$d" phase running; done
expect "resumed: the time left on a, b and c within 1 s" together a b c

ctl b cancel >/dev/null
check "cancel on b: b idle" "" is b phase idle
sleep 1
check "cancel on b: a runs on" "" is a phase running
check "cancel on b: c runs on" "" is c phase running
ctl a skip >/dev/null
for d in a b c; do check "skip on a: $d in the short break" "" is "$d" mode short; done
for d in b c; do check "skip on a: $d runs it" "" is "$d" phase running; done
expect "the break's time left on a, b and c within 1 s" together a b c

sleep 3
desk d
check "a late desk d joins the running break" "" is d phase running
check "d is in the short break" "" is d mode short
expect "d's time left within 1 s of a's (the retained session's age)" together a d
check "a counts 4 members" "" is a room_members 4

kill -9 "${bridge[d]}"
wait "${bridge[d]}" 2>/dev/null
check "d's bridge killed: a counts 3 again (its will)" "" is a room_members 3

kill "$broker"
wait "$broker" 2>/dev/null
sleep 1
check "the broker gone: a runs on" "" is a phase running
broker_start
for d in a b c; do
  check "the broker back: $d counts the room again" "$(tail -n 3 "$work/$d/bridge.log")" is "$d" room_members 3
done
expect "after the broker's restart: the time left on a, b and c within 1 s" together a b c

# Two starts in the same second, in a room of its own where nothing runs yet: a and b each make
# revision 1; every desk ends with one of them, the same on each (the greater desk id: b's).
for d in a b c; do
  ctl "$d" config set room pair >/dev/null
  [[ "$(field "$d" phase)" == idle ]] || ctl "$d" cancel >/dev/null
done
for d in a b c; do check "desk $d counts the room 'pair'" "" is "$d" room_members 3; done
# The two starts made before either hears of the other: a's and b's bridges stopped meanwhile
# (SIGSTOP), so each desk makes its own revision 1; then both bridges publish theirs.
timeout 8 mosquitto_sub -h 127.0.0.1 -p "$port" -t "pomodoro/room/pair/session" -v >"$work/pair-sessions" 2>&1 &
sub=$!
sleep 0.5
kill -STOP "${bridge[a]}" "${bridge[b]}"
made_a=$(ctl a start --json)
made_b=$(ctl b start --json)
kill -CONT "${bridge[a]}" "${bridge[b]}"
check "two starts at once: a made its own revision 1" "$made_a" grep -qF '"room_rev":1,"room_by":"desk-a"' <<<"$made_a"
check "two starts at once: b made its own revision 1" "$made_b" grep -qF '"room_rev":1,"room_by":"desk-b"' <<<"$made_b"
for d in a b c; do check "two starts at once: $d runs the room's session" "" is "$d" phase running; done
for d in a b c; do check "two starts at once: $d holds b's session (revision 1 by desk-b)" "" is "$d" room_by desk-b; done
expect "two starts at once: the time left on a, b and c within 1 s" together a b c
retained=$(timeout 5 mosquitto_sub -h 127.0.0.1 -p "$port" -t "pomodoro/room/pair/session" -C 1 -W 4 2>/dev/null)
check "two starts at once: the broker keeps one session, b's" "$retained" grep -qF '"by":"desk-b"' <<<"$retained"
wait "$sub"
check "two starts at once: both revisions 1 were published (a's and b's)" "$(cat "$work/pair-sessions")" \
  grep -q '"rev":1,"by":"desk-a".*' "$work/pair-sessions"

# Hostile room messages, 10,000 sessions and 3,000 member messages (Tests/room/hostile.py: each one
# refused by construction, or a replay of an older revision), published twice over while a
# desk's own button is pressed: the press reaches every desk, nothing else changes, nobody traps.
ctl a pause >/dev/null
for d in a b c; do check "before the flood: $d paused by a's pause" "" is "$d" phase paused; done
ctl b resume >/dev/null
for d in a c; do check "before the flood: $d runs again (b's resume)" "" is "$d" phase running; done
rev=$(field a room_rev)
python3 -B "$here/hostile.py" --count 10000 --rev "$rev" >"$work/hostile-session"
python3 -B "$here/hostile.py" --count 2000 --rev "$rev" --member ghost >"$work/hostile-ghost"
python3 -B "$here/hostile.py" --count 1000 --rev "$rev" --member desk-c >"$work/hostile-c"
declare -A logged
for d in a b c; do logged[$d]=$(wc -l <"$work/$d/bridge.log"); done
(
  for _ in 1 2; do
    mosquitto_pub -h 127.0.0.1 -p "$port" -t "pomodoro/room/pair/session" -l <"$work/hostile-session"
    mosquitto_pub -h 127.0.0.1 -p "$port" -t "pomodoro/room/pair/members/ghost" -l <"$work/hostile-ghost"
    mosquitto_pub -h 127.0.0.1 -p "$port" -t "pomodoro/room/pair/members/desk-c" -l <"$work/hostile-c"
  done
) &
flood=$!
sleep 0.5
# Desk a's start/pause button (its simulator's Space; tmux's first window), during the flood.
tmux -L "$tmux_sock" send-keys -t 0:0 Space
pressed=$(date +%s%N)
check "the flood: a's button pauses a" "" is a phase paused
own=$((($(date +%s%N) - pressed) / 1000000))
kill -0 "$flood" 2>/dev/null && flooding=yes || flooding=no
# The others hear of it behind the flood's messages in their bridges' queues (each bridge reads
# and refuses all 26,000): checked once the flood is over, with 60 s for the queues to drain on
# a loaded machine (the figure below says how long it took).
wait "$flood"
ended=$((($(date +%s%N) - pressed) / 1000000))
for d in b c; do check "the flood: a's button pauses $d" "" is "$d" phase paused 60; done
say "figure: during the flood, a's button to a paused in $own ms (flood still on: $flooding); the flood ended $ended ms after the press, b and c paused $((($(date +%s%N) - pressed) / 1000000)) ms after it (ctl's checks every 100 ms)"
for d in a b c; do
  check "after the flood: $d holds a's pause, revision $((rev + 1)), nothing else" "" is "$d" room_rev $((rev + 1))
  check "after the flood: $d counts 3 members (no ghost, desk-c's not taken over)" "" is "$d" room_members 3
  check "after the flood: $d's bridge runs" "$(tail -n 3 "$work/$d/bridge.log")" kill -0 "${bridge[$d]}"
  said=$(tail -n +"$((logged[$d] + 1))" "$work/$d/bridge.log" | grep -c 'ignored a ')
  check "after the flood: $d's bridge said the refusals, rate-limited ($said lines for 26,000 messages)" \
    "$(tail -n 5 "$work/$d/bridge.log")" test "$said" -ge 1 -a "$said" -le 20
done
expect "after the flood: the time left on a, b and c within 1 s" together a b c

# Home Assistant's way in: a desk's command topic, through its bridge (c's, 90 s off); then b's own
# button.
mosquitto_pub -h 127.0.0.1 -p "$port" -t "pomodoro/desk-c/command" -m resume
for d in a b c; do check "resume on c's command topic (Home Assistant's way) runs $d" "" is "$d" phase running; done
tmux -L "$tmux_sock" send-keys -t 0:1 Space
for d in a b c; do check "b's own button pauses $d" "" is "$d" phase paused; done
expect "paused by b's button: the time left on a, b and c within 1 s" together a b c

REPORTED=1
test_done
