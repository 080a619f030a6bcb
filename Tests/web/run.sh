#!/usr/bin/env bash
# Tests/web/run.sh: the web page in a real browser. The interactive simulator (under tmux, for its
# terminal) with its control socket, `pomodoro web` on 127.0.0.1 on a free port, and Debian's
# chromium, headless, driven over the DevTools protocol on a pipe by page.py (Python's standard
# library only). Checks, at a phone's 412x892 and a desktop's 1280x800:
#   - the page's bytes (at most 40 KB) and its first contentful paint (figures)
#   - unpaired: the state shown, no buttons, a command refused with its reason; pairing by the
#     code `pomodoro web pair` prints (a wrong one refused, its reason shown)
#   - a click on Start seen on the device (ctl status) within 1 s; the device's own button
#     (tmux send-keys Space) seen on the page within 1 s
#   - the labels following each phase (Start, Pause, Resume, Stop), Cancel only with a timer,
#     End in a flow; the picker (mode, +1 min) and Skip, +5 min; the countdown counted on the page
#     between updates, a flow counted up, a paused time standing still
#   - profiles (issue 48): no choice without them; two in the config's overlay listed in its
#     order with (base), the one in use chosen; chosen with the keyboard, seen on the device and in
#     the picker's time; an unknown one refused with its reason; unpaired, not usable
#   - an egg ringing with its flashing title; the spinning tomato
#   - the week, the stats picture, the settings (one saved and reset)
#   - the device restarted: Offline, then live again; the server stopped (SIGSTOP: a silent
#     stream): Offline once nothing was heard for 35 s, live again after SIGCONT
#   - no request to another host, no console error; dark mode; nothing wider than the screen
# Screenshots in the work folder (phone.png, phone-dark.png, phone-profile.png, desktop.png); with
# --docs the phone's also to docs/images/web-phone.png. Prints PASS/FAIL lines, figures, `N passed,
# M failed`.
#
# Usage: bash Tests/web/run.sh [--binary FILE] [--work DIR] [--keep] [--docs]
#   --binary FILE  the pomodoro to test (default .build/debug/pomodoro, built when missing)
#   --work DIR     keep the work folder (logs, screenshots) in DIR (default: a temporary one)
#   --keep         keep the temporary work folder
#   --docs         write the phone's screenshot to docs/images/web-phone.png
set -uo pipefail

PROG=web/run.sh
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=Tests/lib/host.sh
source "$here/../lib/host.sh"
repo=$REPO
binary="" work="" docs=0
parse_args --binary=binary --work=work --docs=docs! -- "$@"

for tool in chromium tmux python3 curl; do
  command -v "$tool" >/dev/null || die "$tool is missing: apt-get install chromium tmux python3 curl"
done
if [[ -z "$binary" ]]; then
  binary="$repo/.build/debug/pomodoro"
  if [[ ! -x "$binary" ]]; then
    (cd "$repo" && swift build --product pomodoro) >&2 || die "swift build failed"
  fi
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
if [[ -z "$work" ]]; then
  scratch_folder web
else
  mkdir -p "$work" && work="$(cd "$work" && pwd)"
  keep=1
fi
rm -rf "${work:?}/chromium" "$work/state" "$work/web-state"
mkdir -p "$work/state" "$work/web-state"

tmux_sock="pomodoro-web-$$"
pids=()
when_finished stop_processes

# A free port on 127.0.0.1 (the kernel's choice; nothing else here may be on 8080).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
sock="$work/control.sock"
printf 'control_socket = %s\nstate_dir = %s\n' "$sock" "$work/state" >"$work/device.conf"
device_start="tmux -L $tmux_sock -f /dev/null new-session -d -x 100 -y 40 \
\"exec '$binary' simulate --no-bell --config '$work/device.conf' --control '$sock' 2>>'$work/simulator.log'\""
ctl=("$binary" ctl --socket "$sock")

say "the simulator, its control socket $sock"
bash -c "$device_start" || die "tmux could not start the simulator"
answers() { "${ctl[@]}" status >/dev/null 2>&1; }
wait_for 30 answers
check "the simulator answers on its control socket" "$(tail -n 5 "$work/simulator.log")" "${ctl[@]}" status

"$binary" --version | grep -qF ', libmicrohttpd)' ||
  die "$binary was built without libmicrohttpd: apt-get install libmicrohttpd-dev and rebuild"
printf 'control_socket = %s\nweb_port = %d\nweb_bind = 127.0.0.1\nweb_view = open\n' "$sock" "$port" >"$work/web.conf"
STATE_DIRECTORY="$work/web-state" "$binary" web --config "$work/web.conf" >"$work/server.log" 2>&1 &
pids+=($!)
server_pid=$!
pair="STATE_DIRECTORY='$work/web-state' '$binary' web pair --config '$work/web.conf'"
server="pomodoro web"
serves() { curl -fsS -o /dev/null "$url/" 2>/dev/null; }
wait_for 30 serves
check "$server answers on $url" "$(tail -n 5 "$work/server.log")" curl -fsS -o /dev/null "$url/"
headers=$(curl -fsS -D - -o /dev/null "$url/")
csp="default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'"
check "the page's headers: CSP, nosniff, no-referrer, no-cache with an ETag" "$headers" \
  grep -qiF "content-security-policy: $csp" <<<"$headers"
etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: *\(.*\)\r$/\1/p' <<<"$headers")
check "a copy with the page's ETag is answered 304" "ETag '$etag'" \
  test "$(curl -sS -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$url/")" = 304

phone_png=()
if ((docs)); then
  mkdir -p "$repo/docs/images"
  phone_png=(--phone-png "$repo/docs/images/web-phone.png")
fi
python3 -B "$here/page.py" --url "$url" --work "$work" --ctl "${ctl[*]@Q}" --tmux "$tmux_sock" \
  --device-start "$device_start" --pair "$pair" --server-pid "$server_pid" "${phone_png[@]}" 2>"$work/page.err" | tee "$work/page.log"
count_results "$work/page.log"
if ! grep -q '^PASS no console errors' "$work/page.log" && ! grep -q '^FAIL no console errors' "$work/page.log"; then
  fail "page.py stopped before its end" "$(tail -n 20 "$work/page.err")"
fi
say "screenshots: $work/phone.png, $work/phone-dark.png, $work/phone-profile.png, $work/desktop.png$( ((keep)) || echo ' (deleted: --keep or --work DIR keeps them)')"
test_done
