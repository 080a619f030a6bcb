# shellcheck shell=dash disable=SC2034 # sourced: the offsets and the PID are read by the scripts that source it
# The device under test: `pomodoro run`, its log (journald-prefixed lines on stderr), and the
# state lines it logs on every phase change:
#   <6>state phase=<idle|running|paused|ringing> mode=<name> remaining_ms=<N> total_ms=<N>

POMODORO=/usr/local/bin/pomodoro
POMODORO_CONF=/hil/pomodoro-hil.conf
POMODORO_LOG=/tmp/pomodoro.log
POMODORO_PID=""

# Input offsets of the default wiring (GPIO names as on the Pi header; offset N is GPIO N).
ENC_A=17
ENC_B=27
ENC_PUSH=22
BTN_START=23
BTN_CANCEL=24
BUZZER=25

# inputs_at_rest: every input pulled high, as the Pi's pull-ups hold open contacts.
inputs_at_rest() {
  for pin in $ENC_A $ENC_B $ENC_PUSH $BTN_START $BTN_CANCEL; do pin_pull "$pin" up; done
}

# device_start: the inputs at rest, then `pomodoro run` in the background.
device_start() {
  inputs_at_rest
  mkdir -p /var/lib/pomodoro
  "$POMODORO" run --config "$POMODORO_CONF" 2>"$POMODORO_LOG" &
  POMODORO_PID=$!
}

# log_mark: the number of log lines so far (state lines after it are "new").
log_mark() { wc -l <"$POMODORO_LOG"; }

# log_since MARK PATTERN: whether a log line after line MARK matches the extended regex PATTERN.
log_since() { tail -n +"$(($1 + 1))" "$POMODORO_LOG" | grep -qE "$2"; }

# state_since MARK: the last state line after line MARK (empty if none).
state_since() { tail -n +"$(($1 + 1))" "$POMODORO_LOG" | grep '^<6>state ' | tail -n 1; }

# expect_state NAME MARK PATTERN SECONDS: passes NAME once a state line after MARK matches
# PATTERN (e.g. 'phase=paused mode=focus'), within SECONDS.
expect_state() {
  if wait_for "$4" log_since "$2" "^<6>state .*$3"; then
    pass "$1"
  else
    last=$(state_since "$2")
    fail "$1" "no state line matching '$3' within $4 s (last: '${last:-none}')"
  fi
}

# line_info NAME: gpioinfo's line for the line named NAME on the sim chip.
line_info() { /opt/tools/gpioinfo "$SIM_CHIP" | grep "\"$1\""; }
