# shellcheck shell=bash disable=SC2034 # variables set here are read by run.sh
# Builds the device binary for the guest (sourced by run.sh): release mode, against this
# machine's libgpiod (v1) and libi2c, with the Swift runtime and libstdc++ linked in statically
# so only libc, libgpiod and libi2c remain to copy (ldd). Sets BINARY.

build_binary() {
  local root=$1 bin
  if [ -n "${HIL_BINARY:-}" ]; then
    BINARY=$HIL_BINARY
    [ -x "$BINARY" ] || die "HIL_BINARY=$BINARY is not an executable file"
    return 0
  fi
  command -v swift >/dev/null || die "swift not in PATH: install Swift 6 (or set HIL_BINARY to a built pomodoro)"
  if [ ! -f /usr/include/gpiod.h ] || [ ! -f /usr/include/i2c/smbus.h ]; then
    die "libgpiod-dev or libi2c-dev missing: the binary would have no hardware backend"
  fi
  # --manifest-cache none: SwiftPM caches what Package.swift found (the headers) across runs,
  # even from before libgpiod-dev was installed.
  (cd "$root" && swift build -c release --product pomodoro --static-swift-stdlib --manifest-cache none) >"$WORK/swift-build.log" 2>&1 ||
    { tail -n 30 "$WORK/swift-build.log" >&2; die "swift build -c release --product pomodoro failed (in $root)"; }
  bin=$(cd "$root" && swift build -c release --product pomodoro --static-swift-stdlib --manifest-cache none --show-bin-path)
  BINARY="$bin/pomodoro"
  # The whole of ldd is read before grep looks: `ldd | grep -q` under pipefail fails whenever
  # grep stops reading before ldd has written its last line (ldd then dies of SIGPIPE).
  grep -q libgpiod <<<"$(ldd "$BINARY")" || die "$BINARY does not link libgpiod: was it built with POMODORO_NO_HARDWARE=1?"
}
