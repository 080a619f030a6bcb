# shellcheck shell=bash disable=SC2034 # variables set here are read by run.sh
# Builds gpio-sim as an out-of-tree module for the guest kernel (sourced by run.sh).
# Debian does not build CONFIG_GPIO_SIM; its sources (with kernel/irq/irq_sim.c, which the
# kernel only builds when something selects it) come from the matching linux-source package.
# Needs: common.sh, packages.sh (KVER, KDEB_VERSION, $WORK/debs). Sets GPIO_SIM_KO.

build_gpio_sim_module() {
  local dir="$WORK/gpio-sim" deb tarball prefix
  mkdir -p "$dir"
  deb=$(ls "$WORK"/debs/linux-source-"$HIL_KERNEL_SERIES"_*.deb)
  tarball="usr/src/linux-source-$HIL_KERNEL_SERIES.tar.xz"
  prefix="linux-source-$HIL_KERNEL_SERIES"
  dpkg-deb --fsys-tarfile "$deb" | tar -xO "./$tarball" |
    tar -xJ -C "$dir" --strip-components=3 \
      "$prefix/drivers/gpio/gpio-sim.c" "$prefix/drivers/gpio/gpiolib.h" "$prefix/kernel/irq/irq_sim.c" ||
    die "could not take gpio-sim.c, gpiolib.h and irq_sim.c from $deb"
  # Two objects named gpio-sim.o and the module gpio-sim.ko cannot share a name.
  mv "$dir/gpio-sim.c" "$dir/gpio-sim-main.c"
  # irq_to_desc is not exported to modules; generic_handle_irq does the same lookup.
  grep -q 'handle_simple_irq(irq_to_desc(irqnum))' "$dir/irq_sim.c" ||
    die "irq_sim.c of $KDEB_VERSION changed: handle_simple_irq(irq_to_desc(irqnum)) not found"
  sed -i 's/handle_simple_irq(irq_to_desc(irqnum))/generic_handle_irq(irqnum)/' "$dir/irq_sim.c"
  printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' >"$dir/Kbuild"
  make -s -C "/usr/src/linux-headers-$KVER" M="$dir" modules >"$dir/build.log" 2>&1 ||
    { cat "$dir/build.log" >&2; die "building gpio-sim.ko against /usr/src/linux-headers-$KVER failed"; }
  GPIO_SIM_KO="$dir/gpio-sim.ko"
  [ -f "$GPIO_SIM_KO" ] || die "make produced no $GPIO_SIM_KO"
  # Installed beside the stock modules so modprobe --show-depends resolves its dependencies.
  mkdir -p "$WORK/kernel/lib/modules/$KVER/extra"
  cp "$GPIO_SIM_KO" "$WORK/kernel/lib/modules/$KVER/extra/"
  depmod -b "$WORK/kernel" "$KVER"
}
