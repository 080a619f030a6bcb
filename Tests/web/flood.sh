#!/usr/bin/env bash
# Tests/web/flood.sh: `pomodoro web` flooded beside the device's buttons, in CI: pomodoro-bench web
# (Benchmarks/pomodoro-bench: the real `pomodoro web` as a process of its own, a device on the
# mocks and the real clock) opens 64 event streams (from 64 loopback addresses) and 1,000
# connections at once while the start and cancel buttons are pressed every 250 ms, then 16 streams
# over 60 knob presses and a running focus. Its figures are printed and written as JSON
# (`--json FILE`, Benchmarks/README.md); speed is the bench's, not a pass or fail. What passes or
# fails is what must hold whatever the machine's speed, each a figure's `expect` in the JSON (the
# bench writes it from what it did: the server's stream limit, the presses it made), read here
# with jq and compared with the figure's value: 16 streams kept and no more (the rest refused: no
# address ends another's), every press seen as its state on the device during the flood, every
# knob press's event on each of the 16 streams; and no other expectation missed (the bench's
# exit).
# Usage: bash Tests/web/flood.sh [--bench FILE] [--json FILE]
#   --bench FILE  the bench (default .build/debug/pomodoro-bench, built with `pomodoro` when missing)
#   --json FILE   keep the figures' JSON there (default: a scratch file)
set -uo pipefail

PROG=web/flood.sh
# shellcheck source=Tests/lib/host.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
repo=$REPO
bench=""
json=""
parse_args --bench=bench --json=json -- "$@"
if [[ -z "$bench" ]]; then
  bench="$repo/.build/debug/pomodoro-bench"
  (cd "$repo" && swift build --product pomodoro-bench && swift build --product pomodoro) >&2 || die "swift build failed"
fi
if [[ -z "$json" ]]; then
  scratch_folder web-flood
  json="$work/web.json"
fi

"$bench" web --json "$json" 2>&1 | sed 's/^/  /'
status=${PIPESTATUS[0]}
[[ -s "$json" ]] || die "pomodoro-bench web wrote no figures to $json (exit $status)"

# expected NAME: "VALUE EXPECTED" of the figure NAME (EXPECTED: its expect.equals), or nothing.
expected() {
  jq -r --arg name "$1" '.figures[] | select(.name == $name) | "\(.value) \(.expect.equals // "none")"' "$json"
}
# said NAME: the figure NAME and what it must be, for a failure's words.
said() {
  local value want
  read -r value want <<<"$(expected "$1")"
  printf '%s %s, must be %s' "$1" "${value:-missing}" "${want:-none}"
}
# holds NAME: the figure NAME has an expected value, and equals it.
holds() {
  local value want
  read -r value want <<<"$(expected "$1")"
  [[ -n "$value" && "$want" != none ]] && jq -e -n --argjson v "$value" --argjson w "$want" '$v == $w' >/dev/null
}

check "64 streams at once from 64 addresses: 16 kept" "$(said web.flood_streams_kept)" holds web.flood_streams_kept
check "the flood: each of 40 presses made its state before the next" \
  "presses seen: $(said web.flood_press_to_state.samples)" holds web.flood_press_to_state.samples
check "each of the knob presses reached each of 16 streams" \
  "events (knob presses x 16): $(said web.knob_press_state_change_to_stream_event.samples)" \
  holds web.knob_press_state_change_to_stream_event.samples
missed=$(jq -r '.figures[] | select(.expect and (
    (.expect.equals != null and .value != .expect.equals) or (.expect.at_most != null and .value > .expect.at_most)))
  | .name' "$json")
none_missed() { [[ -z "$missed" && "$status" -eq 0 ]]; }
check "no figure missed what it must be, and the bench said so by its exit" \
  "missed: ${missed:-none}; exit $status" none_missed

test_done
