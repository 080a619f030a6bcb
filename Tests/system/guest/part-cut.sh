# shellcheck shell=dash
# A boot between power cuts (sourced by main.sh): reports how the last cut was survived
# (after_cut_report), then runs sessions back to back (start, ring, acknowledge, start...),
# echoing every state line to the console, until the host kills QEMU.
after_cut_report "cut$CUT"
# Every state line of this boot (the restore and the resume included) with the journal's
# monotonic receive time (mono=, the guest's uptime when the device wrote it), and the guest's
# uptime 4 times a second (tick): the host maps its cut instant onto the guest's clock with
# them, so neither the journal's nor the serial console's delay counts as time lost or gained.
# (A shell loop: mawk reading a pipe waits for a full buffer.)
journalctl -b -u pomodoro.service -f -o short-monotonic -n 40 | while IFS= read -r line; do
  case "$line" in
  *"]: state phase="*)
    mono=${line#\[}
    # shellcheck disable=SC2086 # split on purpose: drops the padding
    set -- ${mono%%\]*}
    echo "systest: live mono=$1 ${line#*]: }"
    ;;
  esac
done &
while :; do
  read -r up _ </proc/uptime
  echo "systest: tick $up"
  sleep 0.25
done &
say "cycling sessions"
# A person's pace, the stimulus under the cuts (not a wait for anything): the host kills QEMU.
while :; do
  status=$(prop StatusText)
  case "$status" in
  running*) sleep 0.5 ;;
  *)
    sleep 0.5
    press "$BTN_START"
    sleep 1.5
    ;;
  esac
done
