# shellcheck shell=bash disable=SC2034 # variables set here are read by run.sh
# Boots the guest under QEMU (software emulation) and collects its report (sourced by run.sh).
# Needs: common.sh, packages.sh ($WORK/kernel, KVER), initramfs.sh (INITRAMFS).

# Seconds QEMU may run before it is stopped (the guest reports in well under a minute).
HIL_BOOT_TIMEOUT=${HIL_BOOT_TIMEOUT:-300}

# boot_guest CHECKS: runs the guest with hil_checks=CHECKS (all, chain or device), its
# console in $WORK/console.log; sets BOOT_SECONDS, GUEST_UP_SECONDS (kernel start to /init)
# and GUEST_SECONDS (kernel start to the guest's summary).
boot_guest() {
  local start rc=0
  start=$(now_s)
  timeout --kill-after=10 "$HIL_BOOT_TIMEOUT" qemu-system-x86_64 \
    -accel tcg -m 1024 -smp 1 -nographic -no-reboot -nic none -monitor none -serial stdio \
    -kernel "$WORK/kernel/boot/vmlinuz-$KVER" -initrd "$INITRAMFS" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3 rdinit=/init hil_checks=$1" \
    </dev/null >"$WORK/console.log" 2>&1 &
  QEMU_PID=$!
  wait "$QEMU_PID" || rc=$?
  QEMU_PID=""
  BOOT_SECONDS=$(elapsed_s "$start")
  [ "$rc" -ne 124 ] || say "QEMU ran for $HIL_BOOT_TIMEOUT s and was stopped (HIL_BOOT_TIMEOUT)"
  tr -d '\r' <"$WORK/console.log" >"$WORK/console.txt"
  GUEST_SECONDS=$(sed -n 's/^hil: guest done after \([0-9.]*\) s$/\1/p' "$WORK/console.txt")
  GUEST_UP_SECONDS=$(sed -n 's/.*hil: guest up after \([0-9.]*\) s$/\1/p' "$WORK/console.txt")
}

# guest_results: prints the guest's PASS/FAIL lines and counts them (test-lib's count_results), a guest
# that did not report as one failure.
guest_results() {
  grep -E '^(PASS|FAIL) ' "$WORK/console.txt" || true
  count_results "$WORK/console.txt"
  if ! grep -qE '^hil: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$WORK/console.txt"; then
    fail guest-report "the guest printed no summary; its console (last 40 lines):"
    tail -n 40 "$WORK/console.txt" | sed 's/^/  | /'
  fi
  if [ "$FAILED" -gt 0 ] && grep -q '^hil: device log:' "$WORK/console.txt"; then
    echo "hil: the device's log in the guest:"
    grep '^  | ' "$WORK/console.txt" || true
  fi
}
