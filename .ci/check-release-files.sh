#!/usr/bin/env bash
# .ci/check-release-files.sh: the cheap checks of what a release is made from, before any
# build: the GitHub workflows (zizmor --offline finds nothing at high severity; they validate
# against the GitHub workflow schema with check-jsonschema), the licence (LICENSE is MIT and
# nothing says all rights reserved), CHANGELOG.md against Release.version and
# deploy/debian/changelog (deploy/changelog.sh check), and release.yml's own run: lines where
# they need no GitHub: its tag check on a good and a bad tag, its install job against README's
# lines, its repository job with a throwaway key (keyring package, signed repository, sqv) and
# with a secret that is not the committed key. zizmor and check-jsonschema come from PyPI,
# pinned, into a venv (its ruamel.yaml reads release.yml); gpg, apt-ftparchive, dpkg-deb and sqv
# from Debian.
# Prints a PASS or FAIL line a check and `N passed, M failed`.
#
# Usage: bash .ci/check-release-files.sh --venv DIR
#   --venv DIR  the venv for zizmor and check-jsonschema (made if missing; CI puts it in its
#               scratch folder)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

readonly ZIZMOR=zizmor==1.32.0
readonly CHECK_JSONSCHEMA=check-jsonschema==0.39.0

# shellcheck source=Tests/lib/host.sh
source Tests/lib/host.sh
venv=""
parse_args --venv=venv -- "$@"
[[ -n "$venv" ]] || usage_error "--venv is needed"

workflows=(.github/workflows/*.yml)

if [[ ! -x "$venv/bin/zizmor" || ! -x "$venv/bin/check-jsonschema" ]]; then
  if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check "$ZIZMOR" "$CHECK_JSONSCHEMA"; }; then
    fail "pip install $ZIZMOR $CHECK_JSONSCHEMA into $venv"
  fi
fi
if [[ -x "$venv/bin/zizmor" ]]; then
  out="$("$venv/bin/zizmor" --offline --no-progress --min-severity high "${workflows[@]}" 2>&1)"
  status=$?
  if ((status == 0)); then
    pass "zizmor --offline ($("$venv/bin/zizmor" --version)): nothing at high severity in ${workflows[*]}"
  else
    fail "zizmor --offline: nothing at high severity in ${workflows[*]}" "$out"
  fi
fi
if [[ -x "$venv/bin/check-jsonschema" ]]; then
  out="$("$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}" 2>&1)"
  status=$?
  if ((status == 0)); then
    pass "check-jsonschema --builtin-schema vendor.github-workflows: ${workflows[*]} valid"
  else
    fail "check-jsonschema --builtin-schema vendor.github-workflows: ${workflows[*]} valid" "$out"
  fi
fi
unpinned="$(grep -nE '^\s*(- )?uses:' "${workflows[@]}" | grep -vE 'uses: [^ @]+@[0-9a-f]{40} # v[0-9.]+$')"
if [[ -z "$unpinned" ]]; then
  pass "every action pinned by commit hash, its tag in a comment ($(cat "${workflows[@]}" | grep -cE '^\s*(- )?uses:') uses)"
else
  fail "every action pinned by commit hash, its tag in a comment" "$unpinned"
fi

# release.yml's tag check, as the workflow runs it, on this tree's version and on a wrong tag.
tag_check="$(awk '/^      - id: version$/ { on = 1 } on && /^        run: \|$/ { body = 1; next }
  body && /^          / { sub(/^          /, ""); print; next } body { exit }' .github/workflows/release.yml)"
version="$(sed -nE 's/^ *public static let version = "([^"]+)".*/\1/p' Sources/PomodoroSystem/System/Release.swift)"
good="$(GITHUB_OUTPUT=/dev/stdout TAG="v$version" bash -c "$tag_check" 2>&1)"
good_status=$?
bad="$(GITHUB_OUTPUT=/dev/null TAG="v$version.1" bash -c "$tag_check" 2>&1)"
bad_status=$?
if [[ -n "$tag_check" && $good_status -eq 0 && "$good" == "version=$version" && $bad_status -ne 0 ]] &&
  grep -q "is not Release.version" <<<"$bad"; then
  pass "release.yml's tag check: v$version goes on, v$version.1 is refused"
else
  fail "release.yml's tag check: v$version goes on, v$version.1 is refused" \
    "v$version: exit $good_status: $good" "v$version.1: exit $bad_status: $bad"
fi

# release.yml's install job runs README's commands as written: each line of the code block in
# README's "From the apt repository" (comments cut; I2C's line needs a Pi) is a line of it.
readme_lines="$(awk '/^\*\*From the apt repository\*\*/ { on = 1 } on && /^```sh$/ { code = 1; next }
  code && /^```$/ { exit } code { sub(/ *#.*$/, ""); print }' README.md | grep -v raspi-config)"
missing="$(while IFS= read -r line; do
  [[ -z "$line" ]] || grep -qxF -- "          $line" .github/workflows/release.yml || printf '%s\n' "$line"
done <<<"$readme_lines")"
if [[ -n "$readme_lines" && -z "$missing" ]]; then
  pass "release.yml's install job runs README's commands as written ($(wc -l <<<"$readme_lines") lines)"
else
  fail "release.yml's install job runs README's commands as written" "README's lines: ${readme_lines:-none found}" \
    "not in release.yml: $missing"
fi

# release.yml's repository job, its own run: lines, here: a throwaway key made as docs/release.md
# says (certify-only primary; the secret is the signing subkey alone), its public key as the
# committed deploy/pomodoro-archive-key.asc in a scratch copy of deploy/; the keyring package for
# the Pages URL of a repository Example-Owner/pomodoro; apt-repo.sh build; sqv verifies
# Release.gpg with the keyring package's keyring. `gh release download` (GitHub) is left out.
step_run() { # step_run JOB STEP-NAME: that step's run: text, from release.yml
  "$venv/bin/python" -c 'import sys
from ruamel.yaml import YAML
jobs = YAML(typ="safe").load(open(".github/workflows/release.yml"))["jobs"]
print(next(s["run"] for s in jobs[sys.argv[1]]["steps"] if s.get("name") == sys.argv[2]))' "$1" "$2"
}
scratch="$(mktemp -d)"
mkdir -p "$scratch/repo" "$scratch/runner/new" "$scratch/runner/all" "$scratch/maint"
chmod 700 "$scratch/maint"
cp -a deploy "$scratch/repo/"
gpgm=(gpg --homedir "$scratch/maint" --batch --passphrase '')
"${gpgm[@]}" --quick-gen-key 'Pomodoro release test <test@example.invalid>' ed25519 cert never 2>/dev/null
fpr="$("${gpgm[@]}" --with-colons --list-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')"
"${gpgm[@]}" --quick-add-key "$fpr" ed25519 sign 1y 2>/dev/null
sub="$("${gpgm[@]}" --with-colons --list-keys "$fpr" 2>/dev/null | awk -F: '$1 == "sub" { s = 1 } s && $1 == "fpr" { print $10; exit }')"
"${gpgm[@]}" --armor --export "$fpr" >"$scratch/repo/deploy/pomodoro-archive-key.asc"
secret="$("${gpgm[@]}" --armor --export-secret-subkeys "$sub!")"
# run_step_here NAME ENV...: release.yml's repository-job step NAME in the scratch copy.
run_step_here() {
  local script
  script="$(step_run repository "$1")" || return 1
  shift
  (cd "$scratch/repo" && env RUNNER_TEMP="$scratch/runner" GITHUB_ENV="$scratch/github_env" "$@" \
    bash -e -o pipefail -c "$script") >>"$scratch/steps.log" 2>&1
}
: >"$scratch/github_env"
ok=1
run_step_here "the signing key from the secret" SIGNING_KEY="$secret" || ok=0
signing_fpr="$(sed -n 's/^SIGNING_FPR=//p' "$scratch/github_env")"
((ok)) && run_step_here "the keyring package for this repository's Pages URL" \
  OWNER=Example-Owner REPOSITORY=Example-Owner/pomodoro VERSION=0.2.0 || ok=0
cp "$scratch/runner/new/"*.deb "$scratch/runner/all/" 2>/dev/null
((ok)) && run_step_here "apt-repo.sh build" SIGNING_FPR="$signing_fpr" || ok=0
keyring_deb="$scratch/runner/new/pomodoro-archive-keyring_0.2.0_all.deb"
uris="$(dpkg-deb --fsys-tarfile "$keyring_deb" 2>/dev/null | tar -xO ./etc/apt/sources.list.d/pomodoro.sources 2>/dev/null | sed -n 's/^URIs: //p')"
dpkg-deb --fsys-tarfile "$keyring_deb" 2>/dev/null | tar -xO ./usr/share/keyrings/pomodoro-archive-keyring.pgp >"$scratch/keyring.pgp" 2>/dev/null
dist="$scratch/runner/site/dists/trixie"
verified="$(sqv --keyring "$scratch/keyring.pgp" "$dist/Release.gpg" "$dist/Release" 2>&1)"
if ((ok)) && [[ "$signing_fpr" == "$fpr" && "$uris" == "https://example-owner.github.io/pomodoro/" ]] &&
  grep -qx "$fpr" <<<"$verified" && [[ ! -e "$scratch/runner/gnupg" ]]; then
  pass "release.yml's repository job here (subkey-only secret, Example-Owner/pomodoro): keyring for $uris, repository signed, sqv verifies it, the GnuPG home removed"
else
  fail "release.yml's repository job here (subkey-only secret, Example-Owner/pomodoro)" \
    "SIGNING_FPR=$signing_fpr (want $fpr); URIs: $uris; sqv: $verified" "$(tail -n 15 "$scratch/steps.log")"
fi
# A secret whose key is not the committed one: the job stops, saying so.
other_home="$scratch/other"
mkdir -m 700 "$other_home"
gpg --homedir "$other_home" --batch --passphrase '' --quick-gen-key 'Someone else <x@example.invalid>' ed25519 sign never 2>/dev/null
rm -rf "$scratch/runner/gnupg"
: >"$scratch/steps.log"
if ! run_step_here "the signing key from the secret" SIGNING_KEY="$(gpg --homedir "$other_home" --batch --armor --export-secret-keys 2>/dev/null)" &&
  grep -q "is not in deploy/pomodoro-archive-key.asc" "$scratch/steps.log"; then
  pass "release.yml: a secret whose key is not deploy/pomodoro-archive-key.asc's stops the job"
else
  fail "release.yml: a secret whose key is not deploy/pomodoro-archive-key.asc's stops the job" "$(tail -n 5 "$scratch/steps.log")"
fi
rm -rf "$scratch"

if head -n 1 LICENSE 2>/dev/null | grep -qx 'MIT License' &&
  grep -q 'Copyright (c) 2026 Pomodoro desk device contributors' LICENSE &&
  grep -qx 'License: Expat' deploy/debian/copyright; then
  pass "LICENSE is MIT (Pomodoro desk device contributors); deploy/debian/copyright says Expat"
else
  fail "LICENSE is MIT (Pomodoro desk device contributors); deploy/debian/copyright says Expat" \
    "$(head -n 3 LICENSE 2>&1)" "$(grep '^License:' deploy/debian/copyright)"
fi
reserved="$(git grep -nI -i -E 'all[ -]rights[ -]reserved' -- . ':!.ci/check-release-files.sh' 2>&1)"
if [[ -z "$reserved" ]]; then
  pass "nothing says all rights reserved"
else
  fail "nothing says all rights reserved" "$reserved"
fi

out="$(bash deploy/changelog.sh check 2>&1)"
grep -E '^(PASS|FAIL) |^      ' <<<"$out" || true
count_results <(printf '%s\n' "$out")

test_done
