# shellcheck shell=dash
# Checks of what the display received, from the smbus_write trace (see trace.sh): every
# transfer to 0x3C an I2C block write with control byte 0x00 (commands) or 0x40 (data) and
# 1..32 bytes; the SSD1306 init sequence; a whole frame of data.

# display_blocks: the block writes to 0x3C so far, saved in /tmp/display.blocks.
display_blocks() { trace_blocks 3c >/tmp/display.blocks; }

# display_bad_blocks: blocks whose control byte is not 0x00/0x40 or whose length is not 1..32.
display_bad_blocks() { awk '($1 != "0" && $1 != "40") || $2 < 1 || $2 > 32' /tmp/display.blocks; }

# display_commands: every command byte sent (control 0x00), in order, on one line.
display_commands() { awk '$1 == "0" { for (i = 3; i <= NF; i++) printf "%s ", $i }' /tmp/display.blocks; }

# display_data_bytes: how many display data bytes (control 0x40) were sent.
display_data_bytes() { awk '$1 == "40" { n += $2 } END { print n + 0 }' /tmp/display.blocks; }

# display_init_ok: the commands open with display off (AE) and set the 64-row multiplex
# (A8 3F), and the charge pump (8D 14) comes before the first display on (AF).
display_init_ok() {
  display_commands | awk '{
    s = " " $0
    off = index(s, " ae "); mux = index(s, " a8 3f "); pump = index(s, " 8d 14 "); on = index(s, " af ")
    exit !(off == 1 && mux > 0 && pump > 0 && on > pump)
  }'
}

# check_display_transfers NAME: all transfers so far are well-formed block writes.
check_display_transfers() {
  display_blocks
  bad=$(display_bad_blocks | head -n 3)
  blocks=$(wc -l </tmp/display.blocks)
  if [ "$blocks" -eq 0 ]; then
    fail "$1" "no I2C block writes to 0x3c in the smbus_write trace"
  elif [ -n "$bad" ]; then
    fail "$1" "block writes with a control byte other than 0x00/0x40 or a length outside 1..32: $bad"
  else
    pass "$1"
  fi
}
