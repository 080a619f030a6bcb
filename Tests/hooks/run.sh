#!/usr/bin/env bash
# Tests/hooks/run.sh: `pomodoro hooks` beside a device (the simulator under tmux, with its control
# socket), its hooks real processes and its webhooks real POSTs to Tests/hooks/server.py on
# 127.0.0.1 (never the internet):
#   - a hook that records its variables and stdin sees every event, in order, with the state;
#   - a hook that hangs is ended at hook_timeout and one that floods its output is cut to 50 lines,
#     while the device's buttons (ctl, through the same socket) keep answering;
#   - 1,000 changes in a burst: the oldest waiting are dropped and said, the newest run, nothing stops;
#   - a webhook answered 500, then held past hook_timeout, then answered: three POSTs, the last taken;
#   - the recipes (deploy/hooks: slack-status, ntfy, gnome-dnd) make the calls docs/hooks.md says.
# Usage: bash Tests/hooks/run.sh [--binary FILE] [--keep]
set -uo pipefail

PROG=hooks/run.sh
# shellcheck source=Tests/lib/host.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
here=$REPO/Tests/hooks
binary=$REPO/.build/debug/pomodoro
keep=0
parse_args --binary=binary --keep:keep -- "$@"
[[ -x "$binary" ]] || die "no $binary: swift build first (or --binary FILE)"
command -v python3 >/dev/null || die "python3 is needed (the test's server)"

scratch_folder hooks
pids=()
tmux_sock=pomodoro-hooks-$$
when_finished stop_processes
when_finished setup_failed "hooks: setup"

# until SECONDS COMMAND...: runs COMMAND every 0.1 s until it succeeds (0) or SECONDS pass (1).
until_true() {
  local limit=$1
  shift
  local end=$((SECONDS + limit))
  while ((SECONDS <= end)); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}
lines_in() { [[ -f "$1" ]] && (($(wc -l <"$1") >= $2)); }
logged() { grep -q -- "$2" "$work/$1" 2>/dev/null; }

# The server: its port in $work/port, every request in $work/requests.jsonl.
python3 -B "$here/server.py" "$work/port" "$work/requests.jsonl" 2>"$work/server.err" &
pids+=($!)
until_true 10 test -s "$work/port" || die "the test's server did not start: $(cat "$work/server.err")"
port=$(cat "$work/port")

# The device: the simulator with its control socket.
sock=$work/control.sock
printf '%s\n' "control_socket = $sock" "state_dir = $work/state" "focus = 25m" >"$work/device.conf"
mkdir -p "$work/state"
tmux -L "$tmux_sock" -f /dev/null new-session -d -x 100 -y 40 \
  "exec '$binary' simulate --no-bell --config '$work/device.conf' --control '$sock' 2>>'$work/simulator.log'"
ctl() { "$binary" ctl --socket "$sock" "$@"; }
until_true 10 ctl status >/dev/null 2>&1 || die "the simulator did not answer on $sock: $(tail -n 5 "$work/simulator.log")"

# hooks NAME CONFIG-LINES...: `pomodoro hooks` with these keys beside the device, its log in $work/NAME.log.
hooks() {
  local name=$1
  shift
  printf '%s\n' "control_socket = $sock" "$@" >"$work/$name.conf"
  "$binary" hooks --config "$work/$name.conf" >"$work/$name.log" 2>&1 &
  hooks_pid=$!
  pids+=("$hooks_pid")
  until_true 10 logged "$name.log" "watching the device" || die "pomodoro hooks ($name) did not start: $(cat "$work/$name.log")"
}
stop_hooks() { kill "$hooks_pid" 2>/dev/null && until_true 10 eval "! kill -0 $hooks_pid 2>/dev/null"; }

# --- 1. every event, in order, with its variables and stdin ------------------------------------
cat >"$work/record.sh" <<EOF
#!/bin/sh
echo "\$1 \$POMODORO_EVENT \$POMODORO_PHASE \$POMODORO_MODE \$POMODORO_REMAINING_MS [\$POMODORO_LABEL]" >>"$work/events.log"
cat >>"$work/stdin.log"
EOF
chmod +x "$work/record.sh"
hooks record "hook_command = $work/record.sh"
ctl start >/dev/null && ctl pause >/dev/null && ctl resume >/dev/null
ctl label Write the report >/dev/null && ctl interrupt --external >/dev/null && ctl skip >/dev/null
until_true 20 lines_in "$work/events.log" 6
want="started started running focus
paused paused paused focus
resumed resumed running focus
label label running focus
interrupted interrupted running focus
skipped skipped idle short"
got=$(cut -d' ' -f1-4 "$work/events.log")
check "hooks: every event in order, the event as \$1 and POMODORO_EVENT, with its phase and mode" \
  "$(printf 'want:\n%s\ngot:\n%s' "$want" "$got")" [ "$got" = "$want" ]
check "hooks: POMODORO_REMAINING_MS and POMODORO_LABEL say the state" "$(cat "$work/events.log")" \
  grep -q '^label label running focus [0-9]\+ \[Write the report\]$' "$work/events.log"
check "hooks: stdin is one JSON line an event, {event, state} (Python's json reads each)" \
  "$(head -c 300 "$work/stdin.log")" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
events = [json.loads(l) for l in lines]
assert [e["event"] for e in events] == ["started", "paused", "resumed", "label", "interrupted", "skipped"], events
assert events[3]["state"]["label"] == "Write the report" and events[4]["state"]["interruptions"] == 1, events[3:5]
' "$work/stdin.log"
check "hooks: each run said in the log" "$(cat "$work/record.log")" grep -q "hook_command skipped ran" "$work/record.log"
stop_hooks

# --- 2. a hook that hangs, one that floods; the buttons meanwhile ---------------------------------
cat >"$work/slow.sh" <<EOF
#!/bin/sh
case "\$1" in
  started) exec sleep 60 ;;
  paused) [ -e "$work/flooded" ] || { touch "$work/flooded"; exec yes "a line of a hook that floods its output"; } ;;
esac
echo "\$1" >>"$work/slow-events.log"
EOF
chmod +x "$work/slow.sh"
hooks slow "hook_command = $work/slow.sh" "hook_timeout = 2s"
ctl start >/dev/null
until_true 10 pgrep -f "sleep 60" >/dev/null
begin=$SECONDS
answers=0
for _ in $(seq 20); do ctl toggle >/dev/null && answers=$((answers + 1)); done
check "hooks: the device's buttons answer while a hook hangs and one floods (20 of 20 toggles, $((SECONDS - begin)) s)" \
  "answers: $answers" [ "$answers" = 20 ]
until_true 30 logged slow.log "hook_command started ran over hook_timeout (2s): ended it (SIGTERM)"
check "hooks: a hook that hangs is ended at hook_timeout (SIGTERM) and said" "$(tail -n 5 "$work/slow.log")" \
  logged slow.log "hook_command started was ended by signal 15"
until_true 30 logged slow.log "hook_command paused: .* more line(s) of its output not shown"
shown=$(grep -c "hook_command paused: a line of a hook that floods its output" "$work/slow.log")
check "hooks: a hook that floods is said 50 lines, the rest counted, and ended at hook_timeout" \
  "shown: $shown; $(grep "paused" "$work/slow.log" | tail -n 3)" [ "$shown" = 50 ]
until_true 30 lines_in "$work/slow-events.log" 1
check "hooks: the hooks after them still run, in order" "$(cat "$work/slow-events.log" 2>/dev/null)" \
  grep -qx "resumed" "$work/slow-events.log"
stop_hooks

# --- 3. 1,000 changes in a burst --------------------------------------------------------------------
cat >"$work/count.sh" <<EOF
#!/bin/sh
echo "\$1" >>"$work/count.log"
EOF
chmod +x "$work/count.sh"
hooks burst "hook_command = $work/count.sh"
ctl cancel >/dev/null 2>&1
python3 - "$sock" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b'{"cmd":"toggle"}\n' * 1000)
s.shutdown(socket.SHUT_WR)
while s.recv(65536):
    pass
EOF
ctl status --json >"$work/after-burst.json"
until_true 60 logged burst.log "hooks fell behind: dropped the"
check "hooks: 1,000 changes in a burst: the oldest waiting dropped and said" "$(grep -c . "$work/count.log") ran" \
  logged burst.log "hooks fell behind: dropped the [0-9]* oldest (at most 64 wait)"
ctl start >/dev/null 2>&1 || ctl cancel >/dev/null
until_true 30 eval "tail -n 1 '$work/count.log' | grep -qx 'started\|cancelled'"
check "hooks: after the burst the process runs on and takes the next change" \
  "last: $(tail -n 1 "$work/count.log")" eval "tail -n 1 '$work/count.log' | grep -qx 'started\|cancelled'"
check "hooks: the device kept count through the burst (1,000 toggles: paused at the end)" \
  "$(head -c 200 "$work/after-burst.json")" grep -q '"phase":"paused"' "$work/after-burst.json"
stop_hooks
ctl cancel >/dev/null 2>&1

# --- 4. a webhook answered 500, then held, then answered --------------------------------------------
printf '%s\n' "# a bearer token" "Authorization: Bearer test-token" "X-Desk: hooks test" >"$work/headers"
chmod 600 "$work/headers"
: >"$work/requests.jsonl"
hooks webhook "webhook_url = http://127.0.0.1:$port/flaky" "webhook_headers = $work/headers" "hook_timeout = 2s"
ctl start >/dev/null
until_true 40 logged webhook.log "webhook started: 200"
tries=$(grep -c '"path": "/flaky"' "$work/requests.jsonl")
check "hooks: a webhook answered 500, then held past hook_timeout, is tried again and taken the third time" \
  "$tries POSTs; $(grep webhook "$work/webhook.log" | tail -n 4)" [ "$tries" = 3 ]
check "hooks: each failure said with when it is tried again" "$(grep webhook "$work/webhook.log")" \
  eval "grep -q 'webhook started failed (answered 500); trying again in 2s' '$work/webhook.log' && grep -q 'webhook started failed (.*[Tt]ime.*); trying again in 8s' '$work/webhook.log'"
check "hooks: the webhook is a POST of the event's JSON with the headers file's lines" "$(head -c 400 "$work/requests.jsonl")" \
  python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][-1]
assert r["method"] == "POST", r
assert r["headers"]["authorization"] == "Bearer test-token" and r["headers"]["x-desk"] == "hooks test", r["headers"]
assert r["headers"]["content-type"].startswith("application/json"), r["headers"]
body = json.loads(r["body"])
assert body["event"] == "started" and body["state"]["phase"] == "running", body
' "$work/requests.jsonl"
stop_hooks
ctl cancel >/dev/null 2>&1

# --- 5. the recipes ----------------------------------------------------------------------------------
run_recipe() { # run_recipe NAME EVENT JSON: deploy/hooks/NAME EVENT with the JSON on its stdin, as the hooks run it
  "$REPO/deploy/hooks/$1" "$2" <<<"$3"
}
state='{"phase":"running","mode":"focus","kind":"focus","remaining_ms":1500000,"ends_at":"2026-12-07T10:25:00Z","title":"Focus 1/4","label":"Report","today":2}'
: >"$work/requests.jsonl"
echo "xoxp-test" >"$work/slack.token"
export SLACK_API_URL=http://127.0.0.1:$port/api SLACK_TOKEN_FILE=$work/slack.token STATE_DIRECTORY=$work
run_recipe slack-status started "{\"event\":\"started\",\"state\":$state}"
run_recipe slack-status completed "{\"event\":\"completed\",\"state\":${state/running/ringing}}"
check "recipes: slack-status keeps the status, sets focusing and do-not-disturb, then puts the status back" \
  "$(cat "$work/requests.jsonl")" python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
paths = [x["path"] for x in r]
assert paths == ["/api/users.profile.get", "/api/users.profile.set", "/api/dnd.setSnooze?num_minutes=25",
                 "/api/users.profile.set", "/api/dnd.endSnooze"], paths
assert all(x["headers"]["authorization"] == "Bearer xoxp-test" for x in r)
focusing = json.loads(r[1]["body"])["profile"]
assert focusing["status_text"] == "Focusing until 10:25 UTC: Report" and focusing["status_emoji"] == ":tomato:", focusing
back = json.loads(r[3]["body"])["profile"]
assert back["status_text"] == "Lunch" and back["status_emoji"] == ":sandwich:", back
assert r[1]["headers"]["content-type"].startswith("application/json")
' "$work/requests.jsonl"
: >"$work/requests.jsonl"
NTFY_URL=http://127.0.0.1:$port/my-desk run_recipe ntfy ringing "{\"event\":\"ringing\",\"state\":${state/running/ringing}}"
NTFY_URL=http://127.0.0.1:$port/my-desk run_recipe ntfy started "{\"event\":\"started\",\"state\":$state}"
check "recipes: ntfy posts the alarm to the topic with Title, Tags and Priority, and nothing for a start" \
  "$(cat "$work/requests.jsonl")" python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 1, r
h = r[0]["headers"]
assert r[0]["method"] == "POST" and r[0]["path"] == "/my-desk" and r[0]["body"] == "Report", r[0]
assert h["title"] == "Focus 1/4 is over" and h["tags"] == "alarm_clock" and h["priority"] == "high", h
' "$work/requests.jsonl"
mkdir -p "$work/bin"
printf '#!/bin/sh\necho "$@" >>"%s/ssh.log"\n' "$work" >"$work/bin/ssh"
chmod +x "$work/bin/ssh"
PATH=$work/bin:$PATH DESKTOP=me@desktop.local run_recipe gnome-dnd started "{\"event\":\"started\",\"state\":$state}"
PATH=$work/bin:$PATH DESKTOP=me@desktop.local run_recipe gnome-dnd cancelled "{\"event\":\"cancelled\",\"state\":${state/running/idle}}"
check "recipes: gnome-dnd turns the desktop's banners off over ssh while a focus runs, on after" \
  "$(cat "$work/ssh.log" 2>/dev/null)" eval "grep -c 'me@desktop.local .*gsettings set org.gnome.desktop.notifications show-banners false' '$work/ssh.log' | grep -qx 1 && tail -n 1 '$work/ssh.log' | grep -q 'show-banners true$'"

REPORTED=1
test_done
