# shellcheck shell=dash
# Proves the chain with the stock tools before the device runs: line names, inputs driven
# through `pull`, bias and edges seen through the character device, an output read back
# through `value`, and I2C block writes reaching i2c-stub and the smbus_write trace.
T=/opt/tools

check chain-gpio-names "gpiofind GPIO17 gave '$($T/gpiofind GPIO17)', expected '$SIM_CHIP 17'" \
  [ "$($T/gpiofind GPIO17)" = "$SIM_CHIP 17" ]

pin_pull 17 up
high=$($T/gpioget "$SIM_CHIP" 17)
pin_pull 17 down
low=$($T/gpioget "$SIM_CHIP" 17)
check chain-gpio-input "gpioget read $high after pull-up and $low after pull-down, expected 1 and 0" \
  [ "$high$low" = 10 ]

# A bias request reaches the line: gpiomon with pull-up sees the pull-down that follows.
$T/gpiomon -B pull-up -n 1 -f "$SIM_CHIP" 22 >/tmp/gpiomon.out 2>&1 &
mon=$!
wait_for 10 sh -c "$T/gpioinfo $SIM_CHIP | grep -q 'GPIO22\".*\"gpiomon\".*pull-up'"
check chain-gpio-bias "gpioinfo does not show GPIO22 held by gpiomon with pull-up: $($T/gpioinfo "$SIM_CHIP" | grep GPIO22\")" \
  sh -c "$T/gpioinfo $SIM_CHIP | grep -q 'GPIO22\".*\"gpiomon\".*pull-up'"
pin_pull 22 down
wait_for 10 exited "$mon"
check chain-gpio-edge "gpiomon saw no falling edge on GPIO22: $(cat /tmp/gpiomon.out)" grep -q FALLING /tmp/gpiomon.out
kill "$mon" 2>/dev/null
pin_pull 22 up

$T/gpioset --mode=signal "$SIM_CHIP" 25=1 &
setter=$!
wait_for 10 pin_is 25 1
check chain-gpio-output "sim_gpio25/value is $(pin_value 25) while gpioset drives GPIO25 high" pin_is 25 1
kill "$setter"
wait "$setter" 2>/dev/null

trace_clear
$T/i2cset -y 0 0x3c 0x00 0xae 0x8d 0x14 0xaf i
block=$(trace_blocks 3c)
check chain-i2c-trace "trace shows '$block', expected '0 4 ae 8d 14 af'" [ "$block" = "0 4 ae 8d 14 af" ]
check chain-i2c-stub "i2cget of register 0x01 gave $($T/i2cget -y 0 0x3c 0x01), expected 0x8d" \
  [ "$($T/i2cget -y 0 0x3c 0x01)" = 0x8d ]
trace_clear
