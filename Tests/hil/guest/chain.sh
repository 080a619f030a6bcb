# shellcheck shell=dash
# Proves the chain with the stock tools before the device runs: line names, inputs driven
# through `pull`, bias and edges seen through the character device, an output read back
# through `value`, and I2C block writes reaching i2c-stub and the smbus_write trace.
T=/opt/tools

# The lines of the default wiring (Tests/lib/guest.sh): the encoder's A, its push, the buzzer.
check chain-gpio-names "gpiofind GPIO$ENC_A gave '$($T/gpiofind "GPIO$ENC_A")', expected '$SIM_CHIP $ENC_A'" \
  [ "$($T/gpiofind "GPIO$ENC_A")" = "$SIM_CHIP $ENC_A" ]

pin_pull "$ENC_A" up
high=$($T/gpioget "$SIM_CHIP" "$ENC_A")
pin_pull "$ENC_A" down
low=$($T/gpioget "$SIM_CHIP" "$ENC_A")
check chain-gpio-input "gpioget read $high after pull-up and $low after pull-down, expected 1 and 0" \
  [ "$high$low" = 10 ]

# A bias request reaches the line: gpiomon with pull-up sees the pull-down that follows.
$T/gpiomon -B pull-up -n 1 -f "$SIM_CHIP" "$ENC_PUSH" >/tmp/gpiomon.out 2>&1 &
mon=$!
wait_for 10 sh -c "$T/gpioinfo $SIM_CHIP | grep -q 'GPIO$ENC_PUSH\".*\"gpiomon\".*pull-up'"
check chain-gpio-bias "gpioinfo does not show GPIO$ENC_PUSH held by gpiomon with pull-up: $($T/gpioinfo "$SIM_CHIP" | grep "GPIO$ENC_PUSH\"")" \
  sh -c "$T/gpioinfo $SIM_CHIP | grep -q 'GPIO$ENC_PUSH\".*\"gpiomon\".*pull-up'"
pin_pull "$ENC_PUSH" down
wait_for 10 exited "$mon"
check chain-gpio-edge "gpiomon saw no falling edge on GPIO$ENC_PUSH: $(cat /tmp/gpiomon.out)" grep -q FALLING /tmp/gpiomon.out
kill "$mon" 2>/dev/null
pin_pull "$ENC_PUSH" up

$T/gpioset --mode=signal "$SIM_CHIP" "$BUZZER=1" &
setter=$!
wait_for 10 pin_is "$BUZZER" 1
check chain-gpio-output "sim_gpio$BUZZER/value is $(pin_value "$BUZZER") while gpioset drives GPIO$BUZZER high" pin_is "$BUZZER" 1
kill "$setter"
wait "$setter" 2>/dev/null

trace_clear
$T/i2cset -y 0 0x3c 0x00 0xae 0x8d 0x14 0xaf i
block=$(trace_blocks 3c)
check chain-i2c-trace "trace shows '$block', expected '0 4 ae 8d 14 af'" [ "$block" = "0 4 ae 8d 14 af" ]
check chain-i2c-stub "i2cget of register 0x01 gave $($T/i2cget -y 0 0x3c 0x01), expected 0x8d" \
  [ "$($T/i2cget -y 0 0x3c 0x01)" = 0x8d ]
trace_clear
