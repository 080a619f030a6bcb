# shellcheck shell=dash
# Results of the guest's checks: one `PASS name` or `FAIL name: why` line each, then the summary.
PASSED=0
FAILED=0

# pass NAME
pass() {
  echo "PASS $1"
  PASSED=$((PASSED + 1))
}

# fail NAME WHY
fail() {
  echo "FAIL $1: $2"
  FAILED=$((FAILED + 1))
}

# check NAME WHY CMD...: pass NAME if CMD succeeds, else fail NAME with WHY.
check() {
  name=$1
  why=$2
  shift 2
  if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}

# report_summary: the line the host waits for (guest uptime is the boot-to-result figure).
report_summary() {
  echo "hil: guest done after $(cut -d' ' -f1 /proc/uptime) s"
  echo "hil: $PASSED passed, $FAILED failed"
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
