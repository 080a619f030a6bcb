# shellcheck shell=bash disable=SC2034 # variables set here are read by run.sh
# Shared helpers for the host side of the QEMU hardware-in-the-loop test (sourced by run.sh).



# now_s: wall-clock seconds with fractions, for the figures.
now_s() { date +%s.%N; }

# elapsed_s START: seconds since START (from now_s), one decimal.
elapsed_s() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'; }

# as_root CMD...: runs CMD as root (directly, or through sudo when not root).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -n "$@"
  else
    die "run as root (or with passwordless sudo): apt-get installs are needed"
  fi
}

# The host library (Tests/lib/host.sh: say, die, parse_args, when_finished, the checks...).
PROG=hil    # say and die: `hil: ...` on stderr, apart from the guest's lines
SAY_FD=2
# shellcheck source=Tests/lib/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/host.sh"

# host_apt ARGS...: apt-get ARGS as root, retried with back-off on a failed download or a held lock.
host_apt() {
  apt_retry --tries 4 as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3 "$@"
}
