# shellcheck shell=bash
# deploy/lib/common.sh: the host library of every script under .ci, deploy and Tests (the
# checks and the closing count are Tests/lib/test-lib.sh's). Sourced, not run.
#   say MESSAGE..., die MESSAGE...   (prefixed with PROG; SAY_FD=2 sends say to stderr)
#   usage, usage_error [MESSAGE]     (--help's text, and a wrong command line's exit 64)
#   parse_args [SPEC...] -- ARGS...  the argument loop: --source, --keep, -h and the script's own
#   stage NAME, stage_times          the stages and their times
#   when_finished COMMAND            cleanup on every exit path, the last registered first
#   build_depends [--no-packaging], build_depends_names [--no-packaging|--libraries]
#   apt_retry [--tries N] [--between COMMAND] COMMAND...
#   usage_from_header FILE
#   release_version SOURCE, set_release_version SOURCE VERSION

# PROG: the name messages start with; the sourcing script may set it first (default: its file's
# name without .sh). SAY_FD: where say writes (1, or 2 where stdout carries results).
PROG=${PROG:-$(basename "$0" .sh)}

say() { printf '%s: %s\n' "$PROG" "$*" >&"${SAY_FD:-1}"; }

# die MESSAGE: the error on stderr, then exit 1 (the caller's EXIT trap cleans up).
die() {
  printf '%s: error: %s\n' "$PROG" "$*" >&2
  exit 1
}

# usage: the running script's usage (usage_from_header of $0), for --help.
usage() { usage_from_header "$0"; }

# REPO: the repository holding this library (the default --source).
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# parse_args [SPEC...] -- ARGS...: every script's argument loop. Always known: --source DIR
# (source_dir, default REPO; made absolute), --keep (keep=1, default 0) and -h/--help (the usage).
# Each SPEC declares one option of the script's own, once:
#   --NAME=VAR      takes a value into VAR          --NAME=VAR/  a folder that exists, made absolute
#   --NAME=VAR!     a flag: VAR=1                   --NAME=VAR!0 a flag: VAR=0 (--no-test=run_tests!0)
#   --NAME=VAR+     a value each time, appended to the array VAR
#   @               words that are no option go into ARGS, in order (else they are a usage error)
# A word it does not know, or an option without its value, is a usage error (exit 64).
parse_args() {
  local -A kind=([--source]=dir [--keep]=flag1) var=([--source]=source_dir [--keep]=keep)
  local spec name value words=0
  while (($#)) && [[ "$1" != -- ]]; do
    spec=$1 name=${1%%=*}
    shift
    case "$spec" in
    @) words=1 ;;
    *!*) value=${spec##*!} kind[$name]=flag${value:-1} var[$name]=${spec#*=} var[$name]=${var[$name]%!*} ;;
    */) kind[$name]=dir var[$name]=${spec#*=} var[$name]=${var[$name]%/} ;;
    *+) kind[$name]=list var[$name]=${spec#*=} var[$name]=${var[$name]%+} ;;
    *) kind[$name]=value var[$name]=${spec#*=} ;;
    esac
  done
  shift
  source_dir=${source_dir:-$REPO} keep=${keep:-0} ARGS=()
  while (($#)); do
    case "${kind[$1]:-}" in
    flag*) printf -v "${var[$1]}" %s "${kind[$1]#flag}" && shift && continue ;;
    "") [[ "$1" != -h && "$1" != --help ]] || { usage && exit 0; }
      if [[ "$1" == -* ]] || ((!words)); then usage_error "unknown argument '$1'"; fi
      ARGS+=("$1") && shift && continue ;;
    esac
    (($# >= 2)) || usage_error "$1 needs a value"
    if [[ "${kind[$1]}" == dir ]]; then
      [[ -d "$2" ]] || usage_error "$1 $2: no such folder"
      set -- "$1" "$(cd "$2" && pwd)" "${@:3}"
    fi
    if [[ "${kind[$1]}" == list ]]; then
      eval "${var[$1]}+=($(printf '%q' "$2"))"
    else
      printf -v "${var[$1]}" %s "$2"
    fi
    shift 2
  done
}

# stage NAME: closes the stage running (`  done in N s`, its time kept) and starts NAME (said,
# with the time since the start); `stage end` closes the last. stage_times: closes the last and
# says every stage's time, one a line. STAGE is the stage running (a failure names it).
T0=$SECONDS STAGE="" STAGE_START=$SECONDS STAGE_TIMES=()
stage() {
  if [[ -n "$STAGE" ]]; then
    say "  done in $((SECONDS - STAGE_START)) s"
    STAGE_TIMES+=("$(printf '%-52s %4d s' "$STAGE" $((SECONDS - STAGE_START)))")
  fi
  STAGE="" STAGE_START=$SECONDS
  [[ "$1" == end ]] || { STAGE=$1 && say "$1 (at $((SECONDS - T0)) s)"; }
}
stage_times() {
  stage end
  say "stage times ($(nproc) cores, $((SECONDS - T0)) s in all):"
  local s
  for s in "${STAGE_TIMES[@]}"; do say "  $s"; done
}

# when_finished COMMAND [ARG...]: runs COMMAND with its ARGs (as they are at this call; a
# function reads what it needs when it runs) when the script exits on any path (its end, exit,
# die, INT, TERM, HUP), each registered one in turn, the last first (git's
# test_when_finished); a COMMAND's failure does not stop the others, and it may set `status`
# (the exit status) to 1. A failed exit in a stage names it. A signal's trap runs inside the
# redirection of the command it interrupted (a build's log): a script that wants its cleanup's
# words on its own stdout and stderr saves them first, `exec {FINISH_OUT}>&1 {FINISH_ERR}>&2`
# (not by default: every child would inherit the copies, and one that outlives the script would
# hold a reader such as .ci/run's tee).
FINISH=()
when_finished() {
  if ((${#FINISH[@]} == 0)); then
    trap run_finishers EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
  fi
  FINISH+=("$(printf '%q ' "$@")")
}
# shellcheck disable=SC2317 # the EXIT trap
run_finishers() {
  local status=$? i
  trap - EXIT INT TERM HUP
  [[ -z "${FINISH_OUT:-}" ]] || exec 1>&"$FINISH_OUT" 2>&"$FINISH_ERR"
  for ((i = ${#FINISH[@]} - 1; i >= 0; i--)); do eval "${FINISH[i]}" || true; done
  ((status == 0)) || [[ -z "$STAGE" ]] || say "FAILED (exit $status) after $((SECONDS - T0)) s, in the stage: $STAGE" >&2
  exit "$status"
}

# usage_error [MESSAGE]: MESSAGE and the usage on stderr, then exit 64 (EX_USAGE).
# shellcheck disable=SC2120 # MESSAGE is optional
usage_error() {
  [[ $# -eq 0 ]] || printf '%s: %s\n' "$PROG" "$*" >&2
  usage >&2
  exit 64
}

# apt_retry [--tries N] [--between COMMAND] COMMAND...: runs COMMAND (an apt-get command line,
# with whatever runs it: `apt-get update`, `in_root apt-get ...`, `as_root env ... apt-get ...`)
# until it succeeds, at most N times (default 3), 5 s longer apart after each failure (5, 10,
# 15 s...). --between COMMAND (a string, eval'd) runs before each retry (e.g. `apt-get update`),
# its failure ignored. Returns COMMAND's last status.
apt_retry() {
  local tries=3 between="" try rc
  while (($#)); do
    case "$1" in
    --tries) tries=$2 && shift 2 ;;
    --between) between=$2 && shift 2 ;;
    *) break ;;
    esac
  done
  for ((try = 1; ; try++)); do
    rc=0
    "$@" || rc=$?
    ((rc != 0)) || return 0
    ((try < tries)) || return "$rc"
    printf '%s: %s failed with %d (try %d of %d); retrying in %d s\n' \
      "${0##*/}" "$*" "$rc" "$try" "$tries" $((try * 5)) >&2
    sleep $((try * 5))
    if [[ -n "$between" ]]; then eval "$between" || true; fi
  done
}

# usage_from_header FILE: the usage text from FILE's leading comment block: the paragraph
# that starts at its `# Usage:` line and ends at a bare `#` line or the first line that is
# not a comment, with the `# ` taken off. Without a `# Usage:` line, the whole block (after
# the #! line). Headers can grow or move without breaking --help.
usage_from_header() {
  awk '
    NR == 1 && /^#!/ { next }
    !/^#/ { exit }
    /^# shellcheck / { next }
    /^#[ \t]*Usage:/ { usage = 1; n = 0 }
    usage && /^#[ \t]*$/ { exit }
    { sub(/^# ?/, ""); lines[++n] = $0 }
    END { for (i = 1; i <= n; i++) print lines[i] }
  ' "$1"
}

# build_depends [--no-packaging]: what building the package needs, from deploy/debian/control's
# Build-Depends (the one list; never typed again elsewhere), as one line for `apt-get satisfy`:
# `debhelper-compat (= 13), ..., swiftlang (>= 6.0), libgpiod-dev (>= 2), ...`.
# --no-packaging leaves out the packaging tools (debhelper-compat, dh-sequence-*): what a plain
# `swift build` of the device needs.
build_depends() {
  awk -v plain="${1:-}" '
    /^[^ \t]/ { on = 0 }
    /^Build-Depends:/ { on = 1; sub(/^Build-Depends:[ \t]*/, "") }
    on {
      n = split($0, rel, ",")
      for (i = 1; i <= n; i++) {
        r = rel[i]; gsub(/^[ \t]+|[ \t]+$/, "", r)
        if (r == "" || (plain == "--no-packaging" && r ~ /^(debhelper-compat|dh-sequence-)/)) continue
        out = out (out == "" ? "" : ", ") r
      }
    }
    END { print out }
  ' "$(dirname "${BASH_SOURCE[0]}")/../debian/control"
}

# build_depends_names [--no-packaging|--libraries]: the same, package names only (no versions),
# one a line. --libraries: only the C libraries the device links (lib*-dev but the C++ runtime's),
# what a host with a Swift of its own needs to build it with its hardware, MQTT and web parts.
build_depends_names() {
  if [[ "${1:-}" == --libraries ]]; then
    build_depends_names --no-packaging | grep -E '^lib.*-dev$' | grep -v '^libstdc++'
  else
    build_depends "$@" | tr ',' '\n' | sed -E 's/^ +//; s/ *\(.*//'
  fi
}

# binary_packages: the binary packages deploy/debian/control makes, one a line in its order
# (pomodoro first): its Package: stanzas, the one list of them, never typed again elsewhere.
binary_packages() { sed -n 's/^Package:[ \t]*//p' "$(dirname "${BASH_SOURCE[0]}")/../debian/control"; }

# The release's version, written once in Swift (`pomodoro --version`, the packages, Home
# Assistant's sw_version): RELEASE_FILE below a source tree.
RELEASE_FILE=Sources/PomodoroSystem/System/Release.swift

# release_version SOURCE: prints the version SOURCE's RELEASE_FILE gives (nothing if none).
release_version() {
  sed -nE 's/^ *public static let version = "([^"]+)".*/\1/p' "$1/$RELEASE_FILE"
}

# set_release_version SOURCE VERSION: writes VERSION into SOURCE's RELEASE_FILE.
set_release_version() {
  sed -i -E "s/^( *public static let version = \")[^\"]+\"/\1$2\"/" "$1/$RELEASE_FILE"
}
