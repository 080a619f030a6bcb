#!/usr/bin/env python3
"""gpiozero's RotaryEncoder on its mock pins: the peer figure for `pomodoro-bench`'s decoder
(Benchmarks/pomodoro-bench, InputBench.swift).

Drives GPIO17/GPIO27 of gpiozero's MockFactory through full quadrature cycles (4 edges per
detent, A leading), forwards then back, and measures CPU time per edge with
time.process_time(). Then the same with contact bounce added to every edge (the pins are
toggled by hand, since gpiozero's mock pins do not simulate bounce), to see what its decoder
counts. One figure a line: name value unit, as pomodoro-bench prints.

    python3 -m venv /tmp/gpz && /tmp/gpz/bin/pip install gpiozero
    /tmp/gpz/bin/python Tests/bench/gpiozero_rotary.py
"""
import random
import time

from gpiozero import Device, RotaryEncoder
from gpiozero.pins.mock import MockFactory

Device.pin_factory = MockFactory()
enc = RotaryEncoder(17, 27, max_steps=0)
pa = Device.pin_factory.pin(17)
pb = Device.pin_factory.pin(27)

# Active-low contacts: rest = both high. Gray sequence of (a, b) physical levels.
SEQ = [(1, 1), (0, 1), (0, 0), (1, 0)]
state = 0


def drive(pin, high):
    pin.drive_high() if high else pin.drive_low()


def step(direction, bounce=0, rng=None):
    """One Gray-code transition; `bounce` extra toggle pairs on the contact that moves."""
    global state
    before = SEQ[state % 4]
    state += direction
    after = SEQ[state % 4]
    pin, level = (pa, after[0]) if before[0] != after[0] else (pb, after[1])
    drive(pin, level)
    for _ in range(bounce):
        drive(pin, 1 - level)
        drive(pin, level)
    return 1 + 2 * bounce


def spin(detents, bounce_max=0, rng=None):
    edges = 0
    direction = 1 if detents > 0 else -1
    for _ in range(abs(detents)):
        for _ in range(4):
            edges += step(direction, rng.randint(0, bounce_max) if bounce_max else 0)
    return edges


def main():
    n = 20000
    enc.steps = 0
    t0 = time.process_time()
    edges = spin(n)
    forward = enc.steps
    edges += spin(-n)
    cpu = time.process_time() - t0
    print(f"gpiozero_rotary_cpu_per_edge {cpu / edges * 1e6:.3f} us")
    print(f"gpiozero_rotary_edges_per_cpu_second {edges / cpu:.0f} edges/s")
    print(f"gpiozero_rotary_clean_forward_steps {forward} of {n}")
    print(f"gpiozero_rotary_clean_steps_after_back {enc.steps} steps")

    rng = random.Random(4)
    enc.steps = 0
    expected = 0
    for _ in range(2000):
        d = rng.randint(1, 15) * rng.choice((1, -1))
        spin(d, bounce_max=4, rng=rng)
        expected += d
    print(f"gpiozero_rotary_bounce_settled_error {enc.steps - expected} detents")
    print(f"gpiozero_rotary_bounce_expected {expected} detents")


if __name__ == "__main__":
    main()
