# shellcheck shell=dash
# `pomodoro probe`, the first command a builder runs, on the simulated chip and bus before the
# device starts: every line free, the display answering at 0x3c and a test pattern sent to it,
# then the inputs echoed live (two detents clockwise, a press of start); SIGINT ends it with the
# lines released. Sourced by scenario.sh (Tests/lib/guest.sh and its device_start are there).
PROBE_LOG=/tmp/probe.log
inputs_at_rest
trace_clear
"$POMODORO" probe --config "$POMODORO_CONF" >"$PROBE_LOG" 2>&1 &
probe_pid=$!
wait_for 30 grep -q 'Ctrl-C ends' "$PROBE_LOG"
probe_says() { grep -qF "$1" "$PROBE_LOG"; }
check probe-checks-pass "probe said: $(tr '\n' '|' <"$PROBE_LOG" | cut -c1-400)" probe_says 'all checks passed.'
check probe-line-free "no 'free' line for GPIO$ENC_A (the encoder's CLK): $(grep "GPIO$ENC_A" "$PROBE_LOG")" \
  sh -c "grep GPIO$ENC_A $PROBE_LOG | grep -q ': free'"
check probe-display "no display found at 0x3c: $(grep display "$PROBE_LOG")" probe_says 'display: a device answers at 0x3c'
display_blocks
check probe-test-pattern "only $(display_data_bytes) data bytes sent for the test pattern, a frame is 1024" \
  [ "$(display_data_bytes)" -ge 1024 ]
turn "$ENC_A" "$ENC_B" 2 cw
press "$BTN_START"
wait_for 5 probe_says 'start: click'
check probe-echo-turn "the turns were not echoed: $(tail -n 4 "$PROBE_LOG" | tr '\n' '|')" \
  probe_says 'encoder: clockwise (position 2)'
check probe-echo-press "the press was not echoed: $(tail -n 4 "$PROBE_LOG" | tr '\n' '|')" probe_says 'start: click'
kill -INT "$probe_pid"
if ! wait_for 10 exited "$probe_pid"; then
  fail probe-exit "still running 10 s after SIGINT"
  kill -KILL "$probe_pid"
fi
wait "$probe_pid"
rc=$?
check probe-exit-0 "exit status $rc after SIGINT" [ "$rc" = 0 ]
check probe-lines-released "gpioinfo still shows lines held: $(/opt/tools/gpioinfo "$SIM_CHIP" | grep '"pomodoro"')" \
  sh -c "! /opt/tools/gpioinfo $SIM_CHIP | grep -q '\"pomodoro\"'"
echo "hil: probe output:"
sed 's/^/  | /' "$PROBE_LOG"
