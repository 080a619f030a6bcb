#!/bin/sh
# shellcheck shell=dash
# ExecStart of systest-sim.service (test-only, ordered before pomodoro.service): what a Pi has
# at boot and this VM lacks. A GPIO chip with lines GPIO0..GPIO27 (gpio-sim, built for this
# kernel), inputs pulled up as the Pi's pull-ups hold open contacts; an I2C bus 1 with a
# device at 0x3C (i2c-stub after QEMU's i2c_piix4 took bus 0); the smbus_write trace on.
exec >/dev/ttyS0 2>&1
mkdir -p /run/systest
GUEST_LIB=/usr/local/lib/systest/lib
# shellcheck source=Tests/lib/guest.sh
. $GUEST_LIB/guest.sh

modprobe i2c_piix4 2>/dev/null || true
modprobe i2c-stub chip_addr=0x3c || echo "FAIL sim-i2c-stub: modprobe i2c-stub failed"
modprobe i2c-dev || true
modprobe configfs || true
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
modprobe gpio-sim || echo "FAIL sim-gpio: modprobe gpio-sim failed"
trace_start
if sim_create >/dev/null; then
  inputs_at_rest
  printf 'SIM_CHIP=%s\nSIM_DIR=%s\n' "$SIM_CHIP" "$SIM_DIR" >/run/systest/sim.env
fi
bus=$(basename "$(dirname "$(grep -l 'SMBus stub' /sys/class/i2c-dev/*/name 2>/dev/null | head -n 1)")")
# The device nodes' groups come from the package's udev rule: wait for those two nodes only
# (udevadm settle would wait for the whole boot's queue of events).
# shellcheck disable=SC2317 # called by wait_for
nodes_ready() {
  [ "$(stat -c %G "/dev/$SIM_CHIP" 2>/dev/null)" = gpio ] && [ "$(stat -c %G "/dev/$bus" 2>/dev/null)" = i2c ]
}
wait_for 10 nodes_ready
echo "systest: gpio-sim /dev/$SIM_CHIP ($(stat -c %G "/dev/$SIM_CHIP")), i2c-stub /dev/$bus ($(stat -c %G "/dev/$bus"))"
exit 0
