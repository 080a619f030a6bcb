# shellcheck shell=dash
# The kernel's smbus_write trace events: every SMBus transfer to the simulated I2C adapter,
# as `i2c-0 a=03c f=0000 c=40 I2C_BLOCK_DATA l=33 [20-...]` (l and the buffer include the
# block's leading length byte).

TRACE=/sys/kernel/tracing

# trace_start: mounts tracefs, enables smbus_write, empties the buffer.
trace_start() {
  [ -e "$TRACE/trace" ] || mount -t tracefs nodev "$TRACE" || fail trace "mount tracefs at $TRACE failed"
  echo 8192 >"$TRACE/buffer_size_kb"
  echo 1 >"$TRACE/events/smbus/smbus_write/enable" || fail trace "no smbus_write event in $TRACE/events/smbus"
  echo >"$TRACE/trace"
}

# trace_clear: forget the transfers so far.
trace_clear() { echo >"$TRACE/trace"; }

# trace_blocks ADDR: one line per I2C block write to 7-bit ADDR (hex, e.g. 3c):
# `control data_length byte byte ...`, bytes in lower-case hex without the length byte.
trace_blocks() {
  awk -v a="a=$(printf '%03x' "0x$1")" '
    index($0, "smbus_write:") && index($0, " " a " ") && / I2C_BLOCK_DATA / {
      c = ""; buf = ""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^c=/) c = substr($i, 3)
        if ($i ~ /^\[/) buf = $i
      }
      gsub(/\[/, "", buf)
      gsub(/\]/, "", buf)
      n = split(buf, b, "-")
      line = c " " (n - 1)
      for (i = 2; i <= n; i++) line = line " " b[i]
      print line
    }' "$TRACE/trace"
}
