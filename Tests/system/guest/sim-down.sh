#!/bin/sh
# shellcheck shell=dash
# ExecStop of systest-sim.service: at power-off it stops after pomodoro.service (the reverse
# of its start order), so it sees what the device left behind. When main.sh asked for it
# (/run/systest/shutdown-mark), checks the buzzer line, the panel's display-off command (0xAE)
# on the smbus_write trace and state.json, as PASS/FAIL lines on the console.
exec >/dev/ttyS0 2>&1
[ -e /run/systest/shutdown-mark ] || exit 0
# shellcheck source=Tests/system/guest/lib.sh
. /usr/local/lib/systest/lib.sh
code=$(prop ExecMainCode)
status=$(prop ExecMainStatus)
check shutdown-exit-0 "pomodoro ended with code $code status $status (1 = exited, 0 = success)" \
  [ "$code:$status" = 1:0 ]
check shutdown-buzzer-low "buzzer line GPIO$BUZZER is $(pin_value "$BUZZER") after the service stopped" pin_is "$BUZZER" 0
display_blocks
panel_off_sent() { display_commands | grep -qw ae; }
check shutdown-panel-off "commands since power-off began: '$(display_commands | cut -c1-80)', expected ae" panel_off_sent
check shutdown-state-saved "state.json ($(stat -c %y $STATE_DIR/state.json 2>&1)) not written since power-off began" \
  [ $STATE_DIR/state.json -nt /run/systest/shutdown-mark ]
say "state at power-off: $(cat $STATE_DIR/state.json 2>&1)"
say "shutdown checks done"
