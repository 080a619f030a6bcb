# shellcheck shell=dash
# The guest's summary, and the waits and module loading its checks share.
# The checks and the closing count come from deploy/lib/test-lib.sh (pass, fail, check,
# test_done), sourced before this file (in the guest: /hil/lib/test-lib.sh).

# report_summary: the line the host waits for (guest uptime is the boot-to-result figure).
report_summary() {
  echo "hil: guest done after $(cut -d' ' -f1 /proc/uptime) s"
  test_done hil
}

# wait_for SECONDS CMD...: retries CMD every 50 ms until it succeeds (0) or time runs out (1).
wait_for() {
  deadline=$(($(date +%s) + $1))
  shift
  while ! "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    usleep 50000
  done
}

# exited PID: whether process PID has ended (gone, or a zombie not yet waited for).
exited() { [ ! -d "/proc/$1" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat")" = Z ]; }

# load_modules LIST: insmod each `file.ko args` line of LIST, in order.
load_modules() {
  while read -r ko args; do
    # shellcheck disable=SC2086 # module parameters are separate words
    insmod "/lib/modules/$ko" $args || fail "module-${ko%.ko}" "insmod /lib/modules/$ko $args failed"
  done <"$1"
}
