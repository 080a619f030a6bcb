#!/usr/bin/env bash
# Tests/install/run.sh: one install, the Debian package's (docs/install.md): no install script
# beside it, and the package's files agree with each other, without building it. Each unit in
# deploy/ is the one the package ships, as it is: it runs the binary where
# deploy/debian/pomodoro.install puts it, as a user its sysusers file makes, in the groups the
# sysusers file gives it and the udev rule gives the devices to. Needs no root.
# Usage: bash Tests/install/run.sh
set -euo pipefail
PROG=install
# shellcheck source=Tests/lib/host.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
parse_args -- "$@"
cd "$REPO"
debian=deploy/debian

check "one install: no deploy/install.sh beside the package" "it is back" [ ! -e deploy/install.sh ]
named=$(grep -lE 'install\.sh' README.md Sources/*/*.swift deploy/*.service 2>/dev/null || true)
check "README, the sources and the units name no install script" "named in: $named" [ -z "$named" ]
check "debian/rules ships deploy's units as they are" "$(grep -n 'service' "$debian/rules")" \
  grep -qE '^\s+cp deploy/\*\.service debian/$' "$debian/rules"
# One unit a package, named after it (dh_installsystemd takes debian/PACKAGE.service): every
# Package: of debian/control has deploy/PACKAGE.service, and every unit there is a package's.
mapfile -t packages < <(binary_packages)
units=$(find deploy -maxdepth 1 -name '*.service' -printf '%f\n' | sed 's/\.service$//' | sort | xargs)
check "deploy's units are debian/control's packages, one each" "units: $units; packages: ${packages[*]}" \
  [ "$units" = "$(printf '%s\n' "${packages[@]}" | sort | xargs)" ]

# value UNIT KEY: the value of KEY= in deploy/UNIT.service.
value() { sed -n "s/^$2=//p" "deploy/$1.service"; }
binary=/$(awk '$1 == "debian/build/pomodoro" { print $2 }' "$debian/pomodoro.install")/pomodoro
for unit in "${packages[@]}"; do
  exec_start=$(value "$unit" ExecStart)
  check "$unit.service runs the package's $binary" "ExecStart=$exec_start" [ "${exec_start%% *}" = "$binary" ]
  user=$(value "$unit" User)
  check "$unit.service's user $user is made by $unit.sysusers" "$(cat "$debian/$unit.sysusers")" \
    grep -qE "^u $user " "$debian/$unit.sysusers"
  # A home is the unit's state directory (ssh's ~/.ssh for a hook), or none at all.
  home=$(awk -v u="$user" '$1 == "u" && $2 == u { print $(NF - 1) }' "$debian/$unit.sysusers")
  check "$unit.sysusers gives $user no home, or $unit.service's state directory" \
    "home $home; StateDirectory=$(value "$unit" StateDirectory)" \
    bash -c "[ '$home' = /nonexistent ] || [ '$home' = '/var/lib/$(value "$unit" StateDirectory)' ]"
  for group in $(value "$unit" SupplementaryGroups); do
    check "$unit.service's group $group: $unit.sysusers puts $user in it" "$(cat "$debian/$unit.sysusers")" \
      grep -qx "m $user $group" "$debian/$unit.sysusers"
  done
done
# The bridge's own binary: built and installed by debian/rules, shipped by pomodoro-mqtt where
# `pomodoro mqtt` looks for it (../lib/pomodoro from the binary's folder).
helper=/$(awk '$1 == "debian/build/pomodoro-mqtt" { print $2 }' "$debian/pomodoro-mqtt.install")/pomodoro-mqtt
check "pomodoro-mqtt ships its binary where pomodoro mqtt execs it" "pomodoro-mqtt.install puts it at $helper" \
  [ "$helper" = "$(dirname "$(dirname "$binary")")/lib/pomodoro/pomodoro-mqtt" ]
check "debian/rules builds and installs pomodoro-mqtt" "$(grep -n 'pomodoro-mqtt' "$debian/rules")" \
  grep -q 'install -m 0755 .*/pomodoro-mqtt" debian/build/pomodoro-mqtt$' "$debian/rules"
for group in gpio i2c; do
  check "the udev rule gives devices to the group $group, which pomodoro.sysusers makes" "$(cat "$debian/pomodoro.udev")" \
    bash -c "grep -q 'GROUP=\"$group\"' '$debian/pomodoro.udev' && grep -qx 'g $group - -' '$debian/pomodoro.sysusers'"
done

# The passive buzzer's PWM (docs/sound.md): the udev rule gives its attributes to the device's
# group, and the unit may write where they are.
group=$(value pomodoro Group)
check "the udev rule gives the PWM's export and a channel's attributes to $group, pomodoro.service's group" \
  "$(grep pwm "$debian/pomodoro.udev")" \
  bash -c "grep -q 'chgrp $group /sys%p/export' '$debian/pomodoro.udev' && grep -q 'chgrp $group /sys%p/\$env{EXPORT}/period' '$debian/pomodoro.udev'"
check "pomodoro.service may write the PWM's attributes under /sys/devices/platform" "$(value pomodoro ReadWritePaths)" \
  [ "$(value pomodoro ReadWritePaths)" = "-/sys/devices/platform" ]

test_done install
