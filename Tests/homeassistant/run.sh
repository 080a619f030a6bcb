#!/usr/bin/env bash
# Tests/homeassistant/run.sh: `pomodoro mqtt` against a real Home Assistant. A Debian trixie root
# (debootstrap, minbase) with its Python 3.13 and Home Assistant 2026.2.3 from PyPI in a venv,
# installed with the package constraints from Home Assistant's own wheel, plus the requirements of
# the integrations it loads (their manifests, walked by ha.py), so that `hass --skip-pip` starts.
# Then, in a network namespace of its own with only `lo` (nothing leaves the machine): mosquitto on
# 127.0.0.1, Home Assistant onboarded through its REST API with the MQTT integration set up through
# its config flow, the interactive simulator (under tmux, for its terminal) with its control
# socket, and the bridge. Checks, from Home Assistant's own states and registries (ha.py):
#   - every announced entity (the discovery configs the bridge retained) with its id, device
#     class, unit and options, on one device with its software version; README's ids
#   - a press of every button and a set of the select and the number, each seen on the device
#     (`pomodoro ctl status --json`) and back in Home Assistant (the press-to-state latency);
#     a set outside the picker refused by the device and said in the bridge's log
#   - docs/homeassistant.md's automation (the desk lamp red while focusing) and card's entities
#   - unavailable after SIGKILL of the bridge and back after its restart; unavailable while the
#     device does not answer (SIGSTOP) and back after SIGCONT
#   - the same entities after a restart of Home Assistant, none duplicated
#   - the old device gone after a rename (mqtt_device_id), and the device gone after
#     `pomodoro mqtt --remove`
#   - no warning or error in home-assistant.log naming pomodoro, mqtt or the payloads
# Prints PASS/FAIL lines, the figures, the time of each stage, and `N passed, M failed`.
#
# Usage: sudo bash Tests/homeassistant/run.sh [--root DIR] [--keep] [--binary FILE]
#                                               [--ha-version V --suite S]
#   --root DIR      the Debian root to make (or reuse: one a --keep run finished is taken as it is)
#   --keep          keep the root afterwards (about 1.3 GB)
#   --binary FILE   the pomodoro to test (default .build/debug/pomodoro, built when missing)
#   --ha-version V  another Home Assistant (default 2026.2.3, the newest for trixie's Python 3.13),
#   --suite S       in a root of another Debian suite whose Python it supports: 2026.3 and later
#                   need Python 3.14 (`--ha-version 2026.11.0 --suite testing`)
# Environment: DEBIAN_MIRROR (default: debootstrap's own), PIP_CERT (a CA bundle for pip in the
# root; default the host's /etc/ssl/certs/ca-certificates.crt).
set -uo pipefail

HA_VERSION=2026.2.3
SUITE=trixie
readonly READY_MARK=.pomodoro-homeassistant-ready
PROG=homeassistant/run.sh
SAY_FD=2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=Tests/lib/host.sh
source "$here/../lib/host.sh"
repo=$REPO

# --- the test itself, in its own network namespace (run.sh --inner) ---------------------------
if [[ "${1:-}" == --inner ]]; then
  # shellcheck source=Tests/homeassistant/inner.sh
  source "$here/inner.sh"
  exit 0
fi

root=""
binary=""
parse_args --root=root --binary=binary --ha-version=HA_VERSION --suite=SUITE -- "$@"

[[ $EUID -eq 0 ]] || die "needs root (debootstrap, chroot, mounts, a network namespace): run it with sudo"
for tool in debootstrap unshare ip mosquitto mosquitto_sub tmux; do
  command -v "$tool" >/dev/null || die "$tool is missing: apt-get install debootstrap util-linux iproute2 mosquitto mosquitto-clients tmux"
done

root_folder homeassistant
# shellcheck disable=SC2317 # when_finished's
report() {
  stage_times
  test_done || true
}
when_finished report
when_finished root_cleanup

# --- 1. the root, Python, Home Assistant --------------------------------------------------------
stage "the pomodoro binary"
if [[ -z "$binary" ]]; then
  binary="$repo/.build/debug/pomodoro"
  if [[ ! -x "$binary" ]]; then
    (cd "$repo" && swift build --product pomodoro) >&2 || die "swift build failed"
  fi
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
grep -qF ', libmosquitto,' <<<"$("$binary" --version)" || die "$binary was built without libmosquitto: apt-get install libmosquitto-dev and rebuild"

venv=/opt/homeassistant
in_venv() { # in_venv COMMAND...: in the root with the venv first on PATH and pip's CA bundle
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PIP_CERT=/etc/ssl/certs/host-ca.crt \
    PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_DEFAULT_TIMEOUT=60 PATH="$venv/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$@"
}

if [[ -f "$root/$READY_MARK" ]]; then
  [[ "$(cat "$root/$READY_MARK")" == "$HA_VERSION" ]] ||
    die "$root holds Home Assistant $(cat "$root/$READY_MARK"), not $HA_VERSION: give another --root"
  stage "reusing Home Assistant $HA_VERSION in $root"
  root_mounts
else
  stage "debootstrap $SUITE"
  debootstrap_root "$SUITE" "${DEBIAN_MIRROR:-}"
  root_mounts
  # The build tools for the few wheels PyPI has only as source for the suite's Python (lru-dict;
  # on Python 3.14 also the C++ of pymicro-vad and pyspeex-noise).
  apt_in_root install -y -qq python3 python3-venv python3-dev gcc g++ libc6-dev ca-certificates >/dev/null ||
    die "apt-get install python3 in the root failed"
  stage "Home Assistant $HA_VERSION from PyPI, with its own package constraints"
  cp -L "${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}" "$root/etc/ssl/certs/host-ca.crt"
  in_venv python3 -m venv "$venv" || die "python3 -m venv failed"
  mkdir -p "$root/var/cache/ha-wheel"
  apt_retry in_venv pip download -q --no-deps -d /var/cache/ha-wheel "homeassistant==$HA_VERSION" ||
    die "pip download homeassistant==$HA_VERSION failed"
  wheel="$(cd "$root/var/cache/ha-wheel" && ls homeassistant-"$HA_VERSION"-*.whl)"
  in_venv python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("homeassistant/package_constraints.txt"))' \
    "/var/cache/ha-wheel/$wheel" >"$root/var/cache/ha-wheel/constraints.txt" || die "no package_constraints.txt in $wheel"
  apt_retry in_venv pip install -q -c /var/cache/ha-wheel/constraints.txt "/var/cache/ha-wheel/$wheel" >&2 ||
    die "pip install homeassistant failed"
  stage "the requirements of the integrations it loads"
  mkdir -p "$root/test"
  cp "$here/ha.py" "$root/test/ha.py"
  in_venv python3 /test/ha.py requirements mqtt automation template >"$root/var/cache/ha-wheel/requirements.txt" ||
    die "ha.py requirements failed"
  apt_retry in_venv pip install -q -c /var/cache/ha-wheel/constraints.txt -r /var/cache/ha-wheel/requirements.txt >&2 ||
    die "pip install of the integrations' requirements failed"
  echo "$HA_VERSION" >"$root/$READY_MARK"
fi

# --- 2. the test, in a network namespace of its own --------------------------------------------
stage "the test (network namespace with lo only)"
mkdir -p "$root/test"
cp "$here/ha.py" "$root/test/ha.py"
rm -rf --one-file-system "$root/ha"
mkdir -p "$root/ha"
inner_log="$root/inner.log"
ROOT="$root" BINARY="$binary" REPO="$repo" unshare --net -- bash "$0" --inner | tee "$inner_log"
count_results "$inner_log"
if ! grep -q '^inner: done' "$inner_log"; then fail "the test stopped before its end"; fi
exit $((FAILED > 0))
