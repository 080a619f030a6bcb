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
#   - a desk whose wall clock is a year ahead joins the running break at the right second
#   - labels of every kind (invisible, right-to-left, joined emoji) listed exactly on every desk,
#     before and after the broker restarted: the desks run on and count the room again
#   - two starts in the same second (a and b, in a room where nothing runs): one session on every
#     desk, the same on each (b's: the greater desk id), and on the broker
#   - 26,000 hostile room messages (Tests/room/hostile.py) while a desk's button is pressed: the
#     press reaches every desk, nothing else changes, the refusals are said rate-limited
#   - resume on c's command topic (Home Assistant's way, through its bridge), pause on b's button
#   - issue 44: the newest session a forger can make (and the first wire's cap, Int64's extremes)
#     stops the desks, and the next start reaches every desk; a replay with a fresh expiry changes
#     nothing; the longest labels in bytes listed on every desk; 63 retained ghosts keep no desk
#     out, and a late desk is counted at once. Each followed by a press that reaches every desk.
# Prints PASS/FAIL lines and `N passed, M failed`.
#
# Usage: bash Tests/room/run.sh [--binary FILE] [--work DIR] [--keep]
set -uo pipefail

PROG=room/run.sh
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=Tests/lib/host.sh
source "$here/../lib/host.sh"
# shellcheck source=Tests/room/desks.sh
source "$here/desks.sh"
room_setup room tmux python3 mosquitto mosquitto_pub faketime -- "$@"

tmux_sock="pomodoro-room-$$"
pids=()
when_finished stop_processes

port=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$port" >"$work/mosquitto.conf"
broker_start() {
  start_broker "$work/mosquitto.conf" "$port" "$work/mosquitto.log"
  broker=$started
  pids+=("$broker")
}
broker_start

declare -A bridge
desks_abc=(a b c)
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
# b's bridge publishes its session before its member message: once a and c show b idle, whatever
# b's cancel sent the room has reached them.
for d in a c; do check "cancel on b: $d shows b idle" "" sees "$d" b idle; done
check "cancel on b: a runs on" "" is a phase running
check "cancel on b: c runs on" "" is c phase running
ctl a skip >/dev/null
for d in a b c; do check "skip on a: $d in the short break" "" is "$d" mode short; done
for d in b c; do check "skip on a: $d runs it" "" is "$d" phase running; done
expect "the break's time left on a, b and c within 1 s" together a b c

# The break's session aged on the broker, 3 s by its count of the expiry (a room's age is that
# count, in whole seconds): the wait is on the count itself.
check "the break's session aged 3 s on the broker" "" aged "pomodoro/room/team/sessions/$(field a room_by)" 3
desk d
check "a late desk d joins the running break" "" is d phase running
check "d is in the short break" "" is d mode short
expect "d's time left within 1 s of a's (the retained session's age)" together a d
check "a counts 4 members" "" is a room_members 4

kill -9 "${bridge[d]}"
wait "${bridge[d]}" 2>/dev/null
check "d's bridge killed: a counts 3 again (its will)" "" is a room_members 3

# A desk whose wall clock is a year ahead (libfaketime, the monotonic clock left alone): it joins
# the running break at the right second, by the broker's count of the session's age.
desk e faketime +365d
check "a desk a year ahead joins the running break" "" is e phase running
expect "the desk a year ahead: its time left within 1 s of a's" together a e
check "the desk a year ahead counts the room" "" is e room_members 4
pkill -P "${bridge[e]}"
kill "${bridge[e]}" 2>/dev/null
check "e's bridge stopped: a counts 3 again" "" is a room_members 3

# Labels of every kind (invisible, right-to-left, joined emoji) on the desks, through a restart
# of the broker: each desk lists them exactly before and after.
room_labels=($'Read\u200bme' $'abc\u202efed' $'\U1F469\u200d\U1F469\u200d\U1F467 family')
for i in 0 1 2; do ctl "${desks_abc[i]}" label "${room_labels[i]}" >/dev/null; done
for d in a b c; do check "the labels: $d lists each desk's exactly" "" labels_are "$d" "${room_labels[@]}"; done
broker_gone=$(wc -l <"$work/a/bridge.log")
kill "$broker"
wait "$broker" 2>/dev/null
check "the broker gone: a's bridge says so" "$(tail -n 3 "$work/a/bridge.log")" \
  wait_for 30 said a "$broker_gone" "MQTT broker 127.0.0.1:$port: .*retrying"
check "the broker gone: a runs on" "" is a phase running
broker_start
for d in a b c; do
  check "the broker back: $d counts the room again" "$(tail -n 3 "$work/$d/bridge.log")" is "$d" room_members 3
done
expect "after the broker's restart: the time left on a, b and c within 1 s" together a b c
for d in a b c; do
  check "after the broker's restart: $d lists each desk's label exactly" "" labels_are "$d" "${room_labels[@]}"
done

# Two starts in the same second, in a room of its own where nothing runs yet: a and b each make
# revision 1; every desk ends with one of them, the same on each (the greater desk id: b's).
for d in a b c; do
  ctl "$d" config set room pair >/dev/null
  [[ "$(field "$d" phase)" == idle ]] || ctl "$d" cancel >/dev/null
done
for d in a b c; do check "desk $d counts the room 'pair'" "" is "$d" room_members 3; done
# The two starts made before either hears of the other: a's and b's bridges stopped meanwhile
# (SIGSTOP), so each desk makes its own revision 1; then both bridges publish theirs.
# The subscriber's own marker topic beside the sessions: once a marker comes back, it listens.
mosquitto_sub -h 127.0.0.1 -p "$port" -t "pomodoro/room/pair/sessions/+" -t pomodoro/test/marker -v -W 120 \
  >"$work/pair-sessions" 2>&1 &
sub=$!
pids+=("$sub")
marked() {
  mosquitto_pub -h 127.0.0.1 -p "$port" -t pomodoro/test/marker -m x
  grep -q '^pomodoro/test/marker x$' "$work/pair-sessions"
}
wait_for 30 marked || fail "two starts at once: the sessions' subscriber listens" "no marker came back within 30 s"
kill -STOP "${bridge[a]}" "${bridge[b]}"
made_a=$(ctl a start --json)
made_b=$(ctl b start --json)
kill -CONT "${bridge[a]}" "${bridge[b]}"
check "two starts at once: a made its own revision 1" "$made_a" grep -qF '"room_rev":1,"room_by":"desk-a"' <<<"$made_a"
check "two starts at once: b made its own revision 1" "$made_b" grep -qF '"room_rev":1,"room_by":"desk-b"' <<<"$made_b"
for d in a b c; do check "two starts at once: $d runs the room's session" "" is "$d" phase running; done
for d in a b c; do check "two starts at once: $d holds b's session (revision 1 by desk-b)" "" is "$d" room_by desk-b; done
expect "two starts at once: the time left on a, b and c within 1 s" together a b c
published() { grep -q "^pomodoro/room/pair/sessions/desk-$1 " "$work/pair-sessions"; }
wait_for 30 published a && wait_for 30 published b
kill "$sub"
for d in a b; do
  check "two starts at once: desk-$d published its revision 1 on its own topic" "$(cat "$work/pair-sessions")" \
    grep -q "^pomodoro/room/pair/sessions/desk-$d {\"v\":2,\"rev\":1," "$work/pair-sessions"
done

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
    mosquitto_pub -h 127.0.0.1 -p "$port" -t "pomodoro/room/pair/sessions/zzzz" -l <"$work/hostile-session"
    mosquitto_pub -h 127.0.0.1 -p "$port" -t "pomodoro/room/pair/members/ghost" -l <"$work/hostile-ghost"
    mosquitto_pub -h 127.0.0.1 -p "$port" -t "pomodoro/room/pair/members/desk-c" -l <"$work/hostile-c"
  done
) &
flood=$!
# The flood under way: a's bridge refuses its first messages.
check "the flood reaches a's bridge" "$(tail -n 3 "$work/a/bridge.log")" wait_for 30 said a "${logged[a]}" 'ignored a '
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

# Messages no desk may let win for good (issue 44), each followed by a real press that must reach
# every desk. pub TOPIC PAYLOAD [EXPIRY]: retained, MQTT 5, with its Message Expiry Interval.
pub() {
  local args=(-h 127.0.0.1 -p "$port" -V mqttv5 -q 1 -r -t "$1" -m "$2")
  [[ -n "${3:-}" ]] && args+=(-D publish message-expiry-interval "$3")
  mosquitto_pub "${args[@]}"
}
# forged REV STATE [ELAPSED_MS]: a valid session of one 25-minute focus.
forged() {
  printf '{"v":2,"rev":%s,"modes":["focus"],"lengths_ms":[1500000],"plan_rev":%s,"phase":0,"state":"%s","elapsed_ms":%s,"expiry":5,"sent_ms":1796040000000,"synced":false}' \
    "$1" "$1" "$2" "${3:-1500000}"
}
# reaches WHAT DESK COMMAND PHASE: DESK's COMMAND (a press, by ctl) puts every desk in PHASE, with
# DESK's revision; says how long the last desk took (ctl's checks every 100 ms).
reaches() {
  local what=$1 from=$2 command=$3 phase=$4 d start
  start=$(date +%s%N)
  ctl "$from" "$command" >/dev/null
  for d in a b c; do check "$what: $from's $command reaches $d" "" is "$d" phase "$phase"; done
  for d in a b c; do check "$what: $d holds desk-$from's revision" "" is "$d" room_by "desk-$from"; done
  say "figure: $what: $from's $command on every desk after $((($(date +%s%N) - start) / 1000000)) ms"
}
zs=$(printf 'z%.0s' $(seq 40))
rev=$(field a room_rev)
# The cap of the first wire and Int64's extremes: refused by range. The newest a forger can be
# (rev + 2^31 - 1, an ended session from the desk id that sorts last): it stops every desk, and
# the next press wins all the same (serial numbers: no revision is the last).
for r in 9007199254740992 9223372036854775807 -9223372036854775808 $(((rev + (1 << 31) - 1) % (1 << 32))); do
  pub "pomodoro/room/pair/sessions/$zs" "$(forged "$r" ended)" 5
done
for d in a b c; do check "the forger's ended session stops $d" "" is "$d" phase idle; done
reaches "after the forged cap" a start running
# A replay: a's session of a moment ago, published again with a fresh expiry, after a newer press.
old=$(timeout 5 mosquitto_sub -h 127.0.0.1 -p "$port" -t pomodoro/room/pair/sessions/desk-a -C 1 -W 4 2>/dev/null)
reaches "before the replay" b pause paused
pub pomodoro/room/pair/sessions/desk-a "$(sed -E 's/"expiry":[0-9]+/"expiry":86400/' <<<"$old")" 86400
# A marker after it: a member message, which each desk's bridge takes from the broker after the
# replay (one connection, in order); once a desk counts it, the replay has reached that desk too.
pub pomodoro/room/pair/members/marker '{"v":1,"desk":"marker","phase":"idle","mode":"focus","following":false}' 75
for d in a b c; do check "the marker after the replay reaches $d" "" is "$d" room_members 4; done
for d in a b c; do check "the replay changes nothing on $d" "" is "$d" room_by desk-b; done
pub pomodoro/room/pair/members/marker ""
for d in a b c; do check "the marker gone: $d counts 3" "" is "$d" room_members 3; done
reaches "after the replay" c resume running
# The longest labels in bytes (40 characters of a quote and a combining mark: 160 bytes) on every
# desk: each desk still counts and lists the others.
long=$(python3 -c 'print("\"\u20dd" * 40)')
for d in a b c; do ctl "$d" label "$long" >/dev/null; done
for d in a b c; do
  check "the longest labels: $d counts 3" "" is "$d" room_members 3
  check "the longest labels: $d lists each desk's label" "$(field "$d" room_desk_labels)" \
    python3 -c 'import json,sys; l=json.loads(sys.argv[1]); sys.exit(0 if len(l) == 3 and all(x == "\"\u20dd" * 40 for x in l) else 1)' \
    "$(ctl "$d" status --json | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["state"]["room_desk_labels"]))')"
done
reaches "with the longest labels" a pause paused
# 63 ghosts: retained member messages of desks that left without a will. The desks already there
# stay counted; a desk that joins later is counted at once.
for i in $(seq -w 1 63); do
  pub "pomodoro/room/pair/members/ghost$i" "{\"v\":1,\"desk\":\"ghost$i\",\"phase\":\"running\",\"mode\":\"focus\",\"following\":true}" 75
done
for d in a b c; do
  check "63 ghosts: $d counts the room full (64)" "" is "$d" room_members 64
  for other in a b c; do
    check "63 ghosts: $d still lists desk-$other" "$(field "$d" room_desks)" lists "$d" "desk-$other" 1
  done
done
ctl d config set room pair >/dev/null
"$binary" mqtt --config "$work/d/pomodoro.conf" >>"$work/d/bridge.log" 2>&1 &
bridge[d]=$!
pids+=("${bridge[d]}")
for d in a b c; do
  check "63 ghosts: the late desk d is counted on $d" "$(field "$d" room_desks)" lists "$d" desk-d 5
done
for i in $(seq -w 1 63); do pub "pomodoro/room/pair/members/ghost$i" ""; done
for d in a b c; do check "the ghosts cleared: $d counts 4" "" is "$d" room_members 4; done

REPORTED=1
test_done
