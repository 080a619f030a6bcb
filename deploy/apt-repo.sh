#!/usr/bin/env bash
# deploy/apt-repo.sh: the project's apt repository, made with Debian's tools (dpkg-deb,
# apt-ftparchive, gpg). Needs no root and no network.
#
# Usage: deploy/apt-repo.sh keyring --url URL --key PUBLIC_KEY.asc --out DIR [--version V]
#        deploy/apt-repo.sh build --debs DIR --out DIR --gnupghome DIR --key KEYID
#   keyring  makes DIR/pomodoro-archive-keyring_V_all.deb: the key(s) as a binary keyring in
#            /usr/share/keyrings/pomodoro-archive-keyring.pgp and the deb822 source
#            /etc/apt/sources.list.d/pomodoro.sources (URIs: URL, Suites: trixie, Components:
#            main, Signed-By: that keyring). --key may be given twice (a key rotation: the old
#            and the new key in one keyring). V: Release.version (Release.swift) unless given.
#            Also /etc/apt/apt.conf.d/51pomodoro-unattended-upgrades: an
#            Unattended-Upgrade::Origins-Pattern for the repository (origin and label pomodoro,
#            codename trixie, as `build` writes them in Release), read by unattended-upgrades
#            alone (it does nothing where that is not installed).
#   build    makes a signed repository in DIR from every .deb below --debs (any depth, so one
#            folder per release works): pool/main/<letter>/<source>/, and dists/trixie/ with
#            main/binary-{amd64,arm64,all}/Packages (plain, .gz, .xz) by apt-ftparchive (every
#            version of every package stays: `apt install pomodoro=<older>` goes back), Release
#            (SHA-256 and SHA-512 only), InRelease and Release.gpg signed with KEYID from the GnuPG
#            home --gnupghome (SHA-512 digests), and the public key as pomodoro-archive-key.asc.
#            DIR's dists/ and pool/ are made anew.
# Needs dpkg-deb, apt-ftparchive (apt-utils), gpg, gzip and xz.
set -euo pipefail

readonly SUITE=trixie
readonly COMPONENT=main
readonly ARCHES=(amd64 arm64 all)
readonly KEYRING_PACKAGE=pomodoro-archive-keyring
readonly KEYRING_PATH=/usr/share/keyrings/pomodoro-archive-keyring.pgp
readonly SOURCES_PATH=/etc/apt/sources.list.d/pomodoro.sources
readonly UNATTENDED_PATH=/etc/apt/apt.conf.d/51pomodoro-unattended-upgrades
# The repository's Release fields (`build`), which the unattended-upgrades pattern matches.
readonly ORIGIN=pomodoro
readonly LABEL=pomodoro
readonly MAINTAINER="Pomodoro desk device maintainers <maintainers@users.noreply.a-seed-189787d6.example>"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=deploy/lib/common.sh
source "$here/lib/common.sh"

need() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || die "$tool is missing (apt-get install apt-utils dpkg-dev gnupg xz-utils)"
  done
}

# --- keyring ----------------------------------------------------------------------------------
keyring() {
  local url="" out="" version="" keys=()
  parse_args --url=url --key=keys+ --out=out --version=version -- "$@"
  [[ -n "$url" && -n "$out" && ${#keys[@]} -gt 0 ]] || usage_error
  [[ "$url" =~ ^https?://[^[:space:]]+$ ]] || die "--url $url: an http(s) URL"
  url="${url%/}/"
  [[ -n "$version" ]] || version="$(release_version "$here/..")"
  [[ "$version" =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "version '$version': a native Debian version (no dash)"
  need dpkg-deb gpg gzip
  local key
  for key in "${keys[@]}"; do [[ -f "$key" ]] || die "--key $key: no such file"; done
  mkdir -p "$out"
  out="$(cd "$out" && pwd)"

  local work pkg doc
  work="$(mktemp -d "${TMPDIR:-/tmp}/apt-repo-keyring.XXXXXX")"
  when_finished rm -rf "$work"
  pkg="$work/pkg"
  doc="$pkg/usr/share/doc/$KEYRING_PACKAGE"
  mkdir -p "$pkg/DEBIAN" "$pkg${KEYRING_PATH%/*}" "$pkg${SOURCES_PATH%/*}" "$pkg${UNATTENDED_PATH%/*}" "$doc" \
    "$pkg/usr/share/lintian/overrides"

  # The binary keyring: gpg reads each armoured public key in a home of its own and writes
  # them out unarmoured (one OpenPGP certificate after another, what Signed-By and sqv read).
  mkdir -m 700 "$work/gnupg"
  gpg --homedir "$work/gnupg" --batch --quiet --import "${keys[@]}" 2>"$work/gpg.log" ||
    die "gpg could not read the key(s): $(cat "$work/gpg.log")"
  gpg --homedir "$work/gnupg" --batch --export >"$pkg$KEYRING_PATH"
  [[ -s "$pkg$KEYRING_PATH" ]] || die "no public key in ${keys[*]}"
  if gpg --homedir "$work/gnupg" --batch --list-secret-keys --with-colons 2>/dev/null | grep -q '^sec'; then
    die "${keys[*]} holds a secret key: pass the public key only (gpg --export --armor KEYID)"
  fi
  local fingerprints
  fingerprints="$(gpg --homedir "$work/gnupg" --batch --with-colons --list-keys |
    awk -F: '$1 == "pub" { want = 1; next } want && $1 == "fpr" { print $10; want = 0 }' | xargs)"

  cat >"$pkg$SOURCES_PATH" <<EOF
# The Pomodoro desk device's apt repository (package $KEYRING_PACKAGE).
# Signed by: $fingerprints
Types: deb
URIs: $url
Suites: $SUITE
Components: $COMPONENT
Signed-By: $KEYRING_PATH
EOF
  # unattended-upgrades (when installed and turned on) takes this repository's updates too: its
  # Origins-Pattern lists from every file in apt.conf.d add up.
  cat >"$pkg$UNATTENDED_PATH" <<EOF
// The Pomodoro desk device's repository (package $KEYRING_PACKAGE): unattended-upgrades
// installs its updates too, once it is installed and turned on
// (sudo apt install unattended-upgrades; sudo dpkg-reconfigure -plow unattended-upgrades).
// Without unattended-upgrades this file does nothing.
Unattended-Upgrade::Origins-Pattern {
        "origin=$ORIGIN,label=$LABEL,codename=$SUITE";
};
EOF
  # lintian's package-installs-apt-sources: adding this source is the whole purpose of the
  # package (as with other archives' keyring packages); it is a conffile, so an owner's edit stays.
  printf '%s: package-installs-apt-sources [%s]\n' "$KEYRING_PACKAGE" "${SOURCES_PATH#/}" \
    >"$pkg/usr/share/lintian/overrides/$KEYRING_PACKAGE"

  cat >"$doc/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: pomodoro
Comment: The signing key(s) of the Pomodoro desk device's apt repository, and its apt source.

Files: *
Copyright: 2026 Pomodoro desk device contributors
License: Expat
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software and associated documentation files (the "Software"), to deal
 in the Software without restriction, including without limitation the rights
 to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is
 furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in all
 copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 SOFTWARE.
EOF
  # A date that does not change between two builds of one commit (SOURCE_DATE_EPOCH if set).
  local when
  when="$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}")"
  local signed_by="${fingerprints// /,$'\n'    }"
  cat >"$work/changelog" <<EOF
$KEYRING_PACKAGE ($version) $SUITE; urgency=medium

  * The repository $url,
    signed by $signed_by.

 -- $MAINTAINER  $when
EOF
  gzip -9nc "$work/changelog" >"$doc/changelog.gz"

  printf '%s\n' "$SOURCES_PATH" "$UNATTENDED_PATH" >"$pkg/DEBIAN/conffiles"
  cat >"$pkg/DEBIAN/control" <<EOF
Package: $KEYRING_PACKAGE
Version: $version
Architecture: all
Maintainer: $MAINTAINER
Installed-Size: 0
Section: misc
Priority: optional
Multi-Arch: foreign
Description: apt source and signing key of the Pomodoro desk device's repository
 Installs the OpenPGP key that signs the Pomodoro desk device's apt
 repository (/usr/share/keyrings/pomodoro-archive-keyring.pgp) and the apt
 source that names it (/etc/apt/sources.list.d/pomodoro.sources), so that
 after "sudo apt update" the packages pomodoro, pomodoro-web, pomodoro-mqtt
 and pomodoro-hooks install with "sudo apt install pomodoro" (and the others
 by name) and updates come with "sudo apt upgrade".
 With unattended-upgrades installed and turned on, they also come by
 themselves (/etc/apt/apt.conf.d/51pomodoro-unattended-upgrades).
EOF
  find "$pkg" -type d -exec chmod 755 {} +
  find "$pkg" -type f -exec chmod 644 {} +
  (cd "$pkg" && find usr etc -type f -print0 | sort -z | xargs -0 md5sum >DEBIAN/md5sums)
  chmod 644 "$pkg/DEBIAN/md5sums"
  local size
  size="$(du -sk --apparent-size "$pkg/usr" "$pkg/etc" | awk '{ s += $1 } END { print s }')"
  sed -i "s/^Installed-Size: 0$/Installed-Size: $size/" "$pkg/DEBIAN/control"
  if [[ -n "${SOURCE_DATE_EPOCH:-}" ]]; then find "$pkg" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +; fi

  local deb="$out/${KEYRING_PACKAGE}_${version}_all.deb"
  dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
  say "$deb: $(du -k "$deb" | cut -f1) KiB; apt source $url $SUITE $COMPONENT, signed by $fingerprints"
}

# --- build ------------------------------------------------------------------------------------
build() {
  local debs="" out="" gnupghome="" key=""
  parse_args --debs=debs --out=out --gnupghome=gnupghome --key=key -- "$@"
  [[ -n "$debs" && -n "$out" && -n "$gnupghome" && -n "$key" ]] || usage_error
  need dpkg-deb apt-ftparchive gpg gzip xz
  [[ -d "$debs" ]] || die "--debs $debs: no such folder"
  [[ -d "$gnupghome" ]] || die "--gnupghome $gnupghome: no such folder"
  debs="$(cd "$debs" && pwd)"
  mkdir -p "$out"
  out="$(cd "$out" && pwd)"
  [[ "$out" != "$debs" ]] || die "--out must not be --debs"
  gpg=(gpg --homedir "$gnupghome" --batch --no-tty --yes)
  "${gpg[@]}" --list-secret-keys "$key" >/dev/null 2>&1 || die "no secret key $key in $gnupghome"

  rm -rf "$out/dists" "$out/pool"
  # The pool: pool/main/<first letter>/<source package>/<file>, Debian's layout.
  local f name source dest count=0
  while IFS= read -r -d '' f; do
    name="${f##*/}"
    source="$(dpkg-deb -f "$f" Source)"
    source="${source%% *}"
    [[ -n "$source" ]] || source="$(dpkg-deb -f "$f" Package)"
    [[ -n "$source" ]] || die "$f: not a Debian package"
    dest="$out/pool/$COMPONENT/${source:0:1}/$source"
    mkdir -p "$dest"
    if [[ -e "$dest/$name" ]]; then
      cmp -s "$f" "$dest/$name" || die "two different files named $name below $debs"
      continue
    fi
    cp "$f" "$dest/$name"
    count=$((count + 1))
  done < <(find "$debs" -type f -name '*.deb' -print0 | sort -z)
  ((count > 0)) || die "no .deb below $debs"

  local dist="$out/dists/$SUITE"
  local arch list
  for arch in "${ARCHES[@]}"; do
    list="$dist/$COMPONENT/binary-$arch"
    mkdir -p "$list"
    # --arch A takes *_A.deb and *_all.deb; binary-all holds the all ones alone.
    (cd "$out" && apt-ftparchive --arch "$arch" packages "pool/$COMPONENT") >"$list/Packages"
    gzip -9nk "$list/Packages"
    xz -9k "$list/Packages"
  done

  local ftp=(-o "APT::FTPArchive::Release::Origin=$ORIGIN"
    -o "APT::FTPArchive::Release::Label=$LABEL"
    -o "APT::FTPArchive::Release::Suite=$SUITE"
    -o "APT::FTPArchive::Release::Codename=$SUITE"
    -o "APT::FTPArchive::Release::Architectures=${ARCHES[*]}"
    -o "APT::FTPArchive::Release::Components=$COMPONENT"
    -o "APT::FTPArchive::Release::Description=The Pomodoro desk device (Debian trixie, Raspberry Pi OS 64-bit)"
    -o APT::FTPArchive::Release::MD5=false
    -o APT::FTPArchive::Release::SHA1=false
    -o APT::FTPArchive::Release::SHA256=true
    -o APT::FTPArchive::Release::SHA512=true)
  (cd "$dist" && apt-ftparchive "${ftp[@]}" release .) >"$dist/Release.tmp"
  mv "$dist/Release.tmp" "$dist/Release"
  ! grep -qE '^(MD5Sum|SHA1):' "$dist/Release" || die "Release lists MD5 or SHA-1 sums"

  "${gpg[@]}" --local-user "$key" --digest-algo SHA512 --clearsign -o "$dist/InRelease" "$dist/Release"
  "${gpg[@]}" --local-user "$key" --digest-algo SHA512 --armor --detach-sign -o "$dist/Release.gpg" "$dist/Release"
  "${gpg[@]}" --armor --export "$key" >"$out/pomodoro-archive-key.asc"

  local packages
  packages="$(awk '/^Package:/ { p = $2 } /^Version:/ { print p "=" $2 }' \
    "$dist/$COMPONENT"/binary-{amd64,arm64}/Packages | sort -u | xargs)"
  say "$out: $count package files ($(du -sk --apparent-size "$out/pool" | cut -f1) KiB in pool/), $(du -sk --apparent-size "$out" | cut -f1) KiB in all"
  say "  $packages"
  say "  signed by $("${gpg[@]}" --with-colons --list-secret-keys "$key" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')"
}

verb="${1:-}"
(($#)) && shift
case "$verb" in
keyring) keyring "$@" ;;
build) build "$@" ;;
-h | --help)
  usage
  exit 0
  ;;
*)
  usage_error
  ;;
esac
