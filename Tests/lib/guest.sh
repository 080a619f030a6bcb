# shellcheck shell=dash disable=SC2034 # sourced: the pins and the chip are read by the scripts that source it
# Tests/lib/guest.sh: the guest library of the HIL guest (Tests/hil: busybox sh in an initramfs)
# and the system test's guest (Tests/system: dash on the installed trixie). Sourced, not run,
# from GUEST_LIB (set by the caller: the folder holding this file, Tests/lib/test-lib.sh and
# deploy/pomodoro.conf, copied in by Tests/hil/lib/initramfs.sh and Tests/system/run.sh).
#   the checks and the waits test-lib.sh's pass, fail, check, test_done; wait_for, exited, usleep
#   the pins                 ENC_A ENC_B ENC_PUSH BTN_START BTN_CANCEL BUZZER PRESENCE: the offsets of
#                            the default wiring, read from deploy/pomodoro.conf as hardware/ is drawn
#                            (PRESENCE: the optional presence sensor's, from its example line)
#   the chip and the hands   sim_create, inputs_at_rest, pin_pull, pin_value, pin_is, press, turn
#   the display              trace_start, trace_clear, trace_blocks, display_*, check_display_transfers
#   the device's log         log_mark, log_since, state_since, expect_state (LOG, STATE_LINE)
#   the dial scenario        dial_start_pause_resume START-NAME
# shellcheck source=Tests/lib/test-lib.sh
. "$GUEST_LIB/test-lib.sh"

# pin_of KEY: the offset of KEY's default line in deploy/pomodoro.conf (`encoder_a = GPIO17`, or
# commented out as the package ships it).
pin_of() { sed -n "s/^[# ]*$1 *= *GPIO\([0-9]*\).*/\1/p" "$GUEST_LIB/pomodoro.conf" | head -n 1; }
ENC_A=$(pin_of encoder_a)
ENC_B=$(pin_of encoder_b)
ENC_PUSH=$(pin_of encoder_push)
BTN_START=$(pin_of button_start)
BTN_CANCEL=$(pin_of button_cancel)
BUZZER=$(pin_of buzzer)
PRESENCE=$(pin_of presence_line)

# --- the simulated GPIO chip (gpio-sim through configfs), lines named as on a Pi header, and a
# person's hands on it: each input line is driven through its `pull` attribute.
SIM_CONFIG=/sys/kernel/config/gpio-sim/hil
SIM_LINES=28

# sim_create: a live chip with lines GPIO0..GPIO27 at offsets 0..27; sets SIM_CHIP and SIM_DIR.
sim_create() {
  mkdir "$SIM_CONFIG" "$SIM_CONFIG/bank0" || {
    fail gpio-sim "no $SIM_CONFIG: gpio-sim or configfs did not load"
    return 1
  }
  echo "$SIM_LINES" >"$SIM_CONFIG/bank0/num_lines"
  echo pomodoro-hil >"$SIM_CONFIG/bank0/label"
  # One mkdir for all the lines (a process each costs tens of ms under TCG); echo is built in.
  i=0
  set --
  while [ "$i" -lt "$SIM_LINES" ]; do
    set -- "$@" "$SIM_CONFIG/bank0/line$i"
    i=$((i + 1))
  done
  mkdir "$@"
  i=0
  while [ "$i" -lt "$SIM_LINES" ]; do
    echo "GPIO$i" >"$SIM_CONFIG/bank0/line$i/name"
    i=$((i + 1))
  done
  echo 1 >"$SIM_CONFIG/live" || {
    fail gpio-sim "writing live=1 to $SIM_CONFIG failed"
    return 1
  }
  SIM_CHIP=$(cat "$SIM_CONFIG/bank0/chip_name")
  SIM_DIR=/sys/devices/platform/$(cat "$SIM_CONFIG/dev_name")/$SIM_CHIP
  [ -e "$SIM_DIR/sim_gpio0/pull" ] || {
    fail gpio-sim "no $SIM_DIR/sim_gpio0/pull"
    return 1
  }
  [ -c "/dev/$SIM_CHIP" ] || {
    fail gpio-sim "no /dev/$SIM_CHIP"
    return 1
  }
  echo "hil: gpio-sim chip /dev/$SIM_CHIP, lines in $SIM_DIR"
}

# pin_pull OFFSET up|down: the outside world pulls the line high or low.
pin_pull() { echo "pull-$2" >"$SIM_DIR/sim_gpio$1/pull"; }

# pin_value OFFSET: the line's level as the chip drives or sees it (0 or 1).
pin_value() { cat "$SIM_DIR/sim_gpio$1/value"; }

# pin_is OFFSET LEVEL: whether the line is at LEVEL now.
pin_is() { [ "$(pin_value "$1")" = "$2" ]; }

# press OFFSET [MS]: an active-low button held down for MS (default 150) ms, then released.
press() {
  pin_pull "$1" down
  usleep $((${2:-150} * 1000))
  pin_pull "$1" up
}

# turn A B DETENTS cw|ccw [GAP_MS]: DETENTS full quadrature cycles (4 transitions, 8 ms
# apart) on encoder lines A and B, GAP_MS (default 300) between detents. Clockwise: A leads.
turn() {
  n=0
  while [ "$n" -lt "$3" ]; do
    if [ "$4" = cw ]; then first=$1 second=$2; else first=$2 second=$1; fi
    pin_pull "$first" down
    usleep 8000
    pin_pull "$second" down
    usleep 8000
    pin_pull "$first" up
    usleep 8000
    pin_pull "$second" up
    usleep $((${5:-300} * 1000))
    n=$((n + 1))
  done
}

# inputs_at_rest: every input pulled high, as the Pi's pull-ups hold open contacts.
inputs_at_rest() {
  for pin in $ENC_A $ENC_B $ENC_PUSH $BTN_START $BTN_CANCEL; do pin_pull "$pin" up; done
  # A presence sensor (active high) that sees someone, where one is configured.
  pin_pull "$PRESENCE" up
}

# --- the kernel's smbus_write trace events: every SMBus transfer to the simulated I2C adapter,
# as `i2c-0 a=03c f=0000 c=40 I2C_BLOCK_DATA l=33 [20-...]` (l and the buffer include the
# block's leading length byte).
TRACE=/sys/kernel/tracing

# trace_start: mounts tracefs, enables smbus_write, empties the buffer.
trace_start() {
  [ -e "$TRACE/trace" ] || mount -t tracefs nodev "$TRACE" || fail trace "mount tracefs at $TRACE failed"
  echo 8192 >"$TRACE/buffer_size_kb"
  echo 1 >"$TRACE/events/smbus/smbus_write/enable" || fail trace "no smbus_write event in $TRACE/events/smbus"
  echo >"$TRACE/trace"
}

# trace_clear: forget the transfers so far.
trace_clear() { echo >"$TRACE/trace"; }

# trace_blocks ADDR: one line per I2C block write to 7-bit ADDR (hex, e.g. 3c):
# `control data_length byte byte ...`, bytes in lower-case hex without the length byte.
trace_blocks() {
  awk -v a="a=$(printf '%03x' "0x$1")" '
    index($0, "smbus_write:") && index($0, " " a " ") && / I2C_BLOCK_DATA / {
      c = ""; buf = ""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^c=/) c = substr($i, 3)
        if ($i ~ /^\[/) buf = $i
      }
      gsub(/\[/, "", buf)
      gsub(/\]/, "", buf)
      n = split(buf, b, "-")
      line = c " " (n - 1)
      for (i = 2; i <= n; i++) line = line " " b[i]
      print line
    }' "$TRACE/trace"
}

# --- what the display received, from the trace: every transfer to 0x3C an I2C block write with
# control byte 0x00 (commands) or 0x40 (data) and 1..32 bytes; the SSD1306 init sequence.
display_blocks() { trace_blocks 3c >/tmp/display.blocks; }

# display_bad_blocks: blocks whose control byte is not 0x00/0x40 or whose length is not 1..32.
display_bad_blocks() { awk '($1 != "0" && $1 != "40") || $2 < 1 || $2 > 32' /tmp/display.blocks; }

# display_commands: every command byte sent (control 0x00), in order, on one line.
display_commands() { awk '$1 == "0" { for (i = 3; i <= NF; i++) printf "%s ", $i }' /tmp/display.blocks; }

# display_data_bytes: how many display data bytes (control 0x40) were sent.
display_data_bytes() { awk '$1 == "40" { n += $2 } END { print n + 0 }' /tmp/display.blocks; }

# display_init_ok: the commands open with display off (AE) and set the 64-row multiplex
# (A8 3F), and the charge pump (8D 14) comes before the first display on (AF).
display_init_ok() {
  display_commands | awk '{
    s = " " $0
    off = index(s, " ae "); mux = index(s, " a8 3f "); pump = index(s, " 8d 14 "); on = index(s, " af ")
    exit !(off == 1 && mux > 0 && pump > 0 && on > pump)
  }'
}

# check_display_transfers NAME: all transfers so far are well-formed block writes.
check_display_transfers() {
  display_blocks
  bad=$(display_bad_blocks | head -n 3)
  blocks=$(wc -l </tmp/display.blocks)
  if [ "$blocks" -eq 0 ]; then
    fail "$1" "no I2C block writes to 0x3c in the smbus_write trace"
  elif [ -n "$bad" ]; then
    fail "$1" "block writes with a control byte other than 0x00/0x40 or a length outside 1..32: $bad"
  else
    pass "$1"
  fi
}

# --- the device's log: LOG, the file its lines go to; STATE_LINE, how a state line starts
# (`state ` from the journal; the HIL guest's stderr has journald's `<6>` in front):
#   state phase=<idle|running|paused|ringing> mode=<name> remaining_ms=<N> total_ms=<N>
STATE_LINE=${STATE_LINE:-state }

# log_mark: the number of log lines so far (state lines after it are "new").
log_mark() { wc -l <"$LOG"; }

# log_since MARK PATTERN: whether a log line after line MARK matches the extended regex PATTERN.
log_since() { tail -n +"$(($1 + 1))" "$LOG" | grep -qE "$2"; }

# state_since MARK: the last state line after line MARK (empty if none).
state_since() { tail -n +"$(($1 + 1))" "$LOG" | grep "^$STATE_LINE" | tail -n 1; }

# expect_state NAME MARK PATTERN SECONDS: passes NAME once a state line after MARK matches
# PATTERN (e.g. 'phase=paused mode=focus'), within SECONDS.
expect_state() {
  if wait_for "$4" log_since "$2" "^$STATE_LINE.*$3"; then
    pass "$1"
  else
    fail "$1" "no state line matching '$3' within $4 s (last: '$(state_since "$2")')"
  fi
}

# dial_start_pause_resume START-NAME: from a 1:00 focus at rest, the dial down to the 0:05 floor
# (12 slow detents counter-clockwise, 5 s each below 1:00, the last one clamped) and one detent
# clockwise: 0:10, every detent counted once, none lost or doubled (dial-detents: the device
# logs each dialed duration); then start (START-NAME), pause and resume from the start button.
# Leaves `mark` at the resume.
DIAL_STEPS="55000 50000 45000 40000 35000 30000 25000 20000 15000 10000 5000 10000 "
dialed() { tail -n +"$((dial + 1))" "$LOG" | sed -n "s/^${STATE_LINE}phase=idle .* total_ms=\([0-9]*\)\$/\1/p" | tr '\n' ' '; }
dial_complete() { [ "$(dialed)" = "$DIAL_STEPS" ]; }
dial_start_pause_resume() {
  dial=$(log_mark)
  turn "$ENC_A" "$ENC_B" 12 ccw
  turn "$ENC_A" "$ENC_B" 1 cw
  wait_for 5 dial_complete
  check dial-detents "dialed durations (ms) '$(dialed)', expected '$DIAL_STEPS'" dial_complete
  mark=$(log_mark)
  press "$BTN_START"
  expect_state "$1" "$mark" 'phase=running mode=focus remaining_ms=[0-9]+ total_ms=10000$' 10
  usleep 1500000 # a person's pace (the timer runs a moment before the pause): a stimulus, not a wait
  mark=$(log_mark)
  press "$BTN_START"
  expect_state pause "$mark" 'phase=paused mode=focus' 10
  usleep 1000000 # the same: paused a moment before the resume
  mark=$(log_mark)
  press "$BTN_START"
  expect_state resume "$mark" 'phase=running mode=focus' 10
}
