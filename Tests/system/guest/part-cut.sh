# shellcheck shell=dash
# A boot between power cuts (sourced by main.sh): reports how the last cut was survived
# (after_cut_report), then runs sessions back to back (start, ring, acknowledge, start...),
# echoing every state line to the console, until the host kills QEMU.
after_cut_report "cut$CUT"
# Every state line from now on, as the host's clock reads it on the console.
tail -n +"$((RESUME_MARK + 1))" -f "$LOG" | while IFS= read -r line; do
  case "$line" in state\ *) echo "systest: live $line" ;; esac
done &
say "cycling sessions"
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
