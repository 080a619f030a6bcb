#!/bin/sh
# shellcheck shell=dash
# ExecStart of systest-driver.service: runs the part of the system test that the kernel command
# line names (systest=main, cut or final; part-*.sh), after boot has finished.
exec >/dev/ttyS0 2>&1
mkdir -p /run/systest
# shellcheck source=Tests/system/guest/lib.sh
. /usr/local/lib/systest/lib.sh
part=$(sed -n 's/.*systest=\([a-z]*\).*/\1/p' /proc/cmdline)
# shellcheck disable=SC2034 # read by part-cut.sh and part-final.sh
CUT=$(sed -n 's/.*systest_cut=\([0-9]*\).*/\1/p' /proc/cmdline)
say "driver up after $(cut -d' ' -f1 /proc/uptime) s (part $part)"
systemctl is-system-running --wait >/dev/null 2>&1 || true
say "boot finished after $(cut -d' ' -f1 /proc/uptime) s: $(systemctl is-system-running)"
[ "$part" != main ] || say "modules: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
follow_journal
case "$part" in
main | cut | final)
  # shellcheck source=Tests/system/guest/part-main.sh
  . "$SYSTEST/part-$part.sh"
  ;;
*) fail systest-part "unknown systest=$part on the kernel command line" ;;
esac
say "part $part done: $(test_done)"
