# shellcheck shell=dash
# The device scenario: `pomodoro run` on the simulated chip and bus, driven as a person would.
# Sourced by /init after Tests/lib/guest.sh. The device's log is journald-prefixed lines on
# stderr: its state lines start `<6>state `.
POMODORO=/usr/local/bin/pomodoro
POMODORO_CONF=/hil/pomodoro-hil.conf
LOG=/tmp/pomodoro.log
# shellcheck disable=SC2034 # guest.sh's
STATE_LINE='<6>state '
POMODORO_PID=""

# device_start: the inputs at rest, then `pomodoro run` in the background.
device_start() {
  inputs_at_rest
  mkdir -p /var/lib/pomodoro
  "$POMODORO" run --config "$POMODORO_CONF" 2>"$LOG" &
  POMODORO_PID=$!
}

# line_info NAME: gpioinfo's line for the line named NAME on the sim chip.
line_info() { /opt/tools/gpioinfo "$SIM_CHIP" | grep "\"$1\""; }

if [ ! -x "$POMODORO" ]; then
  fail device "no $POMODORO in the initramfs"
  return 0
fi
# shellcheck source=Tests/hil/guest/probe.sh
. /hil/probe.sh
trace_clear
device_start
wait_for 60 sh -c "grep -q '^<6>ready' $LOG || [ ! -d /proc/$POMODORO_PID ] || grep -q ') Z ' /proc/$POMODORO_PID/stat"
if log_since 0 '^<6>ready'; then
  pass device-ready
else
  fail device-ready "no '<6>ready' within 60 s; log: $(tail -n 5 "$LOG" | tr '\n' '|')"
fi
if exited "$POMODORO_PID"; then
  wait "$POMODORO_PID"
  fail device-running "pomodoro run exited with status $? at start; log: $(tail -n 5 "$LOG" | tr '\n' '|')"
  return 0
fi

# The lines: our consumer name, inputs with pull-up bias and active-low, the buzzer an output.
for pin in $ENC_A $ENC_B $ENC_PUSH $BTN_START $BTN_CANCEL; do
  name=GPIO$pin
  info=$(line_info "$name")
  case "$info" in
    *'"pomodoro"'*input*active-low*pull-up*) pass "lines-$name" ;;
    *) fail "lines-$name" "expected consumer \"pomodoro\", input, active-low, pull-up; gpioinfo: $info" ;;
  esac
done
info=$(line_info "GPIO$BUZZER")
case "$info" in
  *'"pomodoro"'*output*) pass "lines-GPIO$BUZZER-buzzer" ;;
  *) fail "lines-GPIO$BUZZER-buzzer" "expected consumer \"pomodoro\", output; gpioinfo: $info" ;;
esac
check buzzer-quiet-at-start "buzzer line GPIO$BUZZER is $(pin_value "$BUZZER") before any alarm" pin_is "$BUZZER" 0

# The panel: the init sequence and a whole first frame, as well-formed SMBus block writes.
display_blocks
check display-init "commands sent: $(display_commands | cut -c1-120)" display_init_ok
check display-first-frame "only $(display_data_bytes) data bytes sent, a 128x64 frame is 1024" \
  [ "$(display_data_bytes)" -ge 1024 ]

# The dial, start, pause and resume (Tests/lib/guest.sh).
dial_start_pause_resume dial-and-start
usleep 500000 # a person's pace: the resumed timer runs a moment before the cancel
mark=$(log_mark)
press "$BTN_CANCEL"
expect_state cancel-keeps-dial "$mark" 'phase=idle mode=focus remaining_ms=10000 total_ms=10000$' 10

# A whole 0:10 focus: the alarm sounds on the buzzer line, an acknowledge press silences it
# and preselects the short break without starting it.
mark=$(log_mark)
press "$BTN_START"
expect_state restart "$mark" 'phase=running mode=focus' 10
expect_state ringing "$mark" 'phase=ringing mode=focus' 30
check alarm-buzzer-high "buzzer line GPIO$BUZZER never went high within 10 s of ringing" wait_for 10 pin_is "$BUZZER" 1
mark=$(log_mark)
press "$BTN_START"
expect_state acknowledge "$mark" 'phase=idle mode=short' 10
# That the buzzer stays low is an absence: 2 s of reads (20 x 100 ms) are its window.
quiet=1
i=0
while [ $i -lt 20 ]; do
  pin_is "$BUZZER" 0 || quiet=0
  usleep 100000
  i=$((i + 1))
done
check alarm-silenced "buzzer line GPIO$BUZZER went high within 2 s of the acknowledge" [ $quiet = 1 ]
check still-idle-after-ack "a state line after the acknowledge left idle: $(state_since "$mark")" \
  sh -c "! tail -n +$((mark + 1)) $LOG | grep -qE '^<6>state phase=(running|ringing)'"
check_display_transfers display-transfers
check display-updates "no display data after the first frame ($(display_data_bytes) bytes in all)" \
  [ "$(display_data_bytes)" -gt 1024 ]

# The presence sensor (issue 47; presence_line, active high, no bias asked: the sensor drives
# it): low for away_after (30 s) is away, the panel dark; high again wakes it at once, with no
# press and nothing fed to the timer.
info=$(line_info "GPIO$PRESENCE")
case "$info" in
  *active-low* | *pull-up*) fail "lines-GPIO$PRESENCE-presence" "expected active high, no pull-up; gpioinfo: $info" ;;
  *'"pomodoro"'*input*) pass "lines-GPIO$PRESENCE-presence" ;;
  *) fail "lines-GPIO$PRESENCE-presence" "expected consumer \"pomodoro\", input; gpioinfo: $info" ;;
esac
mark=$(log_mark)
pin_pull "$PRESENCE" down
usleep 20000000
if log_since "$mark" '^<6>away'; then
  fail presence-not-early "away said within 20 s of GPIO$PRESENCE going low (away_after = 30s)"
else
  pass presence-not-early
fi
check presence-away "no '<6>away: nobody seen for 30s' within 45 s of GPIO$PRESENCE going low" \
  wait_for 25 log_since "$mark" '^<6>away: nobody seen for 30s'
mark=$(log_mark)
pin_pull "$PRESENCE" up
check presence-back "no '<6>someone is here again: the panel wakes' within 5 s of GPIO$PRESENCE going high" \
  wait_for 5 log_since "$mark" '^<6>someone is here again: the panel wakes'
check presence-touches-no-timer "a state line after the sensor saw someone: $(state_since "$mark")" \
  sh -c "! tail -n +$((mark + 1)) $LOG | grep -q '^$STATE_LINE'"

# The preselected 0:10 short break runs to its alarm; SIGTERM while it rings.
mark=$(log_mark)
press "$BTN_START"
expect_state break-runs "$mark" 'phase=running mode=short remaining_ms=[0-9]+ total_ms=10000$' 10
expect_state break-rings "$mark" 'phase=ringing mode=short' 30
wait_for 10 pin_is "$BUZZER" 1
kill -TERM "$POMODORO_PID"
if ! wait_for 20 exited "$POMODORO_PID"; then
  fail sigterm-exit "still running 20 s after SIGTERM"
  kill -KILL "$POMODORO_PID"
fi
wait "$POMODORO_PID"
rc=$?
check sigterm-exit-0 "exit status $rc after SIGTERM; log: $(tail -n 3 "$LOG" | tr '\n' '|')" [ "$rc" = 0 ]
check sigterm-buzzer-low "buzzer line GPIO$BUZZER is $(pin_value "$BUZZER") after exit" pin_is "$BUZZER" 0
check sigterm-lines-released "gpioinfo still shows lines held: $(/opt/tools/gpioinfo "$SIM_CHIP" | grep '"pomodoro"')" \
  sh -c "! /opt/tools/gpioinfo $SIM_CHIP | grep -q '\"pomodoro\"'"
check state-file "no /var/lib/pomodoro/state.json after exit" [ -s /var/lib/pomodoro/state.json ]
check no-error-logged "error lines in the log: $(grep -E '^<[0-3]>' "$LOG" | head -n 3 | tr '\n' '|')" \
  sh -c "! grep -qE '^<[0-3]>' $LOG"
echo "hil: device log:"
sed 's/^/  | /' "$LOG"
