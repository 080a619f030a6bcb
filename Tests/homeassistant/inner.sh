# shellcheck shell=bash disable=SC2154,SC2016,SC2015 # sourced by run.sh --inner: ROOT, BINARY, REPO are its; pass, fail, expect test-lib's
# Tests/homeassistant/inner.sh: the test proper, in a network namespace with only lo (run.sh runs
# it under `unshare --net`). Home Assistant runs in the Debian root ROOT (its config in ROOT/ha),
# the broker, the simulator and the bridge (BINARY) on the host's side.

work="$ROOT/ha"
port=1883
ha_url=http://127.0.0.1:8123
pids=()
tmux_sock=pomodoro-ha-$$
when_finished stop_processes

ms_now() { echo $(($(date +%s%N) / 1000000)); }
ha() { # ha.py in the root with Home Assistant's Python
  chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 HA_DIR=/ha HA_URL="$ha_url" \
    /opt/homeassistant/bin/python3 /test/ha.py "$@"
}
json() { # json EXPRESSION: evaluates a Python expression over `j` (stdin's JSON)
  python3 -c 'import json, sys; j = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"
}
ctl() { "$BINARY" ctl --socket "$work/control.sock" "$@"; }
ctl_field() { ctl status --json | json "j['state'].get('$1')"; }

# lo with multicast and a route for it: Home Assistant's zeroconf says "No such device" without.
ip link set lo up
ip link set lo multicast on
ip route add 224.0.0.0/4 dev lo

# The broker.
printf 'listener %d 127.0.0.1\nallow_anonymous true\npersistence false\nset_tcp_nodelay true\n' "$port" >"$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
pids+=($!)

# Home Assistant: a config of its own (no default_config: its defaults and MQTT, automations
# and the template lamp that README's automation turns red).
cat >"$work/configuration.yaml" <<'EOF'
homeassistant:
  name: Pomodoro test
  latitude: 52.52
  longitude: 13.40
  elevation: 34
  unit_system: metric
  time_zone: UTC
  currency: EUR
  country: DE
logger:
  default: info
automation: !include automations.yaml
template:
  - light:
      - name: Desk lamp
        unique_id: desk_lamp
        turn_on:
          - event: desk_lamp_on
        turn_off:
          - event: desk_lamp_off
        set_rgb:
          - event: desk_lamp_rgb
EOF
docs="$REPO/docs/homeassistant.md"
# README's automation, for the desk of this test (desk_1 there, desk1 here).
awk '/<!-- automation -->/ { on = 1; next } on && /^```yaml/ { inside = 1; next } inside && /^```/ { exit } inside { print }' "$REPO/README.md" |
  sed -e 's/pomodoro_desk_1_/pomodoro_desk1_/g' -e '1s/^/- id: desk_lamp_focus\n  /' -e '2,$s/^/  /' >"$work/automations.yaml"

hass_start() {
  chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/opt/homeassistant/bin:/usr/bin:/bin \
    /opt/homeassistant/bin/hass --config /ha --skip-pip --log-no-color >>"$work/hass.out" 2>&1 &
  hass_pid=$!
  pids+=("$hass_pid")
}
hass_stop() {
  kill "$hass_pid"
  wait_for 30 exited "$hass_pid"
}

t0=$(ms_now)
hass_start
# require NAME COMMAND...: a check the rest depends on; the test ends when it fails.
require() {
  local before=$FAILED
  expect "$@"
  if ((FAILED > before)); then
    echo "inner: stopped after a failed check the rest depends on; Home Assistant's log ends with:"
    tail -n 20 "$work/home-assistant.log" 2>/dev/null
    echo "inner: done"
    exit 0
  fi
}
require "Home Assistant $(cat "$ROOT/$READY_MARK") starts and answers on $ha_url" ha wait-api
echo "figure: Home Assistant up after $(($(ms_now) - t0)) ms"
require "onboarding through the REST API (user, token, core config, analytics, integration)" ha onboard
require "the MQTT integration through its config flow, broker 127.0.0.1:$port" ha mqtt "$port"

# The device: the interactive simulator (it needs a terminal: tmux gives it one) with its socket.
# A presence sensor on its mock line (someone there at the start; `p` in the simulator toggles
# it) and two profiles, so that every entity of docs/homeassistant.md's table is announced.
cat >"$work/device.conf" <<EOF
control_socket = $work/control.sock
presence_line = GPIO16
profile light = focus 15m, short 3m
profile deep = focus 50m, short 10m, long 30m, every 3
EOF
tmux -L "$tmux_sock" -f /dev/null new-session -d -x 100 -y 40 \
  "exec '$BINARY' simulate --no-bell --config '$work/device.conf' --control '$work/control.sock' 2>'$work/simulator.log'"
answers() { ctl status >/dev/null 2>&1; }
wait_for 30 answers
require "the simulator answers on its control socket" ctl status
device_pid=$(tmux -L "$tmux_sock" display-message -p '#{pane_pid}')
# tmux continues a pane's process that was stopped (SIGCONT), unless tmux is stopped first.
tmux_pid=$(tmux -L "$tmux_sock" display-message -p '#{pid}')

bridge_conf() { # bridge_conf DEVICE-ID
  printf 'control_socket = %s\nmqtt_host = 127.0.0.1\nmqtt_port = %d\nmqtt_device_id = %s\n' \
    "$work/control.sock" "$port" "$1" >"$work/bridge.conf"
}
bridge_start() {
  mkdir -p "$work/bridge-state"
  STATE_DIRECTORY="$work/bridge-state" "$BINARY" mqtt --config "$work/bridge.conf" 2>>"$work/bridge.log" &
  bridge_pid=$!
  pids+=("$bridge_pid")
}
bridge_stop() {
  kill "$bridge_pid"
  wait "$bridge_pid" 2>/dev/null
}

# --- discovery ---------------------------------------------------------------------------------
bridge_conf desk1
# Home Assistant is watched from before the bridge starts (ha.py's own start not counted): as
# many entities as docs/homeassistant.md's table has rows.
rows=$(grep -cE '^\| `[a-z_]+\.pomodoro_<device>_' "$docs")
rm -f "$work/t0" "$work/watching"
ha wait-entities pomodoro_desk1_ "$rows" --since-file /ha/t0 --timeout 60 --ready-file /ha/watching \
  >"$work/discovery.json" 2>&1 &
watcher=$!
wait_for 60 test -e "$work/watching" || fail "ha.py wait-entities watches" "no $work/watching within 60 s"
ms_now >"$work/t0"
bridge_start
discovery_file="$work/discovery-desk1.txt"
# The configs the bridge retained: what Home Assistant is checked against.
all_configs() {
  mosquitto_sub -h 127.0.0.1 -p "$port" -t 'homeassistant/+/pomodoro_desk1/+/config' -v --retained-only \
    -C "$rows" -W 2 >"$discovery_file" 2>/dev/null
  # All of them: read while the bridge was still publishing (a loaded machine), it holds fewer.
  (($(grep -c . "$discovery_file") >= rows))
}
wait_for 60 all_configs
count=$(grep -c . "$discovery_file")
if wait "$watcher" && ((count == rows)); then
  pass "Home Assistant made $count entities from the $count discovery configs"
  echo "figure: discovery, bridge start to every entity in Home Assistant's states: $(json "j['ms']" <"$work/discovery.json") ms"
else
  fail "Home Assistant made the entities: $(cat "$work/discovery.json")"
fi
ha snapshot pomodoro_desk1_ >"$work/snapshot-desk1.json"
ha check-entities /ha/discovery-desk1.txt /ha/snapshot-desk1.json | tee "$work/check-entities.out" | grep -E '^(PASS|FAIL) ' || true
count_results "$work/check-entities.out"
# docs/homeassistant.md's table (the one list of entities; README points to it) names the entity
# ids Home Assistant has (desk <device>).
doc=docs/homeassistant.md
documented=$(grep -oE '`[a-z_]+\.pomodoro_<device>_[a-z_]+`' "$REPO/$doc" | tr -d '`' | sed 's/<device>/desk1/' | sort -u)
announced=$(json "'\\n'.join(sorted(j['entities']))" <"$work/snapshot-desk1.json")
if [[ -n "$documented" && "$documented" == "$announced" ]]; then
  pass "$doc's entity table names the entities Home Assistant has"
else
  fail "$doc's entity table: $(diff <(echo "$documented") <(echo "$announced") | tr '\n' ' ')"
fi
# Every entity README's card and automation and docs/homeassistant.md's card use exists.
for doc in README.md docs/homeassistant.md; do
  used=$(grep -oE '\b[a-z_]+\.pomodoro_desk_1_[a-z_]+' "$REPO/$doc" | sed 's/desk_1/desk1/' | sort -u)
  missing=$(comm -23 <(echo "$used") <(json "'\\n'.join(sorted(j['entities']))" <"$work/snapshot-desk1.json"))
  if [[ -n "$used" && -z "$missing" ]]; then pass "$doc's card and automation use only existing entities"; else fail "$doc names missing entities: $missing"; fi
done

# --- every control, on the device and back -----------------------------------------------------
latencies=()
E=pomodoro_desk1
# press NAME DOMAIN SERVICE ENTITY [DATA...] --until ENTITY=STATE...; then DEVICE-CHECK (a shell
# condition over the device's ctl status) must hold.
act() {
  local name=$1 device_check=$2 out
  shift 2
  if out=$(ha call "$@"); then
    local ms
    ms=$(json "j['latency']" <<<"$out")
    latencies+=("$ms")
    if eval "$device_check"; then
      pass "$name: on the device and back in Home Assistant in $ms ms"
    else
      fail "$name: back in Home Assistant ($ms ms) but the device says $(ctl status)"
    fi
  else
    fail "$name: $out"
  fi
}
act "select mode: short" '[[ $(ctl_field mode) == short ]]' \
  select select_option "select.${E}_mode" option=short --until "sensor.${E}_mode=short" "select.${E}_mode=short"
act "number duration: 7 min" '[[ $(ctl_field total_ms) == 420000 ]]' \
  number set_value "number.${E}_duration" value=7 --until "number.${E}_duration=7" "sensor.${E}_remaining=7"
act "select mode: focus" '[[ $(ctl_field mode) == focus ]]' \
  select select_option "select.${E}_mode" option=focus --until "sensor.${E}_mode=focus"
act "number duration: 20 min" '[[ $(ctl_field total_ms) == 1200000 ]]' \
  number set_value "number.${E}_duration" value=20 --until "number.${E}_duration=20" "sensor.${E}_remaining=20"
# The label: Home Assistant's text entity sends it as JSON, so the text arrives as typed (two
# spaces, quotes and all); empty clears it.
label='Report "Q4"  draft <b>'
act "text label: set" '[[ "$(ctl_field label)" == "$label" ]]' \
  text set_value "text.${E}_label" "value=$label" --until "text.${E}_label=$label"
act "text label: cleared" '[[ "$(ctl_field label)" == None ]]' \
  text set_value "text.${E}_label" 'value=""' --until "text.${E}_label="
# The hostile labels (Tests/lib/hostile-labels.json: invisible and bidi characters, marks, emoji
# sequences, quotes, backslashes) that fit Home Assistant's 40 code points, each through its text
# entity: stored exactly on the device, and Home Assistant's state back exactly (issue 46 item 5).
mapfile -t hostile < <(python3 -c 'import json, sys
for label in json.load(open(sys.argv[1])):
    if len(label) <= 40: print(json.dumps(label))' "$REPO/Tests/lib/hostile-labels.json")
for line in "${hostile[@]}"; do
  label=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1]), end="")' "$line")
  act "text label: the hostile $line" '[[ "$(ctl_field label)" == "$label" ]]' \
    text set_value "text.${E}_label" "value=$label" --until "text.${E}_label=$label"
done
act "text label: set again" '[[ "$(ctl_field label)" == Writing ]]' \
  text set_value "text.${E}_label" value=Writing --until "text.${E}_label=Writing"
# The profile (issue 48): the select's options are the config's profiles in its order, then
# (base); a choice reaches the device as the profile command (JSON from its command template).
act "select profile: deep" '[[ $(ctl_field profile) == deep ]]' \
  select select_option "select.${E}_profile" option=deep --until "select.${E}_profile=deep"
act "select profile: (base)" '[[ $(ctl_field profile) == "" ]]' \
  select select_option "select.${E}_profile" 'option=(base)' --until "select.${E}_profile=(base)"
# A profile added at run time: the select announced again with it; the options as they were
# once it is gone.
profile_options() { ha snapshot "${E}_" | json "j['states']['select.${E}_profile']['attributes'].get('options')"; }
options_are() { [[ "$(profile_options)" == "$1" ]]; }
for want in "['light', 'deep', 'calm', '(base)']" "['light', 'deep', '(base)']"; do
  if [[ $want == *calm* ]]; then ctl config set 'profile calm' 'focus 20m' >/dev/null; else ctl config reset 'profile calm' >/dev/null; fi
  wait_for 30 options_are "$want"
  check "select profile: the options follow the device's profiles, $want" "options $(profile_options)" options_are "$want"
done
act "button start (the desk lamp turns red)" '[[ $(ctl_field phase) == running ]]' \
  button press "button.${E}_start" --until "sensor.${E}_phase=running" "binary_sensor.${E}_focusing=on" "light.desk_lamp=on"
lamp=$(ha snapshot desk_lamp --all | json "j['states']['light.desk_lamp']['attributes'].get('rgb_color')")
if [[ "$lamp" == "[255, 0, 0]" ]]; then pass "README's automation: the lamp is red while focusing"; else fail "the lamp's colour: $lamp"; fi
same_instant() { [[ -n "$1" && "$(date -d "$1" +%s 2>/dev/null)" == "$(date -d "$2" +%s 2>/dev/null)" ]]; }
ends=$(ctl_field ends_at)
ha_ends=$(ha snapshot "${E}_" | json "j['states']['sensor.${E}_ends_at']['state']")
if [[ "$ends" == None ]]; then
  # The device's clock is not synchronised here (no ends_at): a state as a synchronised device
  # sends it (README's example), published beside the bridge, shows the timestamp.
  [[ "$ha_ends" == unknown ]] && pass "ends_at: unknown while the device's clock is not synchronised" ||
    fail "ends_at: $ha_ends without a synchronised clock"
  # The bridge is stopped meanwhile: its own state (a running timer's changes at every status it
  # asks for, each 10 s) would replace this one between the publish and the reading.
  ends=2026-12-01T14:32:00Z
  kill -STOP "$bridge_pid"
  mosquitto_pub -h 127.0.0.1 -p "$port" -t pomodoro/desk1/state \
    -m '{"phase":"running","mode":"focus","remaining_ms":1062000,"total_ms":1500000,"remaining":"17:42","cycle":"1/4","ends_at":"'"$ends"'"}'
  ends_known() {
    ha_ends=$(ha snapshot "${E}_" | json "j['states']['sensor.${E}_ends_at']['state']")
    [[ "$ha_ends" != unknown ]]
  }
  wait_for 30 ends_known
  kill -CONT "$bridge_pid"
fi
if same_instant "$ends" "$ha_ends"; then
  pass "sensor ends_at: the device's end $ends as a timestamp ($ha_ends)"
else
  fail "sensor ends_at $ha_ends, the device says $ends"
fi
act "button pause (the lamp turns off)" '[[ $(ctl_field phase) == paused ]]' \
  button press "button.${E}_pause" --until "sensor.${E}_phase=paused" "binary_sensor.${E}_focusing=off" "light.desk_lamp=off"
act "button start/pause" '[[ $(ctl_field phase) == running ]]' \
  button press "button.${E}_start_pause" --until "sensor.${E}_phase=running"
# press_marks NAME BUTTON FIELD: a press of an interruption button, seen in the device's count
# (no entity of Home Assistant's changes: the timer runs on untouched).
press_marks() {
  local before after
  before=$(ctl_field "$3")
  ha call button press "button.${E}_$2" >/dev/null
  moved() {
    after=$(ctl_field "$1")
    [[ "$after" != "$2" ]]
  }
  wait_for 30 moved "$3" "$before"
  if [[ "$after" == $((before + 1)) && $(ctl_field phase) == running ]]; then
    pass "$1: the device's $3 $before -> $after, still running"
  else
    fail "$1: the device's $3 $before -> $after: $(ctl status)"
  fi
}
press_marks "button interrupt" interrupt interruptions_internal
press_marks "button interrupt external" interrupt_external interruptions_external
act "button +5 min" '[[ $(ctl_field total_ms) == 1500000 ]]' \
  button press "button.${E}_extend" --until "sensor.${E}_remaining=25"
# Outside the picker the number is refused by the device, said in the bridge's log, and kept.
before=$(grep -c "refused 'set 10m'" "$work/bridge.log")
ha call number set_value "number.${E}_duration" value=10 >/dev/null
refused_again() { (($(grep -c "refused 'set 10m'" "$work/bridge.log") > before)); }
wait_for 30 refused_again
if (($(grep -c "refused 'set 10m'" "$work/bridge.log") > before)) && [[ $(ctl_field total_ms) == 1500000 ]]; then
  pass "number set while running: refused, logged ($(grep "refused 'set 10m'" "$work/bridge.log" | tail -n 1 | cut -c1-140)), unchanged"
else
  fail "number set while running: $(tail -n 3 "$work/bridge.log")"
fi
act "button skip" '[[ $(ctl_field phase) == idle && $(ctl_field mode) == short ]]' \
  button press "button.${E}_skip" --until "sensor.${E}_phase=idle" "sensor.${E}_mode=short"
ctl set focus 25m >/dev/null
act "button start" '[[ $(ctl_field phase) == running ]]' \
  button press "button.${E}_start" --until "sensor.${E}_phase=running"
act "button cancel" '[[ $(ctl_field phase) == idle ]]' \
  button press "button.${E}_cancel" --until "sensor.${E}_phase=idle"
# Ringing: a 5-second focus (set through ctl: the number's least is a minute), started from Home Assistant.
today=$(ctl_field today)
ctl set focus 5s >/dev/null
act "button start (5 s)" '[[ $(ctl_field phase) == running ]]' \
  button press "button.${E}_start" --until "sensor.${E}_phase=running"
expect "binary sensor ringing: on when the alarm rings" ha wait "binary_sensor.${E}_ringing=on" "sensor.${E}_phase=ringing" --timeout 15
today=$((today + 1))
act "button acknowledge (today's sensor: $today)" '[[ $(ctl_field phase) == idle && $(ctl_field today) == "$today" ]]' \
  button press "button.${E}_acknowledge" --until "binary_sensor.${E}_ringing=off" "sensor.${E}_phase=idle" \
  "sensor.${E}_today=$today"
# The daily goal: the today sensor's attributes, as the device's state says them.
goal_attrs() { ha snapshot "${E}_" | json "(lambda a: (a.get('goal'), a.get('goal_met')))(j['states']['sensor.${E}_today']['attributes'])"; }
goal_is() { [[ "$(goal_attrs)" == "$1" ]]; }
for want in "$((today + 2)) ($((today + 2)), False)" "$today ($today, True)" "0 (0, False)"; do
  ctl config set daily_goal "${want%% *}" >/dev/null
  # (within the bridge's 10 s refresh at the latest)
  wait_for 30 goal_is "${want#* }"
  [[ "$(goal_attrs)" == "${want#* }" ]] && pass "sensor today: daily_goal ${want%% *} gives the attributes goal, goal_met ${want#* }" ||
    fail "sensor today with daily_goal ${want%% *}: $(goal_attrs)"
done
ctl config reset daily_goal >/dev/null
ctl set focus 25m >/dev/null
# A room (docs/room.md): the desk joins one at run time; its bridge joins it on the broker and
# counts the desks in focus, this one alone.
expect "sensor room_focusing: 0 outside a room" ha wait "sensor.${E}_room_focusing=0" --timeout 15
ctl config set room ha-room >/dev/null
bridged() { [[ $(ctl_field room_bridge) == True ]]; }
wait_for 30 bridged
check "the desk in a room: its bridge says so (room_bridge)" "room_bridge is $(ctl_field room_bridge)" \
  test "$(ctl_field room_bridge)" == True
# Started from Home Assistant's own button: the start becomes the room's session (revision 1,
# by this desk), and the sensor counts it.
ha call button press "button.${E}_start" >/dev/null
expect "sensor room_focusing: 1 with this desk's focus, started from Home Assistant, running in the room" \
  ha wait "sensor.${E}_room_focusing=1" --timeout 20
check "Home Assistant's start is the room's session (room_by desk1)" "room_by is $(ctl_field room_by)" \
  test "$(ctl_field room_by)" == desk1
ctl cancel >/dev/null
ctl config reset room >/dev/null
# The presence sensor (issue 47): occupancy on while the sensor sees someone; nobody for
# away_after (30 s here) turns it off; seen again, on.
expect "binary sensor presence: on while the sensor sees someone" ha wait "binary_sensor.${E}_presence=on" --timeout 15
ctl config set away_after 30s >/dev/null
tmux -L "$tmux_sock" send-keys p
expect "binary sensor presence: off 30 s after the sensor lost everyone" \
  ha wait "binary_sensor.${E}_presence=off" --timeout 60
tmux -L "$tmux_sock" send-keys p
expect "binary sensor presence: on again as soon as the sensor sees someone" \
  ha wait "binary_sensor.${E}_presence=on" --timeout 15
ctl config reset away_after >/dev/null
# The room's session is the room's, not the desk's: left retained until it expires, it is cleared
# here so that the broker holds nothing of this test's desk at the end (checked below).
mosquitto_pub -h 127.0.0.1 -p "$port" -t pomodoro/room/ha-room/sessions/desk1 -r -n
if ((${#latencies[@]})); then
  echo "figure: press-to-state latency (Home Assistant's service call to its state changed, through the broker, bridge and device): $(printf '%s\n' "${latencies[@]}" | sort -n | awk '{a[NR] = $1} END {printf "median %s ms, max %s ms over %d", a[int((NR + 1) / 2)], a[NR], NR}')"
fi

# --- availability ------------------------------------------------------------------------------
out=$(ha wait "sensor.${E}_phase=unavailable" "button.${E}_start=unavailable" --kill "$bridge_pid" --timeout 10) &&
  pass "SIGKILL of the bridge: unavailable after $(json "max(j['ms'].values())" <<<"$out") ms (the last will)" ||
  fail "SIGKILL of the bridge: $out"
wait "$bridge_pid" 2>/dev/null
t0=$(ms_now)
bridge_start
expect "restarted bridge: available again" ha wait "sensor.${E}_phase=idle" --timeout 15
echo "figure: bridge restart to available: $(($(ms_now) - t0)) ms (with Python's start)"
kill -STOP "$tmux_pid" "$device_pid"
t0=$(ms_now)
expect "the device stopped (SIGSTOP): unavailable once it leaves a request unanswered 5 s" \
  ha wait "sensor.${E}_phase=unavailable" --timeout 25
echo "figure: device stopped to unavailable: $(($(ms_now) - t0)) ms (the bridge asks every 10 s, waits 5 s)"
kill -CONT "$device_pid" "$tmux_pid"
expect "the device continued (SIGCONT): available again" ha wait "sensor.${E}_phase=idle" --timeout 15
grep -q "has not answered 'status' for 5s" "$work/bridge.log" &&
  pass "the bridge's log says the device did not answer" || fail "the bridge's log: $(tail -n 3 "$work/bridge.log")"

# --- a restart of Home Assistant ---------------------------------------------------------------
expect "Home Assistant stops on SIGTERM" hass_stop
hass_start
expect "Home Assistant restarted" ha wait-api
expect "after the restart: the entities available again" ha wait "sensor.${E}_phase=idle" "button.${E}_start!=unavailable" --timeout 60
ha snapshot pomodoro_desk >"$work/snapshot-restart.json"
if [[ "$(json "sorted(j['entities'])" <"$work/snapshot-restart.json")" == "$(json "sorted(j['entities'])" <"$work/snapshot-desk1.json")" &&
  "$(json "len(j['devices'])" <"$work/snapshot-restart.json")" == 1 ]]; then
  pass "after the restart: the same $count entities on one device, none duplicated"
else
  fail "after the restart: $(json "sorted(j['entities']), len(j['devices'])" <"$work/snapshot-restart.json")"
fi

# --- a rename, and --remove --------------------------------------------------------------------
bridge_stop
bridge_conf desk2
bridge_start
if out=$(ha wait-entities pomodoro_desk2_ "$count" --timeout 30) && out=$(ha wait-entities pomodoro_desk1_ 0 --timeout 30); then
  snap=$(ha snapshot pomodoro_desk)
  if [[ "$(json "[d['name'] for d in j['devices']]" <<<"$snap")" == "['Pomodoro desk2']" ]]; then
    pass "renamed to desk2: the desk1 device and its $count entities gone, desk2's there"
  else
    fail "renamed: devices $(json "[d['name'] for d in j['devices']]" <<<"$snap")"
  fi
else
  fail "renamed: $out"
fi
bridge_stop
if out=$("$BINARY" mqtt --remove --config "$work/bridge.conf" 2>&1) && out=$(ha wait-entities pomodoro_desk 0 --timeout 30); then
  snap=$(ha snapshot pomodoro_desk)
  [[ "$(json "len(j['devices'])" <<<"$snap")" == 0 ]] && pass "pomodoro mqtt --remove: the device and its entities gone" ||
    fail "--remove: devices left $(json "j['devices']" <<<"$snap")"
else
  fail "pomodoro mqtt --remove: $out"
fi
left=$(mosquitto_sub -h 127.0.0.1 -p "$port" -t 'homeassistant/#' -t 'pomodoro/#' -v --retained-only -W 1 2>/dev/null)
[[ -z "$left" ]] && pass "nothing of either desk left retained on the broker" || fail "retained on the broker: $left"

# --- Home Assistant's log ----------------------------------------------------------------------
hass_stop
bad=$(grep -E '^[0-9-]+ [0-9:.]+ (WARNING|ERROR|CRITICAL) ' "$work/home-assistant.log" | grep -iE 'pomodoro|mqtt|payload|template' || true)
if [[ -z "$bad" ]]; then
  pass "home-assistant.log: no warning or error naming pomodoro, mqtt, payloads or templates ($(grep -cE ' (WARNING|ERROR) ' "$work/home-assistant.log") others)"
else
  fail "home-assistant.log: $bad"
fi
echo "inner: done"
