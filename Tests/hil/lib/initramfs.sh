# shellcheck shell=bash disable=SC2034 # variables set here are read by run.sh
# Assembles the guest's initramfs (sourced by run.sh): busybox, the GPIO and I2C tools, the
# device binary, every shared library they load (ldd) with the dynamic loader, the kernel
# modules in load order, the /init script and the scenario, and the guest library (Tests/lib:
# guest.sh, test-lib.sh) with deploy/pomodoro.conf, where it reads the default pins.
# Needs: common.sh, packages.sh ($WORK/kernel, KVER), gpio-sim-module.sh. Sets INITRAMFS.

# The guest's real GPIO and I2C tools, called by full path under /opt/tools (busybox has
# i2c applets of its own that would shadow them in $PATH).
HIL_GUEST_TOOLS=(
  /usr/bin/gpiodetect /usr/bin/gpiofind /usr/bin/gpioinfo /usr/bin/gpioget /usr/bin/gpioset /usr/bin/gpiomon
  /usr/sbin/i2cdetect /usr/sbin/i2cget /usr/sbin/i2cset
)

# copy_with_libraries ROOT FILE DEST: FILE to ROOT/DEST, and each library ldd lists (and the
# loader) to the same path under ROOT. A static binary needs none.
copy_with_libraries() {
  local root=$1 file=$2 dest=$3 lib
  install -D -m 755 "$file" "$root$dest"
  for lib in $(ldd "$file" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
    [ -e "$root$lib" ] || install -D -m 755 "$(readlink -f "$lib")" "$root$lib"
  done
}

# module_files NAME: the .ko files NAME needs, dependencies first.
module_files() {
  modprobe -d "$WORK/kernel" -S "$KVER" --show-depends "$1" | awk '$1 == "insmod" { print $2 }' ||
    die "module $1 not found in linux-image-$KVER"
}

# add_modules ROOT LIST NAME[:ARGS]...: copies the modules with their dependencies to
# ROOT/lib/modules and appends `file.ko args` lines in load order to ROOT/lib/modules/LIST.
add_modules() {
  local root=$1 list=$2 spec name args ko base
  shift 2
  mkdir -p "$root/lib/modules"
  touch "$root/lib/modules/$list"
  for spec in "$@"; do
    name=${spec%%:*}
    args=""
    [ "$name" = "$spec" ] || args=${spec#*:}
    for ko in $(module_files "$name"); do
      base=$(basename "$ko")
      [ -e "$root/lib/modules/$base" ] && continue
      cp "$ko" "$root/lib/modules/$base"
      if [ "$(basename "$ko" .ko)" = "$name" ]; then
        echo "$base $args" >>"$root/lib/modules/$list"
      else
        echo "$base" >>"$root/lib/modules/$list"
      fi
    done
  done
}

# build_initramfs [BINARY]: writes $WORK/initramfs.cpio (uncompressed: unpacking is faster
# than decompressing under TCG). Without BINARY, only the tool chain checks can run.
build_initramfs() {
  local root="$WORK/root" binary=${1:-} tool
  rm -rf "$root"
  mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,var/lib,opt/tools,hil}
  install -m 755 /bin/busybox "$root/bin/busybox"
  for tool in "${HIL_GUEST_TOOLS[@]}"; do
    copy_with_libraries "$root" "$tool" "/opt/tools/$(basename "$tool")"
  done
  if [ -n "$binary" ]; then
    copy_with_libraries "$root" "$binary" /usr/local/bin/pomodoro
  fi
  add_modules "$root" early.list configfs gpio-sim i2c-dev
  add_modules "$root" late.list "i2c-stub:chip_addr=0x3c"
  install -m 755 "$HIL_DIR/guest/init" "$root/init"
  cp -r "$HIL_DIR/guest/." "$root/hil/"
  rm -f "$root/hil/init"
  install -D -m 644 -t "$root/hil/lib" "$REPO_ROOT"/Tests/lib/{guest,test-lib}.sh "$REPO_ROOT/deploy/pomodoro.conf"
  INITRAMFS="$WORK/initramfs.cpio"
  (cd "$root" && find . -print0 | cpio --null -o -H newc --quiet -R 0:0) >"$INITRAMFS"
  HIL_INITRAMFS_BYTES=$(stat -c %s "$INITRAMFS")
}
