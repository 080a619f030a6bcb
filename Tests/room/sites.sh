#!/usr/bin/env bash
# Tests/room/sites.sh: a room across two mosquitto brokers joined by mosquitto's own bridge
# (docs/room.md, "Across sites"), with docs/room.md's ACL on both: desk a on the office broker,
# desk b on the home broker, each a simulator (tmux) with its bridge, each with its own user and
# password. The home broker bridges the room's topics to the office as docs/room.md writes it.
# Checks:
#   - anonymous clients are refused on both brokers
#   - each desk counts the other (2 members) across the bridge
#   - a start on a runs on b, a pause from b pauses a; the time left within 1 s
#   - desk b writing desk a's session or member topic is refused at home: nothing crosses, a
#     forged "ended" session changes no desk, a is still counted on b; a "by" in b's own payload
#     makes it no one else's
# Prints PASS/FAIL lines and `N passed, M failed`.
#
# Usage: bash Tests/room/sites.sh [--binary FILE] [--work DIR] [--keep]
set -uo pipefail

PROG=room/sites.sh
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=Tests/lib/host.sh
source "$here/../lib/host.sh"
# shellcheck source=Tests/room/desks.sh
source "$here/desks.sh"
room_setup room-sites tmux python3 mosquitto mosquitto_passwd mosquitto_pub -- "$@"
tmux_sock="pomodoro-sites-$$"
pids=()
declare -A bridge
when_finished stop_processes
when_finished setup_failed "the room across two brokers"

# block MARKER: the fenced block after `<!-- MARKER: ... -->` in docs/room.md.
block() {
  awk -v m="<!-- $1:" 'index($0, m) == 1 { on = 1; next } on && /^```/ { if (n++) exit; next } on && n { print }' \
    "$REPO/docs/room.md"
}
acl=$(block acl)
[[ -n "$acl" && -n "$(block bridge)" && -n "$(block bridge-acl)" ]] || die "docs/room.md lost its ACL or bridge blocks"

office=$(free_port)
home=$(free_port)
secret=bridge-secret-$$
for site in office home; do
  mkdir -p "$work/$site"
  : >"$work/$site/passwd" # 0644: mosquitto reads it as its own user once it drops root
done
mosquitto_passwd -b "$work/office/passwd" desk-a pw-desk-a
mosquitto_passwd -b "$work/office/passwd" bridge-home "$secret"
mosquitto_passwd -b "$work/home/passwd" desk-b pw-desk-b
printf '%s\n\n%s\n' "$acl" "$(block bridge-acl)" >"$work/office/pomodoro.acl"
printf '%s\n' "$acl" >"$work/home/pomodoro.acl"
for site in office home; do
  p=$office
  [[ $site == home ]] && p=$home
  {
    printf 'per_listener_settings false\nlistener %s 127.0.0.1\nallow_anonymous false\npersistence false\n' "$p"
    printf 'password_file %s\nacl_file %s\n' "$work/$site/passwd" "$work/$site/pomodoro.acl"
  } >"$work/$site/mosquitto.conf"
done
block bridge | sed -e "s/^address .*/address 127.0.0.1:$office/" -e "s/^remote_password .*/remote_password $secret/" \
  >>"$work/home/mosquitto.conf"
for site in office home; do
  p=$office
  [[ $site == home ]] && p=$home
  start_broker "$work/$site/mosquitto.conf" "$p" "$work/$site/mosquitto.log"
  pids+=("$started")
done
say "the office broker on 127.0.0.1:$office, the home broker on 127.0.0.1:$home, bridged"

for site in office home; do
  p=$office
  [[ $site == home ]] && p=$home
  out=$(mosquitto_pub -h 127.0.0.1 -p "$p" -q 1 -t pomodoro/room/team/sessions/desk-a -m anonymous 2>&1)
  check "anonymous is refused on the $site broker" "$out" test $? -ne 0
done

for d in a b; do printf 'pw-desk-%s\n' "$d" >"$work/$d.password" && chmod 600 "$work/$d.password"; done
for d in a b; do
  desk_port=$office
  [[ $d == b ]] && desk_port=$home
  desk_conf=("mqtt_user = desk-$d" "mqtt_password_file = $work/$d.password")
  desk "$d"
done
for d in a b; do
  check "desk $d counts the other across the bridge" "$(tail -n 3 "$work/$d/bridge.log")" is "$d" room_members 2 20
done

ctl a start >/dev/null
check "a start at the office runs at home" "" is b phase running
check "b holds a's session" "" is b room_by desk-a
expect "the time left on a and b within 1 s" together a b
ctl b pause >/dev/null
check "a pause from home pauses the office" "" is a phase paused
check "a holds b's session" "" is a room_by desk-b
expect "paused: the time left on a and b within 1 s" together a b

# Forgeries by desk b at home: desk a's session and member topics are not b's to write.
forged='{"v":2,"rev":1000,"modes":["focus"],"lengths_ms":[1500000],"plan_rev":1000,"phase":0,"state":"ended","elapsed_ms":1500000,"expiry":600,"sent_ms":1796040000000,"synced":false}'
mosquitto_pub -h 127.0.0.1 -p "$home" -u desk-b -P pw-desk-b -V mqttv5 -q 1 -r \
  -t pomodoro/room/team/sessions/desk-a -m "$forged" 2>>"$work/forgeries.log"
mosquitto_pub -h 127.0.0.1 -p "$home" -u desk-b -P pw-desk-b -V mqttv5 -q 1 -r \
  -t pomodoro/room/team/members/desk-a -m "" 2>>"$work/forgeries.log"
ctl a resume >/dev/null
check "after b's forgeries, a's resume runs b" "" is b phase running
for d in a b; do check "b's forged session as desk a changed nothing on $d" "" is "$d" room_by desk-a; done
check "b's forged withdrawal of desk a: b still counts a" "" is b room_members 2
seen=$(timeout 5 mosquitto_sub -h 127.0.0.1 -p "$office" -u desk-a -P pw-desk-a -t pomodoro/room/team/sessions/desk-a \
  -C 1 -W 4 2>/dev/null)
check "the office keeps a's own session, not b's forgery" "$seen" grep -qv '"rev":1000,' <<<"$seen"

# A forged author: desk b's own topic, a payload that says "by":"desk-a". The author is the topic's.
rev=$(field a room_rev)
claim=$(sed -e "s/\"rev\":1000,/\"rev\":$((rev + 1)),\"by\":\"desk-a\",/" -e "s/\"plan_rev\":1000/\"plan_rev\":$((rev + 1))/" \
  -e 's/"state":"ended"/"state":"paused"/' <<<"$forged")
mosquitto_pub -h 127.0.0.1 -p "$home" -u desk-b -P pw-desk-b -V mqttv5 -q 1 -r -D publish message-expiry-interval 600 \
  -t pomodoro/room/team/sessions/desk-b -m "$claim" 2>>"$work/forgeries.log"
for d in a b; do check "a payload's \"by\" is not its author: $d holds desk-b's" "" is "$d" room_by desk-b; done

REPORTED=1
test_done
