#!/usr/bin/env bash
# Tests/devcontainer/run.sh: the dev container (.devcontainer/devcontainer.json) gives what README
# says a laptop gets: Debian trixie, its swiftlang, and `swift run pomodoro simulate` and
# `swift test` as typed. Its setup command (onCreateCommand) runs in the trixie root that
# Tests/trixie/run.sh --keep made (the same image, debian:trixie, without Docker), then `swift`
# is looked up on the container's PATH (remoteEnv) and its run, test and build subcommands and
# the package's manifest are tried there. Prints a PASS or FAIL line a check and
# `N passed, M failed`.
#
# Usage: sudo bash Tests/devcontainer/run.sh --root DIR
#   --root DIR  the trixie root Tests/trixie/run.sh --keep made (its copy of the source in /src/pomodoro)
set -uo pipefail

readonly READY_MARK=.pomodoro-check-trixie-ready
PROG=check-devcontainer
# shellcheck source=Tests/lib/host.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
here=$REPO
root=""
keep=1 # the root is the trixie step's, kept for the later steps
parse_args --root=root/ -- "$@"
[[ -n "$root" && -f "$root/$READY_MARK" ]] || die "--root: a trixie root made by Tests/trixie/run.sh --keep"
[[ $EUID -eq 0 ]] || die "needs root (chroot and mounts)"
when_finished root_cleanup

json="$here/.devcontainer/devcontainer.json"
field() { python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v.get(k, "") if isinstance(v, dict) else ""
print(" ".join(v) if isinstance(v, list) else v)' "$json" "$1"; }
image="$(field image)"
setup="$(field onCreateCommand)"
path="$(field remoteEnv.PATH)"
check "devcontainer.json: image debian:trixie (the Pi's Debian)" "image: $image" [ "$image" = debian:trixie ]
check "devcontainer.json: an onCreateCommand that installs deploy/debian/control's build dependencies (apt-get build-dep ./deploy)" \
  "$setup" grep -q 'apt-get build-dep .*\./deploy' <<<"$setup"

root_mounts
start=$SECONDS
# The container runs it in the workspace, the source: here the root's copy of it.
out="$(in_root sh -c "cd /src/pomodoro && $setup" 2>&1)"
status=$?
check "onCreateCommand in the trixie root: exit 0 ($((SECONDS - start)) s)" "$(tail -n 10 <<<"$out")" [ "$status" -eq 0 ]
for p in $(build_depends_names --no-packaging); do
  check "onCreateCommand in the trixie root: $p installed (as the packages' build has it)" "" \
    [ "$(in_root dpkg-query -W -f "\${db:Status-Status}" "$p" 2>/dev/null)" = installed ]
done
# The container's PATH: remoteEnv's, with ${containerEnv:PATH} the image's own.
image_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
container_path="${path:-\${containerEnv:PATH\}}"
container_path="${container_path//\$\{containerEnv:PATH\}/$image_path}"
in_container() { # in_container COMMAND: sh -c in the root with the container's PATH, in the source
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH="$container_path" sh -c "cd /src/pomodoro && $1"
}
version="$(in_container 'swift --version' 2>&1)"
check "swift on the container's PATH ($container_path): $(head -n 1 <<<"$version")" "$version" \
  grep -q 'Swift version 6\.' <<<"$version"
for sub in run test build; do
  out="$(in_container "swift $sub --help" 2>&1)"
  check "swift $sub: SwiftPM answers (README's swift run pomodoro simulate, swift test)" "$(head -n 5 <<<"$out")" \
    grep -q "USAGE: swift $sub" <<<"$out"
done
out="$(in_container 'swift package dump-package' 2>&1)"
check "swift package dump-package: the manifest reads (product pomodoro)" "$(tail -n 5 <<<"$out")" \
  grep -q '"name" : "pomodoro"' <<<"$out"

test_done
