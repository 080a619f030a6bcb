# shellcheck shell=bash
# deploy/lib/common.sh: what the scripts under .ci, deploy and Tests share. Sourced, not run.
#   say MESSAGE..., die MESSAGE...   (prefixed with PROG; SAY_FD=2 sends say to stderr)
#   usage, usage_error [MESSAGE]     (--help's text, and a wrong command line's exit 64)
#   build_depends [--no-packaging], build_depends_names [--no-packaging]
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

# build_depends_names [--no-packaging]: the same, package names only (no versions), one a line.
build_depends_names() { build_depends "$@" | tr ',' '\n' | sed -E 's/^ +//; s/ *\(.*//'; }

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
