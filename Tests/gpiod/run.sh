#!/usr/bin/env bash
# Compiles the C shim's libgpiod v2 branch against Debian trixie's libgpiod-dev headers,
# without touching the host: a sources list, apt state and cache of its own in a scratch folder
# (Signed-By the Debian archive keyring), `apt-get download` + `dpkg -x`, then
# `cc -c -DPOMODORO_HAVE_GPIOD` of Sources/CPomodoroHW/gpio.c against those headers.
# Fails unless the object references v2-only symbols (gpiod_chip_request_lines, ...) and none
# of v1's. Also compiles the v1 branch against the host's header (when there is one) and the
# "not installed" body. Cleans up on every exit path.
#
# Usage: bash Tests/gpiod/run.sh [--keep]   (--keep keeps the scratch folder; DEBIAN_MIRROR=URL
#                                         overrides the mirror taken from the host's apt sources)
set -euo pipefail
cd "$(dirname "$0")/../.."
PROG=check-gpiod-v2
# shellcheck source=Tests/lib/host.sh
. Tests/lib/host.sh
parse_args -- "$@"
scratch_folder gpiod-v2
scratch=$work

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "$keyring missing (apt-get install debian-archive-keyring)"

# The mirror: the one the host's apt already uses for Debian (first non-security URI).
mirror=${DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2}' | grep -v -- '-security' \
    | grep '/debian/\?$' | head -n1 || true)
fi
if [ -z "$mirror" ]; then
  mirror=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{for (i=2;i<=NF;i++) if ($i ~ /^https?:/) {print $i; exit}}' \
    | grep -v -- '-security' | head -n1 || true)
fi
[ -n "$mirror" ] || die "no Debian mirror found in the host's apt sources; set DEBIAN_MIRROR"

mkdir -p "$scratch"/apt/lists/partial "$scratch"/apt/cache/archives/partial "$scratch"/apt/etc/preferences.d \
  "$scratch"/deb "$scratch"/root
cat >"$scratch/apt/etc/trixie.sources" <<SOURCES
Types: deb
URIs: $mirror
Suites: trixie
Components: main
Signed-By: $keyring
SOURCES
apt_opts=(
  -o "Dir::Etc::SourceList=/dev/null"
  -o "Dir::Etc::SourceParts=$scratch/apt/etc"
  -o "Dir::Etc::Preferences=/dev/null"
  -o "Dir::Etc::PreferencesParts=$scratch/apt/etc/preferences.d"
  -o "Dir::State::Lists=$scratch/apt/lists"
  -o "Dir::State::status=/dev/null"
  -o "Dir::Cache=$scratch/apt/cache"
  -o "Debug::NoLocking=1"
  -o "APT::Get::List-Cleanup=0"
  -o "Acquire::Languages=none"
  -o "APT::Sandbox::User=root"
)
apt_retry apt-get "${apt_opts[@]}" -qq --error-on=any update || die "apt-get update of trixie failed ($mirror)"
(cd "$scratch/deb" && apt_retry apt-get "${apt_opts[@]}" -qq download libgpiod-dev) ||
  die "apt-get download libgpiod-dev (trixie) failed"
deb=$(ls "$scratch"/deb/libgpiod-dev_*.deb)
say "$(basename "$deb")"
dpkg -x "$deb" "$scratch/root"
header="$scratch/root/usr/include/gpiod.h"
[ -r "$header" ] || die "no gpiod.h in $(basename "$deb")"
if grep -q GPIOD_LINE_BULK_MAX_LINES "$header"; then die "trixie's gpiod.h looks like v1"; fi

cflags=(-std=c11 -Wall -Wextra -Werror -ISources/CPomodoroHW/include)

# Each check prints why it failed (expect shows it).
v2_branch() {
  local obj="$scratch/gpio-v2.o" undefined sym
  cc "${cflags[@]}" -DPOMODORO_HAVE_GPIOD -I"$scratch/root/usr/include" -c Sources/CPomodoroHW/gpio.c -o "$obj" ||
    { echo "gpio.c does not compile against libgpiod v2"; return 1; }
  undefined=$(nm -u "$obj")
  for sym in gpiod_chip_request_lines gpiod_line_settings_set_debounce_period_us gpiod_line_request_read_edge_events; do
    grep -qw "$sym" <<<"$undefined" || { echo "v2 object does not reference $sym: the v2 branch was not compiled"; return 1; }
  done
  if grep -qw gpiod_line_request_both_edges_events_flags <<<"$undefined"; then echo "v2 object references v1 symbols"; return 1; fi
}
v1_branch() {
  cc "${cflags[@]}" -DPOMODORO_HAVE_GPIOD -c Sources/CPomodoroHW/gpio.c -o "$scratch/gpio-v1.o" ||
    { echo "gpio.c does not compile against the host's libgpiod v1"; return 1; }
  grep -qw gpiod_line_request_both_edges_events_flags <<<"$(nm -u "$scratch/gpio-v1.o")" ||
    { echo "v1 object does not reference gpiod_line_request_both_edges_events_flags"; return 1; }
}
no_gpiod() {
  cc "${cflags[@]}" -c Sources/CPomodoroHW/gpio.c -o "$scratch/gpio-none.o" || { echo "'not installed' body does not compile"; return 1; }
  if grep -q gpiod_ <<<"$(nm -u "$scratch/gpio-none.o")"; then echo "'not installed' body references libgpiod"; return 1; fi
}

expect "v2 branch compiled against trixie's libgpiod v2 (references gpiod_chip_request_lines, none of v1's)" v2_branch
if [ -r /usr/include/gpiod.h ] && grep -q GPIOD_LINE_BULK_MAX_LINES /usr/include/gpiod.h; then
  expect "v1 branch compiled against the host's header" v1_branch
else
  skip "v1 branch" "the host has no libgpiod v1 header (/usr/include/gpiod.h)"
fi
expect "not-installed body compiled (no libgpiod symbol)" no_gpiod
test_done check-gpiod-v2
