#!/usr/bin/env bash
# Tests/web/flood.sh: `pomodoro web` flooded beside the device's buttons, in CI: pomodoro-bench web
# (the real `pomodoro web` as a process of its own, a device on the mocks and the real clock) opens
# 64 event streams (from 64 loopback addresses) and 1,000 connections at once while the start and cancel buttons are pressed
# every 250 ms, then 16 streams over 60 knob presses and a running focus. Its figures are printed
# (speed is the bench's, not a pass or fail); what passes or fails is what must hold whatever the
# machine's speed: 16 streams kept and no more (the rest refused: no address ends another's), every press seen as its state on the
# device during the flood, every knob press's event on each of the 16 streams.
# Usage: bash Tests/web/flood.sh [--bench FILE]   (default .build/debug/pomodoro-bench, built when missing)
set -uo pipefail

PROG=web/flood.sh
# shellcheck source=Tests/lib/host.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
repo=$REPO
bench=""
parse_args --bench=bench -- "$@"
if [[ -z "$bench" ]]; then
  bench="$repo/.build/debug/pomodoro-bench"
  (cd "$repo" && swift build --product pomodoro-bench && swift build --product pomodoro) >&2 || die "swift build failed"
fi

out=$("$bench" web 2>&1)
printf '%s\n' "$out" | sed 's/^/  /'
figure() { sed -n "s/^$1 \\([0-9.]*\\).*/\\1/p" <<<"$out" | head -n 1; }

kept=$(figure web.flood_streams_kept)
check "64 streams at once from 64 addresses: 16 kept" "kept: ${kept:-none}" [ "${kept%.*}" = 16 ]
presses=$(figure web.flood_press_to_state.samples)
check "the flood: each of 40 presses made its state before the next" "presses seen: ${presses:-none}" \
  [ "${presses%.*}" = 40 ]
events=$(figure web.knob_press_state_change_to_stream_event.samples)
knobs=$(figure web.knob_presses)
want=none
[[ -n "$knobs" ]] && want=$((${knobs%.*} * 16))
check "each of the knob presses reached each of 16 streams" "events ${events:-none}, presses ${knobs:-none}" \
  [ "${events%.*}" = "$want" ]

test_done
