#!/usr/bin/env bash
# deploy/text-order.sh: deploy/pomodoro.order, the order in which lld lays out the binary's code
# (Package.swift: --symbol-ordering-file). The functions a process runs are spread through the
# 6 MB of text of a static-stdlib binary, and the kernel maps 64 KiB around every page touched
# (fault-around), so each process had most of the text resident. Laid out hot first, each process
# touches a few hundred KiB of it (docs/proof.md, "Memory of the three processes").
#
# The list is what callgrind saw run, as symbol names: the device (`simulate --script` over
# Tests/scenarios), the page's server (`pomodoro web` answering a browser's requests against a
# simulator) and the bridge (`pomodoro mqtt` against a mosquitto on 127.0.0.1, when one is
# installed), in that order, each process's functions after those of the ones before. A name the
# code no longer has is skipped by the linker and a new function is laid out after the list:
# regenerate after a large change (the memory bench tells).
#
# Usage: bash deploy/text-order.sh [--binary FILE] [--write]
#   --binary FILE  a release build of the pomodoro binary with its symbols (default: build one:
#                  swift build -c release --static-swift-stdlib --product pomodoro)
#   --write        write deploy/pomodoro.order (else the list goes to stdout)
# Needs valgrind, curl and script (util-linux); mosquitto for the bridge's part.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The list may go to stdout: messages to stderr.
SAY_FD=2
# shellcheck source=deploy/lib/common.sh
source "$here/lib/common.sh"

binary=""
write=0
parse_args --binary=binary --write=write! -- "$@"

for tool in valgrind curl script; do
  command -v "$tool" >/dev/null || die "$tool is missing: sudo apt-get install valgrind curl util-linux"
done

cd "$source_dir"
if [ -z "$binary" ]; then
  say "building the release binary"
  swift build -c release --static-swift-stdlib --product pomodoro >&2
  binary="$(swift build -c release --static-swift-stdlib --product pomodoro --show-bin-path)/pomodoro"
fi

work="$(mktemp -d)"
when_finished rm -rf "$work"
# Valgrind reads the symbol table but not this binary's DWARF: profile a copy without it.
strip --strip-debug -o "$work/pomodoro" "$binary"

# profile NAME ARGS...: runs the copy under callgrind, its profile in $work/NAME.cg (exec'd: run
# in the background, its PID is valgrind's, which a signal stops as it stops the program).
profile() {
  local name=$1
  shift
  exec valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no \
    --callgrind-out-file="$work/$name.cg" "$work/pomodoro" "$@" >/dev/null 2>"$work/$name.log"
}

# wait_for PATH: until the socket or file exists (60 s at most).
wait_for() {
  for _ in $(seq 600); do
    [ -e "$1" ] && return 0
    sleep 0.1
  done
  die "$1 did not appear"
}

stage "the device"
for scenario in Tests/scenarios/*.pomo; do
  (profile "device-$(basename "$scenario" .pomo)" simulate --script "$scenario")
done

# A simulator with its control socket, in a terminal of its own (script), for the servers.
sock="$work/control.sock"
# Profiled too: the device as it idles and serves (the terminal's code, the control socket's).
script -qfc "valgrind --tool=callgrind --demangle=no --compress-strings=no --compress-pos=no \
  --callgrind-out-file='$work/device-served.cg' '$work/pomodoro' simulate --no-bell --control '$sock'" \
  /dev/null </dev/zero >/dev/null 2>&1 &
simulator=$!
when_finished kill "$simulator"
wait_for "$sock"

stage "the page's server"
port=$((20000 + RANDOM % 20000))
printf 'control_socket = %s\nweb_port = %s\nweb_bind = 127.0.0.1\n' "$sock" "$port" >"$work/web.conf"
STATE_DIRECTORY="$work/web-state" profile web web --config "$work/web.conf" &
web=$!
url="http://127.0.0.1:$port"
for _ in $(seq 600); do
  if curl -sf -o /dev/null "$url/"; then break; fi
  sleep 0.1
done
for path in / /app.js /style.css /api/state /api/history /api/config /manifest.webmanifest; do
  curl -s -o /dev/null "$url$path" || true
done
curl -s -o /dev/null -X POST -H 'Content-Type: application/json' -d '{}' "$url/api/pair" || true
curl -s -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"code":"000000"}' "$url/api/pair" || true
curl -s -o /dev/null -X POST "$url/api/start" || true
curl -s -o /dev/null --max-time 3 "$url/events" || true
kill -INT "$web"
wait "$web" || true

# The bridge runs in the copy's own process (no pomodoro-mqtt beside it to exec, which callgrind
# would not follow): the same functions, by the same names, as pomodoro-mqtt is linked from, and
# Package.swift links both binaries with this one order.
if command -v mosquitto >/dev/null; then
  stage "the bridge"
  mport=$((20000 + RANDOM % 20000))
  printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$mport" >"$work/mosquitto.conf"
  mosquitto -c "$work/mosquitto.conf" >/dev/null 2>&1 &
  broker=$!
  when_finished kill "$broker"
  sleep 1
  printf 'control_socket = %s\nmqtt_host = 127.0.0.1\nmqtt_port = %s\nmqtt_device_id = desk\n' "$sock" "$mport" \
    >"$work/mqtt.conf"
  profile mqtt mqtt --config "$work/mqtt.conf" &
  mqtt=$!
  sleep 20
  kill -INT "$mqtt"
  wait "$mqtt" || true
else
  say "no mosquitto: the bridge's functions are left out"
fi

# The simulator's profile is written when it ends (callgrind, at SIGTERM).
pkill -TERM -f "callgrind-out-file=$work/device-served.cg" || true
for _ in $(seq 100); do
  [ -s "$work/device-served.cg" ] && break
  sleep 0.1
done

stage "the order"
# The functions of the binary each process ran (the `fn=` lines under the binary's `ob=`), laid
# out so that each server's code is one stretch: the standard library's and the runtime's first
# (their big objects without function sections come along whole, whoever calls them), then ours
# grouped by which processes run them, device only, device and page, page only, page and bridge,
# all three, device and bridge, bridge only (the page's functions are then one stretch, and so
# are the bridge's; the device's are two).
ran() { # ran PROFILE...: the names those profiles saw run in the binary
  awk -v bin="$work/pomodoro" '
    /^ob=/ { ob = substr($0, 4) }
    /^fn=/ && ob == bin { print substr($0, 4) }
  ' "$@" | sort -u
}
ran "$work"/device-*.cg >"$work/d"
ran "$work/web.cg" >"$work/w"
if [ -f "$work/mqtt.cg" ]; then ran "$work/mqtt.cg" >"$work/m"; else : >"$work/m"; fi
sort -u "$work/d" "$work/w" "$work/m" >"$work/all"
# Ours: the Pomodoro modules' Swift names and the C shims' pomo_ functions.
# shellcheck disable=SC2016 # a $ of a Swift name, not of the shell
ours_re='^(\$s[0-9]+Pomodoro|pomo_)'
ours() { grep -E "$ours_re" "$@" || true; }
order="$work/order"
grep -vE "$ours_re" "$work/all" >"$order" || true
# group D W M: ours that the device (D), the page (W) and the bridge (M) ran or not (1/0).
group() {
  ours "$work/all" | awk -v want="$1$2$3" -v d="$work/d" -v w="$work/w" -v m="$work/m" '
    BEGIN { while ((getline n < d) > 0) D[n] = 1; while ((getline n < w) > 0) W[n] = 1
            while ((getline n < m) > 0) M[n] = 1 }
    { if (((n = $0) in D ? "1" : "0") ((n in W) ? "1" : "0") ((n in M) ? "1" : "0") == want) print }'
}
for g in "1 0 0" "1 1 0" "0 1 0" "0 1 1" "1 1 1" "1 0 1" "0 0 1"; do
  # shellcheck disable=SC2086 # the three flags, split on purpose
  group $g >>"$order"
done
# Only names the binary defines as functions (callgrind names a stretch without one by its address).
nm --defined-only "$binary" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort -u >"$work/defined"
grep -xF -f "$work/defined" "$order" >"$work/final"
say "$(wc -l <"$work/final") functions in the order"
stage_times
if [ "$write" = 1 ]; then
  cp "$work/final" "$here/pomodoro.order"
  say "wrote deploy/pomodoro.order"
else
  cat "$work/final"
fi
