# shellcheck shell=bash disable=SC2154,SC2034
# (SC2154: binary, work, tmux_sock, port, pids, bridge are the caller's; SC2034: started is for it.)
# Tests/room/desks.sh: the desks of a room test (Tests/room/run.sh, Tests/room/sites.sh), sourced
# after Tests/lib/host.sh. The caller sets binary, work, tmux_sock, port and the arrays pids and
# bridge (declare -A); room_setup sets binary and work. Each desk NAME is a simulator in a tmux window with its control socket in
# $work/NAME and its bridge (`pomodoro mqtt`), as desk-NAME:
#   free_port                  a free TCP port on 127.0.0.1
#   start_broker CONF PORT LOG  mosquitto with CONF, waited for on PORT; its PID in `started`
#   desk NAME [faketime]       a desk (desk_port, desk_conf: its broker's port, more config lines)
#   ctl DESK ARGS...           pomodoro ctl on the desk's socket
#   field DESK NAME            one field of its state; is DESK NAME VALUE [SECONDS] waits for one
#   sees DESK OTHER PHASE      waits for DESK's roster to show desk-OTHER in PHASE
#   said DESK MARK PATTERN     whether a line of the desk's bridge log after line MARK matches
#   aged TOPIC SECONDS         waits until the broker has counted SECONDS off TOPIC's retained expiry
#   together DESKS...          their time left within 1 s of each other
desk_conf=()

# room_setup TAG TOOLS...: the script's options (--binary FILE, --work DIR, --keep) parsed from
# the arguments that follow `--`, the tools checked, binary made absolute (default: the debug
# build, built if missing) and work made (a scratch folder pomodoro-TAG.*, or DIR, kept).
room_setup() {
  local tag=$1 tool
  shift
  local tools=()
  while [[ $# -gt 0 && "$1" != -- ]]; do tools+=("$1") && shift; done
  shift
  binary="" work=""
  parse_args --binary=binary --work=work -- "$@"
  for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null || die "$tool is missing: apt-get install tmux python3 mosquitto mosquitto-clients faketime"
  done
  if [[ -z "$binary" ]]; then
    binary="$REPO/.build/debug/pomodoro"
    [[ -x "$binary" ]] || (cd "$REPO" && swift build --product pomodoro) >&2 || die "swift build failed"
  fi
  binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
  if [[ -z "$work" ]]; then
    scratch_folder "$tag"
  else
    mkdir -p "$work" && work="$(cd "$work" && pwd)"
    keep=1
  fi
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

listening() { python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 1)" 2>/dev/null; }
start_broker() {
  mosquitto -c "$1" >>"$3" 2>&1 &
  started=$!
  wait_for 30 listening "$2" || die "mosquitto did not listen on 127.0.0.1:$2 within 30 s: $(tail -n 3 "$3")"
}

# desk NAME [faketime [OFFSET]]: its config, its simulator (tmux window) and its bridge, on the
# broker at 127.0.0.1:$port (desk_port instead, when set), with the config lines of desk_conf
# after its own; under faketime, its wall clock OFFSET (+90s) ahead, the monotonic clock left alone.
desk() {
  local d=$1 pre=""
  [[ "${2:-}" == faketime ]] && pre="env FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f ${3:-+90s}"
  mkdir -p "$work/$d/state"
  printf '%s\n' "control_socket = $work/$d/control.sock" "state_dir = $work/$d/state" "room = team" \
    "mqtt_host = 127.0.0.1" "mqtt_port = ${desk_port:-$port}" "mqtt_device_id = desk-$d" "${desk_conf[@]}" \
    >"$work/$d/pomodoro.conf"
  local cmd="exec $pre '$binary' simulate --no-bell --config '$work/$d/pomodoro.conf' --control '$work/$d/control.sock' 2>>'$work/$d/simulator.log'"
  if tmux -L "$tmux_sock" has-session 2>/dev/null; then
    tmux -L "$tmux_sock" new-window -d "$cmd"
  else
    tmux -L "$tmux_sock" -f /dev/null new-session -d -x 100 -y 40 "$cmd"
  fi
  wait_for 30 answers "$d" || echo "desk $d's simulator did not answer on its control socket within 30 s" >&2
  # The bridge below the device on the CPU, as its unit runs it (Nice=10).
  # shellcheck disable=SC2086 # pre: words
  $pre nice -n 10 "$binary" mqtt --config "$work/$d/pomodoro.conf" >>"$work/$d/bridge.log" 2>&1 &
  bridge["$d"]=$!
  pids+=("${bridge["$d"]}")
}
ctl() { "$binary" ctl --socket "$work/$1/control.sock" "${@:2}"; }
answers() { ctl "$1" status >/dev/null 2>&1; }
# field DESK NAME: one field of the desk's state (ctl status --json).
field() {
  ctl "$1" status --json 2>/dev/null | python3 -c "import json,sys; s=json.load(sys.stdin)['state']; v=s.get('$2'); print(json.dumps(v) if isinstance(v, dict) else v)"
}
# labels_are DESK LABEL...: waits up to 30 s for the desk to list exactly these labels for the
# room's desks (its own and the others', in any order).
has_labels() {
  ctl "$1" status --json 2>/dev/null | python3 -c '
import json, sys
have = json.load(sys.stdin)["state"].get("room_desk_labels") or []
sys.exit(0 if sorted(have) == sorted(sys.argv[1:]) else 1)' "${@:2}"
}
labels_are() {
  wait_for 30 has_labels "$@" && return 0
  echo "desk $1 lists the labels $(field "$1" room_desk_labels)"
  return 1
}
# lists DESK ID [SECONDS]: waits up to SECONDS (30) for the desk's room_desks to hold ID.
holds() { field "$1" room_desks | grep -qF "'$2'"; }
lists() {
  wait_for "${3:-30}" holds "$1" "$2" && return 0
  echo "desk $1 lists $(field "$1" room_desks), not $2"
  return 1
}
# is DESK NAME VALUE [SECONDS]: waits up to SECONDS (30) for the field to read VALUE.
reads() { [[ "$(field "$1" "$2")" == "$3" ]]; }
is() {
  wait_for "${4:-30}" reads "$1" "$2" "$3" && return 0
  echo "desk $1: $2 is '$(field "$1" "$2")', not '$3'"
  return 1
}
# sees DESK OTHER PHASE: waits up to 30 s for DESK's roster (room_desks, room_desk_phases) to show
# desk-OTHER in PHASE: what desk-OTHER's bridge published before that has reached DESK too.
shows() {
  ctl "$1" status --json 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)["state"]
sys.exit(0 if dict(zip(s.get("room_desks") or [], s.get("room_desk_phases") or [])).get(sys.argv[1]) == sys.argv[2] else 1)' \
    "desk-$2" "$3"
}
sees() {
  wait_for 30 shows "$@" && return 0
  echo "desk $1 shows desks $(field "$1" room_desks) in phases $(field "$1" room_desk_phases), not desk-$2 $3"
  return 1
}
# said DESK MARK PATTERN: whether a line of DESK's bridge log after line MARK matches PATTERN (ERE).
said() { tail -n +"$(($2 + 1))" "$work/$1/bridge.log" | grep -qE "$3"; }
# expiry_left TOPIC: the Message Expiry Interval the broker gives a new subscriber of TOPIC's
# retained message now (whole seconds, counting down; empty if none).
expiry_left() {
  mosquitto_sub -h 127.0.0.1 -p "${desk_port:-$port}" -V mqttv5 -t "$1" -F %E -C 1 -W 5 --retained-only 2>/dev/null
}
below() {
  local e
  e=$(expiry_left "$1")
  [[ -n "$e" ]] && ((e < $2))
}
# aged TOPIC SECONDS: waits until the broker has counted SECONDS whole seconds off the expiry of
# TOPIC's retained message. A room's age is the broker's count of a session's expiry, in whole
# seconds: a test that needs a session to have aged waits on that count, not on a time.
aged() {
  local first
  first=$(expiry_left "$1")
  [[ -n "$first" ]] || {
    echo "no retained message with an expiry on $1"
    return 1
  }
  wait_for $(($2 + 30)) below "$1" $((first - $2 + 1)) && return 0
  echo "the broker's expiry of $1 is $(expiry_left "$1") s, not $2 s below its $first s"
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
