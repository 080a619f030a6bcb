# shellcheck shell=dash
# Tests/lib/test-lib.sh: the checks and the closing count of every shell test suite (git's
# t/test-lib.sh is the model). Sourced, not run; POSIX sh, so that the HIL guest's busybox sh and
# the system guest's dash run it as the bash suites on the host do (Tests/hil/lib/initramfs.sh
# and Tests/system/run.sh copy it into their guests).
#
#   pass NAME                  a `PASS NAME` line
#   fail NAME [WHY [MORE...]]  a `FAIL NAME: WHY` line (WHY's first line); WHY's further lines
#                              and each MORE below it, indented, at most 30 lines each
#   skip NAME WHY              a `SKIP NAME: WHY` line; neither passed nor failed
#   check NAME WHY COMMAND...  runs COMMAND here (its output shown): pass NAME, or fail NAME WHY
#   expect NAME COMMAND...     runs COMMAND with its output captured: pass NAME, or fail NAME
#                              with the output's last 5 lines
#   count_results FILE         adds FILE's `PASS `/`FAIL ` lines (a guest's, a child's) to the counts
#   test_done [PREFIX]         the closing `[PREFIX: ]N passed, M failed` (`, K skipped` when
#                              some were); returns 1 if any failed, else 0
#   wait_for SECONDS CMD...    the one poll loop of the suites: CMD again every 50 ms (every
#                              WAIT_EVERY_US us when set, for a costly CMD) until it succeeds (0)
#                              or SECONDS have passed (1); what a test waits for is an event (a
#                              line, a state, a file, a message), never a time
#   exited PID                 whether process PID has ended (gone, or a zombie not yet waited for)
#   usleep US                  where the system has none (busybox has it; coreutils' sleep
#                              takes fractions)
#
# The counts are PASSED, FAILED and SKIPPED. .ci/run's run_step reads the closing line.
PASSED=0
FAILED=0
SKIPPED=0

pass() {
  echo "PASS $1"
  PASSED=$((PASSED + 1))
}

fail() {
  FAILED=$((FAILED + 1))
  if [ $# -lt 2 ] || [ -z "$2" ]; then
    echo "FAIL $1"
  else
    printf 'FAIL %s: %s\n' "$1" "$(printf '%s\n' "$2" | head -n 1)"
    printf '%s\n' "$2" | sed -n '2,31s/^/      /p'
  fi
  [ $# -gt 2 ] || return 0
  shift 2
  local _tl_more
  for _tl_more in "$@"; do printf '%s\n' "$_tl_more" | head -n 30 | sed 's/^/      /'; done
}

skip() {
  echo "SKIP $1: $2"
  SKIPPED=$((SKIPPED + 1))
}

# (local: dash, busybox sh and bash all have it; a COMMAND that checks too keeps these.)
check() {
  local _tl_name=$1 _tl_why=$2
  shift 2
  if "$@"; then pass "$_tl_name"; else fail "$_tl_name" "$_tl_why"; fi
}

expect() {
  local _tl_name=$1 _tl_out
  shift
  if _tl_out=$("$@" 2>&1); then
    pass "$_tl_name"
  else
    fail "$_tl_name" "$(printf '%s\n' "$_tl_out" | tail -n 5)"
  fi
}

# FILE is read once: a pipe (`<(...)`) gives its lines to the first reader only.
count_results() {
  local _tl_lines
  _tl_lines=$(cat "$1")
  PASSED=$((PASSED + $(printf '%s\n' "$_tl_lines" | grep -c '^PASS ' || true)))
  FAILED=$((FAILED + $(printf '%s\n' "$_tl_lines" | grep -c '^FAIL ' || true)))
}

# shellcheck disable=SC2120 # PREFIX is optional
test_done() {
  if [ "$SKIPPED" -gt 0 ]; then
    echo "${1:+$1: }$PASSED passed, $FAILED failed, $SKIPPED skipped"
  else
    echo "${1:+$1: }$PASSED passed, $FAILED failed"
  fi
  [ "$FAILED" -eq 0 ]
}

command -v usleep >/dev/null 2>&1 || usleep() { sleep "$(($1 / 1000000)).$(printf '%06d' $(($1 % 1000000)))"; }

# The limit is generous (CI shares two busy cores): a wait returns as soon as its event comes, so
# the limit is only how long a broken test hangs before its check says what never came.
wait_for() {
  local _tl_deadline
  _tl_deadline=$(($(date +%s) + $1))
  shift
  while ! "$@"; do
    [ "$(date +%s)" -lt "$_tl_deadline" ] || return 1
    usleep "${WAIT_EVERY_US:-50000}" # the poll interval
  done
}

exited() { [ ! -d "/proc/$1" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]; }
