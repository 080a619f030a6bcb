#!/usr/bin/env python3
"""luma.oled rendering and sending a countdown: the peer figure for `pomodoro-bench`'s frames
(Benchmarks/pomodoro-bench, LeanBench.swift).

Opens luma.oled's `ssd1306` (128x64) on luma.core's `i2c` interface over a fake SMBus that
only counts bytes (no hardware), then draws 1,500 frames of a 25-minute countdown, one a
second: the title, MM:SS in a large font and a progress bar, with luma's `canvas`, which
renders with Pillow and sends the frame on leaving the `with`. Measures CPU time per frame
with time.process_time(), the I2C wire bytes per frame (address + control byte + data for
every 32-byte block, as pomodoro-bench counts ours) and the process's peak resident memory
(VmHWM). One figure a line: name value unit, as pomodoro-bench prints.

    python3 -m venv /tmp/luma && /tmp/luma/bin/pip install luma.oled
    /tmp/luma/bin/python Tests/bench/luma_oled.py
"""
import time

T0 = time.process_time()

from luma.core.interface.serial import i2c  # noqa: E402
from luma.core.render import canvas  # noqa: E402
from luma.oled.device import ssd1306  # noqa: E402
from PIL import ImageFont  # noqa: E402


class CountingBus:
    """An SMBus that counts the I2C wire bytes each block write would put on the bus."""

    def __init__(self):
        self.wire_bytes = 0
        self.writes = 0

    def write_i2c_block_data(self, address, register, data):
        assert len(data) <= 32
        self.wire_bytes += 2 + len(data)
        self.writes += 1


def font(size):
    try:
        return ImageFont.load_default(size=size)  # Pillow >= 10.1 with FreeType
    except TypeError:
        return ImageFont.load_default()


TOTAL = 25 * 60
BIG = font(30)
SMALL = font(10)


def draw_frame(device, remaining):
    with canvas(device) as draw:
        draw.text((0, 0), "FOCUS 1/4", font=SMALL, fill="white")
        draw.text((14, 14), f"{remaining // 60:02d}:{remaining % 60:02d}", font=BIG, fill="white")
        width = (device.width - 4) * (TOTAL - remaining) // TOTAL
        draw.rectangle((0, 54, device.width - 1, 63), outline="white", fill="black")
        if width > 0:
            draw.rectangle((2, 56, 1 + width, 61), outline="white", fill="white")


def peak_rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    bus = CountingBus()
    device = ssd1306(i2c(bus=bus), width=128, height=64)
    draw_frame(device, TOTAL)
    first = time.process_time() - T0
    frames = TOTAL
    bus.wire_bytes = 0
    bus.writes = 0
    t0 = time.process_time()
    for remaining in range(TOTAL - 1, -1, -1):
        draw_frame(device, remaining)
    cpu = time.process_time() - t0
    print(f"luma_oled_cpu_per_frame {cpu / frames * 1e6:.1f} us")
    print(f"luma_oled_i2c_bytes_per_frame {bus.wire_bytes / frames:.1f} B")
    print(f"luma_oled_i2c_writes_per_frame {bus.writes / frames:.1f} writes")
    print(f"luma_oled_import_open_first_frame_cpu {first * 1e3:.1f} ms")
    print(f"luma_oled_peak_rss {peak_rss_mib():.1f} MiB")


if __name__ == "__main__":
    main()
