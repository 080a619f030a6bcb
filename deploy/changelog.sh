#!/usr/bin/env bash
# deploy/changelog.sh: CHANGELOG.md (what each version brought, newest first, one
# `## X.Y.Z - YYYY-MM-DD` section a version, `- ` items) is the one place a release is
# described; the Debian changelog and a release's notes are made from it.
#
# Usage: bash deploy/changelog.sh debian [--write]
#        bash deploy/changelog.sh notes VERSION
#        bash deploy/changelog.sh check
#   debian     the Debian changelog made from CHANGELOG.md (every version, each dated at noon UTC
#              of its day); --write puts it in deploy/debian/changelog
#   notes V    version V's section of CHANGELOG.md (the GitHub Release's notes); fails if none
#   check      deploy/debian/changelog is what `debian` makes, and CHANGELOG.md's newest version is
#              Release.version (Release.swift): a PASS or FAIL line each, `N passed, M failed`
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
# shellcheck source=deploy/lib/common.sh
source "$here/lib/common.sh"

readonly CHANGELOG="$repo/CHANGELOG.md"
readonly DEBIAN_CHANGELOG="$repo/deploy/debian/changelog"
readonly MAINTAINER="Pomodoro desk device maintainers <maintainers@users.noreply.a-seed-189787d6.example>"


# versions: each `## VERSION - DATE` heading as `VERSION DATE`, newest first.
versions() {
  sed -nE 's/^## ([0-9][A-Za-z0-9.+~]*) - ([0-9]{4}-[0-9]{2}-[0-9]{2})$/\1 \2/p' "$CHANGELOG"
}

# notes VERSION: the lines of VERSION's section, without the heading and the blank lines around.
notes() {
  awk -v v="$1" '
    /^## / { if (inside) exit; inside = ($2 == v); next }
    inside { lines[++n] = $0 }
    END {
      first = 1; while (first <= n && lines[first] ~ /^[ \t]*$/) first++
      last = n; while (last >= first && lines[last] ~ /^[ \t]*$/) last--
      for (i = first; i <= last; i++) print lines[i]
    }' "$CHANGELOG"
}

# debian: every version's items as a Debian changelog entry (items rewrapped at 78 columns).
debian() {
  local version day first=1
  while read -r version day; do
    ((first)) || echo
    first=0
    printf 'pomodoro (%s) trixie; urgency=medium\n\n' "$version"
    notes "$version" | awk '
      function flush() { if (item != "") print item; item = "" }
      /^- / { flush(); item = substr($0, 3); next }
      /^[ \t]+[^ \t]/ { sub(/^[ \t]+/, ""); item = item " " $0; next }
      END { flush() }' | while IFS= read -r item; do
      printf '%s\n' "$item" | fold -s -w 74 | sed -E 's/ +$//; 1s/^/  * /; 2,$s/^/    /'
    done
    printf '\n -- %s  %s\n' "$MAINTAINER" "$(LC_ALL=C date -R -u -d "$day 12:00:00 UTC")"
  done < <(versions)
}

cmd="${1:-}"
(($#)) && shift
case "$cmd" in
debian)
  [[ -n "$(versions)" ]] || die "no '## X.Y.Z - YYYY-MM-DD' section in $CHANGELOG"
  if [[ "${1:-}" == --write ]]; then
    debian >"$DEBIAN_CHANGELOG"
    echo "wrote $DEBIAN_CHANGELOG"
  else
    debian
  fi
  ;;
notes)
  [[ -n "${1:-}" ]] || die "notes needs a VERSION"
  out="$(notes "$1")"
  [[ -n "$out" ]] || die "no section '## $1 - YYYY-MM-DD' in $CHANGELOG"
  printf '%s\n' "$out"
  ;;
check)
  # shellcheck source=Tests/lib/test-lib.sh
  source "$repo/Tests/lib/test-lib.sh"
  newest="$(versions | head -n 1 | cut -d' ' -f1)"
  release="$(release_version "$repo")"
  if [[ -n "$newest" && "$newest" == "$release" ]]; then
    pass "CHANGELOG.md's newest version is Release.version ($release)"
  else
    fail "CHANGELOG.md's newest version (${newest:-none}) is Release.version ($release)"
  fi
  if difference="$(diff -u "$DEBIAN_CHANGELOG" <(debian) 2>&1)"; then
    pass "deploy/debian/changelog is made from CHANGELOG.md ($(versions | wc -l) versions)"
  else
    fail "deploy/debian/changelog is made from CHANGELOG.md (run: bash deploy/changelog.sh debian --write)" "" \
      "$(head -n 20 <<<"$difference")"
  fi
  test_done
  ;;
-h | --help) usage ;;
*)
  usage_error
  ;;
esac
