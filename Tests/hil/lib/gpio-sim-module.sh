# shellcheck shell=bash disable=SC2034 # variables set here are read by run.sh
# Builds gpio-sim as an out-of-tree module for the guest kernel (sourced by run.sh).
# Debian does not build CONFIG_GPIO_SIM; its sources (with kernel/irq/irq_sim.c, which the
# kernel only builds when something selects it) come from the matching linux-source package.
# Needs: common.sh, packages.sh (KVER, KDEB_VERSION, $WORK/debs). Sets GPIO_SIM_KO.

# gpio_sim_sources DEB SERIES DIR: gpio-sim's sources from the linux-source-SERIES package DEB
# in DIR as an out-of-tree module (gpio-sim.c renamed, irq_sim.c patched, a Kbuild file), ready
# for `make -C <headers> M=DIR modules`. Tests/system/run.sh builds trixie's with it too.
gpio_sim_sources() {
  local deb=$1 series=$2 dir=$3 tarball prefix
  mkdir -p "$dir"
  tarball="usr/src/linux-source-$series.tar.xz"
  prefix="linux-source-$series"
  dpkg-deb --fsys-tarfile "$deb" | tar -xO "./$tarball" |
    tar -xJ -C "$dir" --strip-components=3 \
      "$prefix/drivers/gpio/gpio-sim.c" "$prefix/drivers/gpio/gpiolib.h" "$prefix/kernel/irq/irq_sim.c" ||
    die "could not take gpio-sim.c, gpiolib.h and irq_sim.c from $deb"
  # Two objects named gpio-sim.o and the module gpio-sim.ko cannot share a name.
  mv "$dir/gpio-sim.c" "$dir/gpio-sim-main.c"
  # irq_to_desc is not exported to modules; generic_handle_irq does the same lookup.
  grep -q 'handle_simple_irq(irq_to_desc(irqnum))' "$dir/irq_sim.c" ||
    die "irq_sim.c of $(basename "$deb") changed: handle_simple_irq(irq_to_desc(irqnum)) not found"
  sed -i 's/handle_simple_irq(irq_to_desc(irqnum))/generic_handle_irq(irqnum)/' "$dir/irq_sim.c"
  printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' >"$dir/Kbuild"
}

build_gpio_sim_module() {
  local dir="$WORK/gpio-sim" deb
  deb=$(ls "$WORK"/debs/linux-source-"$HIL_KERNEL_SERIES"_*.deb)
  gpio_sim_sources "$deb" "$HIL_KERNEL_SERIES" "$dir"
  make -s -C "/usr/src/linux-headers-$KVER" M="$dir" modules >"$dir/build.log" 2>&1 ||
    { cat "$dir/build.log" >&2; die "building gpio-sim.ko against /usr/src/linux-headers-$KVER failed"; }
  GPIO_SIM_KO="$dir/gpio-sim.ko"
  [ -f "$GPIO_SIM_KO" ] || die "make produced no $GPIO_SIM_KO"
  # Installed beside the stock modules so modprobe --show-depends resolves its dependencies.
  mkdir -p "$WORK/kernel/lib/modules/$KVER/extra"
  cp "$GPIO_SIM_KO" "$WORK/kernel/lib/modules/$KVER/extra/"
  depmod -b "$WORK/kernel" "$KVER"
}
