# shellcheck shell=dash disable=SC2034 # sourced: the offsets and names are read by the scripts that source it
# What the system test's guest scripts share (sourced; the guest's /bin/sh is dash), on top of
# the guest library it shares with the HIL guest (Tests/lib/guest.sh, under
# /usr/local/lib/systest/lib with test-lib.sh and deploy/pomodoro.conf: the checks, the pins, the
# chip, the trace, the device's log, the dial). Output goes to the serial console, where the host
# reads the `PASS name` / `FAIL name: why` and `systest: ...` lines.
SYSTEST=/usr/local/lib/systest
GUEST_LIB=$SYSTEST/lib
# shellcheck source=Tests/lib/guest.sh
. $GUEST_LIB/guest.sh

# The chip made by systest-sim.service (sim-up.sh): SIM_CHIP and SIM_DIR.
# shellcheck source=/dev/null # written by sim-up.sh at boot
[ ! -r /run/systest/sim.env ] || . /run/systest/sim.env

CONF=/etc/pomodoro/pomodoro.conf
STATE_DIR=/var/lib/pomodoro
LOG=/run/systest/pomodoro.log

say() { echo "systest: $*"; }

# follow_journal: the service's journal (this boot, message text only: `state phase=...`) in $LOG.
follow_journal() {
  journalctl -b -u pomodoro.service -f -o cat -n all >"$LOG" 2>/dev/null &
  FOLLOW_PID=$!
  wait_for 10 test -s "$LOG"
}

prop() { systemctl show -P "$1" pomodoro.service; }
main_pid() { prop MainPID; }
is_active() { [ "$(systemctl is-active pomodoro.service)" = active ]; }

# pid_changed OLD: the service is active under a main PID other than OLD.
pid_changed() { is_active && [ "$(main_pid)" != "$1" ] && [ "$(main_pid)" != 0 ]; }

# watchdog_fed SECONDS: waits until the service, pinging its watchdog all along, has fed it over
# SECONDS since its first ping after this call (systemd's WatchdogTimestampMonotonic, the last
# WATCHDOG=1 it had, in microseconds): the wait for a service alive across a watchdog period is
# on its pings, not on a time.
fed_since() { [ "$(prop WatchdogTimestampMonotonic)" -ge "$1" ] 2>/dev/null; }
watchdog_fed() {
  fed_0=$(prop WatchdogTimestampMonotonic)
  wait_for 30 fed_since $((fed_0 + 1)) || return 1
  fed_1=$(prop WatchdogTimestampMonotonic)
  wait_for $(($1 + 30)) fed_since $((fed_1 + $1 * 1000000))
}

# set_conf KEY VALUE: edits the config as a person would (the key's line, or a new one).
set_conf() {
  if grep -qE "^$1 *=" "$CONF"; then
    sed -i "s|^$1 *=.*|$1 = $2|" "$CONF"
  else
    echo "$1 = $2" >>"$CONF"
  fi
}

# history_summary: `lines=N completed=C torn=T` of history.jsonl; a torn line is one that is
# not a whole `{...}` object.
history_summary() {
  f=$STATE_DIR/history.jsonl
  if [ ! -e "$f" ]; then
    echo "lines=0 completed=0 torn=0"
    return
  fi
  awk '{ n++ } /"outcome":"completed"/ && /^\{.*\}$/ { c++ } !/^\{.*\}$/ { t++ }
    END { printf "lines=%d completed=%d torn=%d\n", n, c, t }' "$f"
}

# buzzer_level WANT SECONDS: waits for the buzzer line to read WANT, reading it every 2 ms (the
# level helper); prints `WANT after N ms (K reads)` or `no WANT in N ms (...)`.
buzzer_level() { $SYSTEST/level "$SIM_DIR/sim_gpio$BUZZER/value" "$1" "$2"; }
# buzzer_seen OUTPUT WANT: whether buzzer_level's OUTPUT says WANT was read.
buzzer_seen() { case "$1" in "$2 after"*) return 0 ;; *) return 1 ;; esac; }

# bouncy_press OFFSET: a contact that bounces: the line toggled down and up five times as
# fast as the kernel takes it (the bounce helper; a shell takes tens of ms a write under TCG),
# then held down 150 ms and released cleanly. Sets BOUNCE_US, how long the toggling took.
bouncy_press() {
  BOUNCE_US=$($SYSTEST/bounce "$SIM_DIR/sim_gpio$1/pull" 5)
  usleep 150000
  pin_pull "$1" up
}

# after_cut_report NAME: what the host needs after a power cut (run.sh checks the figures):
# the file system's recovery, the restored timer, the history; then resumes the timer and
# reports the restored remaining time from the first `running` state line.
after_cut_report() {
  wait_for 60 is_active
  check "$1-service-back" "pomodoro.service is $(systemctl is-active pomodoro.service) after the cut" is_active
  say "$1 dmesg: $(dmesg | grep -E 'EXT4-fs \(vda\)|EXT4-fs error' | sed 's/^\[[^]]*\] //' | tr '\n' '|')"
  check "$1-fs-recovered" "root not mounted read-write, or ext4 reported errors: $(findmnt -no OPTIONS /); $(dmesg | grep 'EXT4-fs error' | head -n 2)" \
    sh -c "findmnt -no OPTIONS / | grep -q '^rw' && ! dmesg | grep -q 'EXT4-fs error'"
  wait_for 10 sh -c "systemctl show -P StatusText pomodoro.service | grep -q ."
  say "$1 status: $(prop StatusText)"
  say "$1 restored: $(grep '^restored a' "$LOG" | tail -n 1)"
  say "$1 history: $(history_summary) torn_at=$(awk '!/^\{.*\}$/ { printf "%d,", NR }' "$STATE_DIR/history.jsonl" 2>/dev/null)"
  mark=$(log_mark)
  RESUME_MARK=$mark
  n=0
  while [ $n -lt 4 ] && ! log_since "$mark" '^state phase=running'; do
    press "$BTN_START"
    n=$((n + 1))
    wait_for 3 log_since "$mark" '^state phase=running' || true
  done
  say "$1 resumed: $(tail -n +"$((mark + 1))" "$LOG" | grep '^state phase=running' | head -n 1)"
}
