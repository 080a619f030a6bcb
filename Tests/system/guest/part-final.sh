# shellcheck shell=dash
# The boot after the last power cut (sourced by main.sh): reports how that cut was survived,
# then removes the package as README says, on the live system: `apt-get remove` stops the
# service and keeps the config and the history (and takes pomodoro-web and pomodoro-hooks, which
# depend on it, keeping the pairings and what the hooks kept); `apt-get purge` of the three
# deletes them, and the enable links, and leaves the system user (docs/install.md). Then power-off.
after_cut_report "cut$CUT"
hist_sum=$(md5sum <"$STATE_DIR/history.jsonl" 2>/dev/null)
conf_sum=$(md5sum <"$CONF")
# apt_quiet LOG ARGS...: apt-get -y ARGS with no terminal, its output in /run/systest/LOG.
apt_quiet() {
  log=/run/systest/$1
  shift
  DEBIAN_FRONTEND=noninteractive apt-get -y "$@" </dev/null >"$log" 2>&1
}
dpkg_status() { dpkg-query -W -f '${db:Status-Abbrev}' pomodoro 2>/dev/null | tr -d ' '; }
if apt_quiet remove.log remove pomodoro; then
  pass remove-runs
else
  fail remove-runs "apt-get remove pomodoro failed: $(tail -n 3 /run/systest/remove.log | tr '\n' '|')"
fi
left=""
for f in /usr/bin/pomodoro /usr/lib/systemd/system/pomodoro.service /usr/share/pomodoro /usr/lib/systemd/system/pomodoro-web.service \
  /usr/lib/systemd/system/pomodoro-hooks.service; do
  [ ! -e "$f" ] || left="$left $f"
done
[ "$(systemctl is-active pomodoro.service)" != active ] || left="$left running-service"
[ "$(systemctl is-active pomodoro-web.service)" != active ] || left="$left running-web-service"
[ "$(systemctl is-active pomodoro-hooks.service)" != active ] || left="$left running-hooks-service"
check remove-stops-and-removes "dpkg status '$(dpkg_status)' (expected rc); still there:$left" \
  [ "$(dpkg_status):$left" = "rc:" ]
check remove-keeps-config "$CONF changed or went: $(ls -l "$CONF" 2>&1)" \
  [ "$(md5sum <"$CONF" 2>/dev/null)" = "$conf_sum" ]
check remove-keeps-state-and-history "state.json gone, or history.jsonl changed or went: $(find "$STATE_DIR" 2>&1 | tr '\n' '|')" \
  sh -c "[ -s $STATE_DIR/state.json ] && [ -n '$hist_sum' ] && [ \"\$(md5sum <$STATE_DIR/history.jsonl 2>/dev/null)\" = '$hist_sum' ]"
check remove-keeps-web-pairings "/var/lib/pomodoro-web/pairings gone or empty: $(find /var/lib/pomodoro-web 2>&1 | tr '\n' '|')" \
  [ -s /var/lib/pomodoro-web/pairings ]
check remove-keeps-hooks-state "/var/lib/pomodoro-hooks/events gone or empty: $(find /var/lib/pomodoro-hooks 2>&1 | tr '\n' '|')" \
  [ -s /var/lib/pomodoro-hooks/events ]
# The three packages: pomodoro-web or pomodoro-hooks left removed but not purged (rc) would keep
# their state, and keep pomodoro known to dpkg (status un).
if apt_quiet purge.log purge pomodoro pomodoro-web pomodoro-hooks; then
  pass purge-runs
else
  fail purge-runs "apt-get purge pomodoro pomodoro-web pomodoro-hooks failed: $(tail -n 3 /run/systest/purge.log | tr '\n' '|')"
fi
left=""
for f in /etc/pomodoro $STATE_DIR /etc/systemd/system/multi-user.target.wants/pomodoro.service \
  /var/lib/pomodoro-web /etc/systemd/system/multi-user.target.wants/pomodoro-web.service \
  /var/lib/pomodoro-hooks /etc/systemd/system/multi-user.target.wants/pomodoro-hooks.service; do
  [ ! -e "$f" ] && [ ! -L "$f" ] || left="$left $f"
done
check purge-removes "dpkg status '$(dpkg_status)' (expected none); still there:$left" \
  [ "$(dpkg_status):$left" = ":" ]
check purge-keeps-user "no user pomodoro after purge (README: the users stay)" sh -c 'getent passwd pomodoro >/dev/null'
say "part final done: $(test_done)"
systemctl poweroff
sleep 600 # parked: the poweroff ends this script
