# shellcheck shell=dash
# The simulated GPIO chip (gpio-sim through configfs) with lines named as on a Raspberry Pi
# header, and a person's hands on it: each input line is driven through its `pull` attribute.

SIM_CONFIG=/sys/kernel/config/gpio-sim/hil
SIM_LINES=28

# sim_create: a live chip with lines GPIO0..GPIO27 at offsets 0..27; sets SIM_CHIP and SIM_DIR.
sim_create() {
  mkdir "$SIM_CONFIG" "$SIM_CONFIG/bank0" || {
    fail gpio-sim "no $SIM_CONFIG: gpio-sim or configfs did not load"
    return 1
  }
  echo "$SIM_LINES" >"$SIM_CONFIG/bank0/num_lines"
  echo pomodoro-hil >"$SIM_CONFIG/bank0/label"
  # One mkdir for all the lines (a process each costs tens of ms under TCG); echo is built in.
  i=0
  set --
  while [ "$i" -lt "$SIM_LINES" ]; do
    set -- "$@" "$SIM_CONFIG/bank0/line$i"
    i=$((i + 1))
  done
  mkdir "$@"
  i=0
  while [ "$i" -lt "$SIM_LINES" ]; do
    echo "GPIO$i" >"$SIM_CONFIG/bank0/line$i/name"
    i=$((i + 1))
  done
  echo 1 >"$SIM_CONFIG/live" || {
    fail gpio-sim "writing live=1 to $SIM_CONFIG failed"
    return 1
  }
  SIM_CHIP=$(cat "$SIM_CONFIG/bank0/chip_name")
  SIM_DIR=/sys/devices/platform/$(cat "$SIM_CONFIG/dev_name")/$SIM_CHIP
  [ -e "$SIM_DIR/sim_gpio0/pull" ] || {
    fail gpio-sim "no $SIM_DIR/sim_gpio0/pull"
    return 1
  }
  [ -c "/dev/$SIM_CHIP" ] || {
    fail gpio-sim "no /dev/$SIM_CHIP"
    return 1
  }
  echo "hil: gpio-sim chip /dev/$SIM_CHIP, lines in $SIM_DIR"
}

# pin_pull OFFSET up|down: the outside world pulls the line high or low.
pin_pull() { echo "pull-$2" >"$SIM_DIR/sim_gpio$1/pull"; }

# pin_value OFFSET: the line's level as the chip drives or sees it (0 or 1).
pin_value() { cat "$SIM_DIR/sim_gpio$1/value"; }

# pin_is OFFSET LEVEL: whether the line is at LEVEL now.
pin_is() { [ "$(pin_value "$1")" = "$2" ]; }

# press OFFSET [MS]: an active-low button held down for MS (default 150) ms, then released.
press() {
  pin_pull "$1" down
  usleep $((${2:-150} * 1000))
  pin_pull "$1" up
}

# turn A B DETENTS cw|ccw [GAP_MS]: DETENTS full quadrature cycles (4 transitions, 8 ms
# apart) on encoder lines A and B, GAP_MS (default 300) between detents. Clockwise: A leads.
turn() {
  n=0
  while [ "$n" -lt "$3" ]; do
    if [ "$4" = cw ]; then first=$1 second=$2; else first=$2 second=$1; fi
    pin_pull "$first" down
    usleep 8000
    pin_pull "$second" down
    usleep 8000
    pin_pull "$first" up
    usleep 8000
    pin_pull "$second" up
    usleep $((${5:-300} * 1000))
    n=$((n + 1))
  done
}
