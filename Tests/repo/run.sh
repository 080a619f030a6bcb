#!/usr/bin/env bash
# shellcheck disable=SC2016 # dpkg-query formats (${Version}) are dpkg's, not the shell's
# Tests/repo/run.sh: test the apt repository deploy/apt-repo.sh makes, as an owner's apt sees
# it. Prints a PASS or FAIL line a check and `N passed, M failed`.
#
#  1. A throwaway ed25519 key (certification-only primary, signing subkey with an expiry, as
#     docs/release.md makes the real one), an unrelated one and a next one (for a rotation), in
#     temporary GnuPG homes.
#  2. The packages build-deb.sh made (--debs: each of deploy/debian/control, common.sh's
#     binary_packages: pomodoro, pomodoro-mqtt, pomodoro-web, pomodoro-hooks; amd64 and arm64) and a second version of the amd64 ones (VERSION+upgradetest, Tests/lib/host.sh,
#     reused when Tests/deb/run.sh or Tests/system/run.sh made it into the same folder), the keyring package
#     (apt-repo.sh keyring, lintian in the build root) and the repository (apt-repo.sh build),
#     served by `python3 -m http.server` on 127.0.0.1 beside three that apt must refuse: signed
#     by the other key, unsigned, and with a Packages file changed after signing.
#  3. In a fresh trixie root (debootstrap minbase), with apt-get -y and no terminal: the keyring
#     package installed from its file; `apt-get update` with no warning (apt verifies with sqv);
#     `apt-get install` of every package gets the newest; `pomodoro=VERSION`
#     goes back; `unattended-upgrade --dry-run --debug` (unattended-upgrades installed from
#     Debian) picks the newest pomodoro through the keyring package's Origins-Pattern, and
#     nothing of the repository without it; the owner's config and history kept through `apt-get upgrade` to the newest, which also
#     brings a second keyring package holding a next key (a rotation: sqv then takes both); purge; the
#     three bad repositories refused; then arm64 added as a foreign architecture and
#     `apt-get install --download-only pomodoro:arm64` (and the others) resolved from the
#     repository and Debian.
#
# Usage: sudo bash Tests/repo/run.sh --debs DIR --root DIR [--source DIR] [--keep]
#   --debs DIR    the folder with PACKAGE_VERSION_{amd64,arm64}.deb for each of deploy/debian/control's
#                 packages (build-deb.sh --out)
#   --root DIR    the root build-deb.sh --keep kept (lintian; the upgrade build if it is missing)
#   --source DIR  the package (default: the repository holding this script)
#   --keep        keep the scratch folder and the fresh root (their mounts are undone)
# Environment: DEBIAN_MIRROR (default: debootstrap's own default mirror).
set -uo pipefail

readonly SUITE=trixie
readonly MIRROR="${DEBIAN_MIRROR:-}"
readonly READY_MARK=.pomodoro-test-repo-ready
PROG=test-repo
readonly CONF=/etc/pomodoro/pomodoro.conf
readonly KEYRING=/usr/share/keyrings/pomodoro-archive-keyring.pgp
readonly SOURCES=/etc/apt/sources.list.d/pomodoro.sources
readonly UNATTENDED=/etc/apt/apt.conf.d/51pomodoro-unattended-upgrades

# shellcheck source=Tests/lib/host.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/host.sh"
debs="" build_root=""
parse_args --debs=debs/ --root=build_root/ -- "$@"
mapfile -t packages < <(binary_packages) # deploy/debian/control's, pomodoro first
[[ -n "$debs" && -n "$build_root" ]] || usage_error "--debs and --root are needed"
[[ $EUID -eq 0 ]] || die "needs root (debootstrap, chroot and mounts): run it with sudo"
for tool in gpg apt-ftparchive dpkg-deb python3 debootstrap xz; do
  command -v "$tool" >/dev/null || die "$tool is missing (apt-get install gnupg apt-utils dpkg-dev python3 debootstrap xz-utils)"
done

root=""
version="$(package_version "$source_dir")"
[[ -n "$version" ]] || die "no version in $source_dir/$RELEASE_FILE"
new_version="$version$UPGRADE_SUFFIX"
scratch_folder test-repo
server_pid=""
keep_arg=$keep
# shellcheck disable=SC2317 # when_finished's
stop_server() { [[ -z "$server_pid" ]] || kill "$server_pid" 2>/dev/null; }
when_finished root_cleanup_if_any
when_finished stop_server

# --- 1. keys --------------------------------------------------------------------------------
stage "a throwaway ed25519 key and another one"
gnupg="$work/gnupg"
other_gnupg="$work/gnupg-other"
mkdir -m 700 "$gnupg" "$other_gnupg"
# make_key HOME: an ed25519 primary for certification only and a signing subkey for a year.
make_key() {
  gpg --homedir "$1" --batch --passphrase '' --quick-gen-key "Pomodoro test archive <test@example.invalid>" \
    ed25519 cert never >/dev/null 2>&1 &&
    local fpr &&
    fpr="$(gpg --homedir "$1" --batch --with-colons --list-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')" &&
    gpg --homedir "$1" --batch --passphrase '' --quick-add-key "$fpr" ed25519 sign 1y >/dev/null 2>&1 &&
    printf '%s\n' "$fpr"
}
key="$(make_key "$gnupg")" || die "gpg could not make a key"
other_key="$(make_key "$other_gnupg")" || die "gpg could not make the other key"
# The next key, for a rotation: the second keyring package holds it beside the first.
next_gnupg="$work/gnupg-next"
mkdir -m 700 "$next_gnupg"
next_key="$(make_key "$next_gnupg")" || die "gpg could not make the next key"
gpg --homedir "$next_gnupg" --batch --armor --export "$next_key" >"$work/next-key.asc"
gpg --homedir "$gnupg" --batch --armor --export "$key" >"$work/key.asc"
gpg --homedir "$other_gnupg" --batch --armor --export "$other_key" >"$work/other-key.asc"
algos="$(gpg --homedir "$gnupg" --batch --with-colons --list-keys "$key" 2>/dev/null | awk -F: '$1 == "pub" || $1 == "sub" { print $1 ":" $4 ":" $12 ":" $17 }' | xargs)"
check "the key: an ed25519 primary (certify) and an ed25519 signing subkey ($algos)" "$algos" \
  grep -qE '^pub:22:c[^ ]*:ed25519 sub:22:s:ed25519$' <<<"$algos"
# sqv (trixie's apt) refuses SHA-1 bindings since 2026-02-01: every self-signature SHA-256 or up.
digests="$(gpg --homedir "$gnupg" --batch --export "$key" | gpg --batch --list-packets 2>/dev/null |
  grep -oE '^\s+digest algo [0-9]+' | grep -oE '[0-9]+$' | sort -u | xargs)"
check "the key's self-signatures: SHA-256 or up, no SHA-1 (digest algos: $digests)" "" \
  bash -c "[ -n '$digests' ] && ! grep -qwE '1|2|3' <<<'$digests'"

# --- 2. packages, the keyring package, the repositories, the server ---------------------------
stage "the upgrade packages $new_version (amd64): Tests/lib/host.sh"
if how="$(upgrade_debs "$source_dir" "$build_root" "$debs" "$work/v2.log")"; then
  pass "the second version $new_version: $how"
else
  fail "the second version $new_version built" "$(tail -n 20 "$work/v2.log")"
fi
mkdir -p "$work/debs/$version" "$work/debs/$new_version" "$work/www"
for package in "${packages[@]}"; do
  for f in "$debs/${package}_${version}"_{amd64,arm64}.deb; do
    if [[ -f "$f" ]]; then cp "$f" "$work/debs/$version/"; else fail "package ${f##*/} in $debs" "build-deb.sh --out $debs makes it"; fi
  done
  cp "$debs/${package}_${new_version}_amd64.deb" "$work/debs/$new_version/" 2>/dev/null
done

# The server first: the keyring package's apt source names its port.
python3 -m http.server --bind 127.0.0.1 --directory "$work/www" 0 >"$work/http.log" 2>&1 &
server_pid=$!
port=""
said_port() {
  port="$(grep -oE 'port [0-9]+' "$work/http.log" | grep -oE '[0-9]+' | head -n 1)"
  [[ -n "$port" ]]
}
wait_for 30 said_port
[[ -n "$port" ]] || die "python3 -m http.server did not start: $(cat "$work/http.log")"
url="http://127.0.0.1:$port/repo"
say "serving $work/www at http://127.0.0.1:$port/"

keyring_deb="$work/debs/$version/pomodoro-archive-keyring_${version}_all.deb"
if out="$(bash "$REPO/deploy/apt-repo.sh" keyring --url "$url" --key "$work/key.asc" --out "$work/debs/$version" 2>&1)" &&
  [[ -f "$keyring_deb" ]]; then
  pass "apt-repo.sh keyring: ${keyring_deb##*/}, $(stat -c %s "$keyring_deb") bytes"
else
  fail "apt-repo.sh keyring" "$out"
fi
# The rotation's keyring package: version $new_version, the key and the next one.
next_keyring_deb="$work/debs/$new_version/pomodoro-archive-keyring_${new_version}_all.deb"
if out="$(bash "$REPO/deploy/apt-repo.sh" keyring --url "$url" --key "$work/key.asc" --key "$work/next-key.asc" \
  --version "$new_version" --out "$work/debs/$new_version" 2>&1)" && [[ -f "$next_keyring_deb" ]]; then
  pass "apt-repo.sh keyring --key --key (a rotation): ${next_keyring_deb##*/} holds both keys"
else
  fail "apt-repo.sh keyring --key --key (a rotation)" "$out"
fi
contents="$(dpkg-deb -c "$keyring_deb" 2>&1 | awk '{ print $6 }' | grep -vE '/$' | sort | xargs)"
check "the keyring package holds the keyring, the source, the unattended-upgrades pattern and its docs" "$contents" \
  [ "$contents" = "./etc/apt/apt.conf.d/51pomodoro-unattended-upgrades ./etc/apt/sources.list.d/pomodoro.sources ./usr/share/doc/pomodoro-archive-keyring/changelog.gz ./usr/share/doc/pomodoro-archive-keyring/copyright ./usr/share/keyrings/pomodoro-archive-keyring.pgp ./usr/share/lintian/overrides/pomodoro-archive-keyring" ]
dpkg-deb --fsys-tarfile "$keyring_deb" | tar -xO ".$SOURCES" >"$work/sources" 2>/dev/null
want_sources="Types: deb
URIs: $url/
Suites: trixie
Components: main
Signed-By: $KEYRING"
check "the keyring package's source is deb822: $url/ trixie main, Signed-By its keyring" \
  "$(cat "$work/sources")" [ "$(grep -v '^#' "$work/sources")" = "$want_sources" ]

dpkg-deb --fsys-tarfile "$keyring_deb" | tar -xO ".$UNATTENDED" >"$work/unattended" 2>/dev/null
check "the keyring package's Origins-Pattern: origin=pomodoro,label=pomodoro,codename=trixie" "$(cat "$work/unattended")" \
  grep -qxF '        "origin=pomodoro,label=pomodoro,codename=trixie";' "$work/unattended"

stage "apt-repo.sh build: the repository and three that apt must refuse"
build_repo() { # build_repo NAME GNUPGHOME KEY: the repository from every .deb of both versions
  bash "$REPO/deploy/apt-repo.sh" build --debs "$work/debs" --out "$work/www/$1" --gnupghome "$2" --key "$3" >"$work/$1.log" 2>&1
}
if build_repo repo "$gnupg" "$key"; then
  pass "apt-repo.sh build: $(grep -oE '[0-9]+ package files' "$work/repo.log"), $(du -sh "$work/www/repo" | cut -f1)"
else
  fail "apt-repo.sh build" "$(cat "$work/repo.log")"
fi
dist="$work/www/repo/dists/$SUITE"
missing=()
for f in Release InRelease Release.gpg main/binary-{amd64,arm64,all}/Packages{,.gz,.xz}; do
  [[ -s "$dist/$f" ]] || missing+=("$f")
done
check "dists/trixie: Release, InRelease, Release.gpg, binary-{amd64,arm64,all}/Packages{,.gz,.xz}" \
  "missing: ${missing[*]}" [ ${#missing[@]} -eq 0 ]
check "Release: Origin pomodoro, Label pomodoro, Codename trixie (what the Origins-Pattern matches)" \
  "$(grep -E '^(Origin|Label|Codename):' "$dist/Release")" \
  bash -c "grep -qx 'Origin: pomodoro' '$dist/Release' && grep -qx 'Label: pomodoro' '$dist/Release' && grep -qx 'Codename: trixie' '$dist/Release'"
check "Release: SHA256 and SHA512 sums, no MD5 or SHA-1" "$(grep -E '^[A-Za-z0-9]+:' "$dist/Release")" \
  bash -c "grep -q '^SHA256:' '$dist/Release' && grep -q '^SHA512:' '$dist/Release' && ! grep -qE '^(MD5Sum|SHA1):' '$dist/Release'"
packages_of() { # packages_of ARCH: NAME=VERSION of each stanza in binary-ARCH/Packages
  awk '/^Package:/ { p = $2 } /^Version:/ { print p "=" $2 }' "$dist/main/binary-$1/Packages" | LC_ALL=C sort | xargs
}
# want V...: NAME=V of the keyring package (both versions) and every package, sorted as packages_of.
want() {
  {
    printf 'pomodoro-archive-keyring=%s\n' "$version" "$new_version"
    for v in "$@"; do printf "%s=$v\n" "${packages[@]}"; done
  } | LC_ALL=C sort | xargs
}
want="$(want "$version" "$new_version")"
check "binary-amd64 keeps both versions ($(packages_of amd64))" "want $want" [ "$(packages_of amd64)" = "$want" ]
want="$(want "$version")"
check "binary-arm64: $(packages_of arm64)" "want $want" [ "$(packages_of arm64)" = "$want" ]
check "binary-all: the keyring packages alone ($(packages_of all))" "" \
  [ "$(packages_of all)" = "pomodoro-archive-keyring=$version pomodoro-archive-keyring=$new_version" ]
digest="$(gpg --homedir "$gnupg" --batch --list-packets "$dist/Release.gpg" 2>/dev/null | grep -oE 'digest algo [0-9]+' | head -n 1)"
check "Release.gpg: a SHA-512 signature ($digest)" "" [ "$digest" = "digest algo 10" ]

# The refused: signed by another key; unsigned; a Packages file changed after signing.
build_repo other-key "$other_gnupg" "$other_key" || fail "apt-repo.sh build with the other key" "$(cat "$work/other-key.log")"
cp -a "$work/www/repo" "$work/www/unsigned"
rm -f "$work/www/unsigned/dists/$SUITE/InRelease" "$work/www/unsigned/dists/$SUITE/Release.gpg"
cp -a "$work/www/repo" "$work/www/tampered"
tampered="$work/www/tampered/dists/$SUITE/main/binary-amd64"
sed -i "0,/^Version: $new_version\$/s//Version: $new_version+evil/" "$tampered/Packages"
rm -f "$tampered/Packages.gz" "$tampered/Packages.xz"
gzip -9nk "$tampered/Packages" && xz -9k "$tampered/Packages"
check "the tampered copy differs from the signed Packages" "" bash -c "! cmp -s '$tampered/Packages' '$dist/main/binary-amd64/Packages'"

# --- 3. lintian on the keyring package, in the build root ------------------------------------
stage "lintian on the keyring package in the build root"
root="$build_root"
keep=1
root_mounts
if in_root sh -c 'command -v lintian' >/dev/null ||
  apt_in_root -y -qq install lintian >/dev/null 2>&1 ||
  { apt_in_root -qq update >/dev/null 2>&1 && apt_in_root -y -qq install lintian >/dev/null 2>&1; }; then
  mkdir -p "$root/var/tmp/test-repo"
  cp "$keyring_deb" "$root/var/tmp/test-repo/"
  out="$(in_root lintian --pedantic --display-info --show-overrides --fail-on error,warning "/var/tmp/test-repo/${keyring_deb##*/}" 2>&1)"
  status=$?
  out="$(grep -v 'running with root privileges' <<<"$out")"
  rm -rf "$root/var/tmp/test-repo"
  # Overridden, and said: package-installs-apt-sources (adding the source is the package's whole
  # purpose; lintian's own exception is for names ending in -apt-source).
  overridden="$(grep -E '^O: ' <<<"$out" | sed -E 's/^O: [^:]+: //' | xargs)"
  check "lintian ${keyring_deb##*/}: no error, no warning${overridden:+ (overridden: $overridden)}" \
    "$out" [ "$status" -eq 0 ]
else
  fail "lintian in the build root" "could not install lintian in $root"
fi
root_cleanup
mounted=()

# --- 4. a fresh trixie root -----------------------------------------------------------------
root=""
keep=$keep_arg
root_folder test-repo
stage "debootstrap $SUITE (minbase) into $root"
debootstrap_root "$SUITE" "$MIRROR"
root_mounts
stage "the owner's steps"
cp "$keyring_deb" "$root/var/tmp/"
chmod 644 "$root/var/tmp/${keyring_deb##*/}"

# apt_step LOG ARGS...: apt-get -y ARGS with no terminal; its output in $work/LOG.
apt_step() {
  local log="$work/$1"
  shift
  in_root apt-get -y -o APT::Install-Recommends=false "$@" </dev/null >"$log" 2>&1
}
warnings() { grep -iE '^(W|E): |warn|conffile|\(Y/I/N/O/D/Z\)' "$work/$1"; }
no_warnings() { ! warnings "$1" >/dev/null; }
status_of() { in_root dpkg-query -W -f '${db:Status-Abbrev}' "$1" 2>/dev/null | tr -d ' '; }
version_of() { in_root dpkg-query -W -f '${Version}' "$1" 2>/dev/null; }
# versions_are V: every package is installed at V (and pomodoro is ii).
versions_are() {
  local package
  for package in "${packages[@]}"; do [ "$(version_of "$package")" = "$1" ] || return 1; done
  [ "$(status_of pomodoro)" = ii ]
}
versions() { for package in "${packages[@]}"; do printf '%s %s; ' "$package" "$(version_of "$package")"; done; }

apt_retry in_root apt-get -qq update >/dev/null || die "apt-get update (Debian only) in $root failed"
check "apt in the root verifies with sqv (sqv installed, gpgv not)" \
  "sqv: $(status_of sqv), gpgv: $(status_of gpgv)" [ "$(status_of sqv):$(status_of gpgv)" = "ii:" ]

apt_step keyring.log install "/var/tmp/${keyring_deb##*/}"
check "sudo apt install ./${keyring_deb##*/}" "$(tail -n 20 "$work/keyring.log")" [ "$(status_of pomodoro-archive-keyring)" = ii ]
check "the keyring and the source are in place" "$(ls -l "$root$KEYRING" "$root$SOURCES" 2>&1)" \
  [ -s "$root$KEYRING" -a -s "$root$SOURCES" ]

cp "$dist/Release" "$dist/Release.gpg" "$root/var/tmp/"
said="$(in_root sqv --keyring "$KEYRING" /var/tmp/Release.gpg /var/tmp/Release 2>&1)"
check "sqv (trixie's) verifies Release.gpg with the installed keyring" "$said" grep -q "$key" <<<"$said"
gpg --homedir "$other_gnupg" --batch --export "$other_key" >"$root/var/tmp/other.pgp"
check "sqv refuses Release.gpg against another key" "" \
  bash -c "! chroot '$root' sqv --keyring /var/tmp/other.pgp /var/tmp/Release.gpg /var/tmp/Release >/dev/null 2>&1"

start=$SECONDS
apt_step update.log update
status=$?
update_time=$((SECONDS - start))
check "apt-get update: succeeds, gets the repository's InRelease (${update_time} s)" "$(tail -n 20 "$work/update.log")" \
  bash -c "[ $status -eq 0 ] && grep -qE '^(Get|Hit):[0-9]+ $url/? trixie InRelease' '$work/update.log'"
check "apt-get update: no warning, no error" "$(warnings update.log)" no_warnings update.log
candidate="$(in_root apt-cache policy pomodoro | awk '/Candidate:/ { print $2 }')"
check "apt-cache policy pomodoro: the candidate is the newest, $new_version" "$(in_root apt-cache policy pomodoro)" \
  [ "$candidate" = "$new_version" ]

start=$SECONDS
apt_step install.log install "${packages[@]}"
install_time=$((SECONDS - start))
check "apt-get install ${packages[*]}: the newest, $new_version (${install_time} s)" "$(versions)$(tail -n 20 "$work/install.log")" \
  versions_are "$new_version"
check "apt-get install: no warning" "$(warnings install.log)" no_warnings install.log
fetched="$(grep -oE '^Need to get [^ ]+ [kMG]?B' "$work/install.log" | head -n 1)"
say "  $fetched (with the Debian packages it depends on), in $install_time s"

apt_step downgrade.log install --allow-downgrades "${packages[@]/%/=$version}"
check "apt-get install ${packages[*]/%/=$version}: goes back" "$(versions)$(tail -n 20 "$work/downgrade.log")" \
  versions_are "$version"
check "the way back: pomodoro --version is $version" "$(in_root pomodoro --version 2>&1)" \
  in_root sh -c "pomodoro --version | grep -qF 'pomodoro $version ('"

# unattended-upgrades, as docs/install.md turns it on: the keyring package's pattern lets it take
# the newer pomodoro (installed: $version, offered: $new_version); without the pattern it takes nothing
# of the repository.
stage "unattended-upgrade --dry-run --debug"
apt_retry apt_step unattended-install.log install unattended-upgrades
check "apt-get install unattended-upgrades (from Debian)" "$(tail -n 10 "$work/unattended-install.log")" \
  [ "$(status_of unattended-upgrades)" = ii ]
check "apt-config sees the keyring package's Origins-Pattern" "$(in_root apt-config dump Unattended-Upgrade::Origins-Pattern 2>&1)" \
  bash -c "chroot '$root' apt-config dump Unattended-Upgrade::Origins-Pattern | grep -qF 'origin=pomodoro,label=pomodoro,codename=trixie'"
in_root unattended-upgrade --dry-run --debug </dev/null >"$work/unattended.log" 2>&1
upgraded="$(grep -E 'Packages that will be upgraded:' "$work/unattended.log" | tail -n 1)"
# upgrades_all LINE: LINE names every package, each as a word of its own.
upgrades_all() {
  local package
  for package in "${packages[@]}"; do [[ " $1 " == *" $package "* ]] || return 1; done
}
check "unattended-upgrade --dry-run --debug: upgrades ${packages[*]} ($upgraded)" \
  "$(grep -E 'pomodoro|Allowed origins|ERROR|error' "$work/unattended.log" | tail -n 20)" upgrades_all "$upgraded"
check "unattended-upgrade --dry-run: it was a dry run (pomodoro still $version)" "$(version_of pomodoro)" \
  [ "$(version_of pomodoro)" = "$version" ]
mv "$root$UNATTENDED" "$work/unattended.conf"
in_root unattended-upgrade --dry-run --debug </dev/null >"$work/unattended-without.log" 2>&1
check "without the pattern, unattended-upgrade takes nothing from the repository" \
  "$(grep -E 'Packages that will be upgraded:' "$work/unattended-without.log")" \
  bash -c "! grep -E 'Packages that will be upgraded:' '$work/unattended-without.log' | grep -qw pomodoro"
mv "$work/unattended.conf" "$root$UNATTENDED"

# The owner's edit and history, then apt-get upgrade (a changed shipped config: no prompt).
sed -i 's/^# focus = 25m$/focus = 50m/' "$root$CONF"
printf '# my desk\n' >>"$root$CONF"
cp "$root$CONF" "$work/edited.conf"
mkdir -p "$root/var/lib/pomodoro"
printf '{"history":"line"}\n' >"$root/var/lib/pomodoro/history.jsonl"
in_root chown -R pomodoro:pomodoro /var/lib/pomodoro
cp "$root/var/lib/pomodoro/history.jsonl" "$work/history.jsonl"
check "the owner's edit is in place (focus = 50m)" "$(grep -n focus "$root$CONF")" grep -qx 'focus = 50m' "$root$CONF"

gpg --homedir "$next_gnupg" --batch --local-user "$next_key" --detach-sign -o "$root/var/tmp/Release.next.gpg" "$dist/Release"
check "before the rotation: the installed keyring refuses the next key's signature" "" \
  bash -c "! chroot '$root' sqv --keyring $KEYRING /var/tmp/Release.next.gpg /var/tmp/Release >/dev/null 2>&1"
apt_step upgrade.log upgrade
check "apt-get upgrade: every package to $new_version" "$(versions)$(tail -n 20 "$work/upgrade.log")" \
  versions_are "$new_version"
check "apt-get upgrade: no prompt, no warning" "$(warnings upgrade.log)" no_warnings upgrade.log
check "apt-get upgrade: the owner's $CONF kept as edited" "$(diff "$work/edited.conf" "$root$CONF")" \
  cmp -s "$work/edited.conf" "$root$CONF"
check "apt-get upgrade: the history kept" "$(ls -la "$root/var/lib/pomodoro" 2>&1)" \
  cmp -s "$work/history.jsonl" "$root/var/lib/pomodoro/history.jsonl"
check "apt-get upgrade: the keyring package too, to $new_version (the rotation)" "$(version_of pomodoro-archive-keyring)" \
  [ "$(version_of pomodoro-archive-keyring)" = "$new_version" ]
said="$(in_root sqv --keyring "$KEYRING" /var/tmp/Release.next.gpg /var/tmp/Release 2>&1)"
check "after it, sqv takes the next key's signature" "$said" grep -q "$next_key" <<<"$said"
said="$(in_root sqv --keyring "$KEYRING" /var/tmp/Release.gpg /var/tmp/Release 2>&1)"
check "and still the first key's" "$said" grep -q "$key" <<<"$said"

apt_step purge.log purge "${packages[@]}"
check "apt-get purge ${packages[*]}: gone, config and state too" "$(tail -n 10 "$work/purge.log")" \
  [ -z "$(for package in "${packages[@]}"; do status_of "$package"; done)" -a ! -e "$root/etc/pomodoro" -a ! -e "$root/var/lib/pomodoro" ]

# --- 5. what apt must refuse ----------------------------------------------------------------
stage "the repositories apt must refuse"
mv "$root$SOURCES" "$work/pomodoro.sources"
# refused NAME WHY PATTERN: apt-get update against /NAME fails, its error matching PATTERN, and
# no package from it becomes installable.
refused() {
  local name=$1 why=$2 pattern=$3
  sed "s|^URIs: .*|URIs: http://127.0.0.1:$port/$name/|" "$work/pomodoro.sources" >"$root/etc/apt/sources.list.d/bad.sources"
  apt_step "update-$name.log" update
  local status=$?
  local offered
  offered="$(in_root apt-cache madison pomodoro 2>/dev/null | grep -c "127.0.0.1:$port/$name")"
  if ((status != 0)) && grep -qE "$pattern" "$work/update-$name.log" && ((offered == 0)); then
    pass "apt-get update refuses the repository $why: $(grep -E '^(E|W): ' "$work/update-$name.log" | head -n 1 | cut -c1-150)"
  else
    fail "apt-get update refuses the repository $why" "exit $status, pomodoro offered from it: $offered" \
      "$(tail -n 8 "$work/update-$name.log")"
  fi
  rm -f "$root/etc/apt/sources.list.d/bad.sources"
}
refused other-key "signed by another key" "is not signed|NO_PUBKEY|Missing key"
refused unsigned "unsigned" "is not signed|does not have a Release file"
refused tampered "with a Packages file changed after signing" "Hash Sum mismatch|unexpected size|checksum"
mv "$work/pomodoro.sources" "$root$SOURCES"

# --- 6. arm64 -------------------------------------------------------------------------------
stage "arm64 as a foreign architecture: apt-get install --download-only pomodoro:arm64"
in_root dpkg --add-architecture arm64
apt_retry apt_step update-arm64.log update
status=$?
check "apt-get update with arm64 added: no warning, no error" "exit $status; $(warnings update-arm64.log)" \
  bash -c "[ $status -eq 0 ] && ! grep -qiE '^(W|E): ' '$work/update-arm64.log'"
rm -f "$root"/var/cache/apt/archives/*.deb
apt_retry apt_step arm64.log install --download-only "${packages[@]/%/:arm64}"
status=$?
got="$(find "$root/var/cache/apt/archives" -maxdepth 1 -name '*.deb' -printf '%f\n' | sort | xargs)"
# fetched NAME...: each NAME_*_arm64.deb is in apt's archives.
fetched_arm64() {
  local name
  for name in "$@"; do compgen -G "$root/var/cache/apt/archives/${name}_*_arm64.deb" >/dev/null || return 1; done
}
ours_fetched() { # every package's $version for arm64, from the repository
  local package
  ((status == 0)) || return 1
  for package in "${packages[@]}"; do [[ -f "$root/var/cache/apt/archives/${package}_${version}_arm64.deb" ]] || return 1; done
}
check "${packages[*]/%/:arm64} $version from the repository" "exit $status; got: $got; $(tail -n 5 "$work/arm64.log")" \
  ours_fetched
check "their dependencies from Debian: libgpiod3, libi2c0, libmosquitto1, libmicrohttpd12t64, libcurl4t64 :arm64" "got: $got" \
  fetched_arm64 libgpiod3 libi2c0 libmosquitto1 libmicrohttpd12t64 libcurl4t64
arm64_fetched="$(grep -oE '^Need to get [^ ]+ [kMG]?B' "$work/arm64.log" | head -n 1)"
say "  arm64: $arm64_fetched for ${packages[*]} with their Debian dependencies"
check "the downloaded pomodoro_${version}_arm64.deb is build-deb.sh's" "" \
  cmp -s "$root/var/cache/apt/archives/pomodoro_${version}_arm64.deb" "$debs/pomodoro_${version}_arm64.deb"

# --- figures --------------------------------------------------------------------------------
say "figures: keyring package $(stat -c %s "$keyring_deb") bytes;$(for package in "${packages[@]}"; do
  printf ' %s_%s_arm64.deb %s bytes' "$package" "$version" "$(stat -c %s "$debs/${package}_${version}_arm64.deb")"; done)"
say "figures: apt-get install ${packages[*]} $install_time s ($fetched); the repository with two versions $(du -sk "$work/www/repo" | cut -f1) KiB"
stage_times
test_done
