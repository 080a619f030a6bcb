#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Real-kernel test of the `pomodoro` device: boots a Debian kernel under QEMU with a
# simulated GPIO chip (gpio-sim, lines named as on a Pi header) and I2C adapter (i2c-stub at
# 0x3C), runs `pomodoro run` against them as a person would, and reports `PASS`/`FAIL` lines
# and `N passed, M failed`. Exits non-zero if any check failed or the guest did not report.
#
# Runs from a clean Debian 12 machine as root (installs what it needs with apt).
# Environment: HIL_CHECKS=all|chain|device (default all), HIL_BINARY=path (skip the build),
# HIL_WORK=dir (parent of the scratch folder, default /tmp), HIL_KEEP=1 (keep the scratch
# folder for debugging), HIL_BOOT_TIMEOUT=seconds (default 300), HIL_KERNEL_SERIES (6.1).
#
# Usage: sudo bash Tests/hil/run.sh [--keep] [--source DIR]
#   --keep        keep the scratch folder (as HIL_KEEP=1)
#   --source DIR  the package whose binary is built (default: this repository)
set -euo pipefail

HIL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$HIL_DIR/../.." && pwd)
HIL_CHECKS=${HIL_CHECKS:-all}
. "$HIL_DIR/lib/common.sh"
keep=${HIL_KEEP:-0}
parse_args -- "$@"
. "$HIL_DIR/lib/packages.sh"
. "$HIL_DIR/lib/gpio-sim-module.sh"
. "$HIL_DIR/lib/binary.sh"
. "$HIL_DIR/lib/initramfs.sh"
. "$HIL_DIR/lib/boot.sh"

case "$HIL_CHECKS" in all | chain | device) ;; *) die "HIL_CHECKS=$HIL_CHECKS: expected all, chain or device" ;; esac

RUN_START=$(now_s)
mkdir -p "${HIL_WORK:-/tmp}"
WORK=$(mktemp -d "${HIL_WORK:-/tmp}/pomodoro-hil.XXXXXX")
QEMU_PID=""

# On every exit path: stop QEMU, remove the scratch folder, and make sure a summary line
# is printed (a setup failure counts as one failed check).
# shellcheck disable=SC2317 # when_finished's
stop_qemu() { [[ -z "$QEMU_PID" ]] || kill "$QEMU_PID" 2>/dev/null; }
when_finished setup_failed hil-setup
if ((keep)); then when_finished say "scratch kept in $WORK"; else when_finished rm -rf "$WORK"; fi
when_finished stop_qemu

say "scratch folder $WORK"
install_host_packages
fetch_kernel
step=$(now_s)
build_gpio_sim_module
say "gpio-sim.ko built in $(elapsed_s "$step") s"
BINARY=""
if [ "$HIL_CHECKS" != chain ]; then
  step=$(now_s)
  build_binary "$source_dir"
  say "binary $BINARY ($(stat -c %s "$BINARY") bytes) ready in $(elapsed_s "$step") s"
fi
build_initramfs "$BINARY"
say "booting $KVER under QEMU (TCG), initramfs $HIL_INITRAMFS_BYTES bytes"
boot_guest "$HIL_CHECKS"
guest_results
REPORTED=1
say "figures: total_wall $(elapsed_s "$RUN_START") s, qemu_wall $BOOT_SECONDS s," \
  "boot_to_init ${GUEST_UP_SECONDS:-?} s, boot_to_result ${GUEST_SECONDS:-?} s (guest uptime)," \
  "downloads $HIL_DOWNLOAD_BYTES bytes of kernel image and source packages" \
  "+ apt-get install: $(grep -h '^Need to get' "$WORK/apt-install.log" | tr '\n' ' ' || true)"
test_done
