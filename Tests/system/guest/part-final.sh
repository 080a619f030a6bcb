# shellcheck shell=dash
# The boot after the last power cut (sourced by main.sh): reports how that cut was survived,
# then `install.sh --uninstall` removes everything but the history; then power-off.
after_cut_report "cut$CUT"
hist_sum=$(md5sum <"$STATE_DIR/history.jsonl" 2>/dev/null)
if bash /root/pomodoro-src/deploy/install.sh --uninstall >/run/systest/uninstall.log 2>&1; then
  pass uninstall-runs
else
  fail uninstall-runs "install.sh --uninstall failed: $(tail -n 3 /run/systest/uninstall.log | tr '\n' '|')"
fi
left=""
for f in /usr/local/bin/pomodoro /etc/systemd/system/pomodoro.service /etc/pomodoro \
  /etc/modules-load.d/pomodoro-i2c.conf /etc/udev/rules.d/60-pomodoro-gpio-i2c.rules \
  /usr/local/share/doc/pomodoro $STATE_DIR/state.json; do
  [ ! -e "$f" ] || left="$left $f"
done
getent passwd pomodoro >/dev/null && left="$left user:pomodoro"
systemctl is-active -q pomodoro.service && left="$left running-service"
check uninstall-removes "still there:$left" [ -z "$left" ]
check uninstall-keeps-history "history.jsonl changed or went: $(find "$STATE_DIR" 2>&1 | tr '\n' '|')" \
  sh -c "[ -n '$hist_sum' ] && [ \"\$(md5sum <$STATE_DIR/history.jsonl 2>/dev/null)\" = '$hist_sum' ]"
say "part final done: $PASSED passed, $FAILED failed"
systemctl poweroff
sleep 600
