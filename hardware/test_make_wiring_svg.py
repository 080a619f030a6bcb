"""Tests of hardware/make_wiring_svg.py: python3 -B -m unittest discover -s hardware -v"""

import tempfile
import unittest
from pathlib import Path

import make_wiring_svg as wiring


SCRATCH = tempfile.TemporaryDirectory(prefix="wiring-test-")


def conf_with(**changes):
    """A copy of deploy/pomodoro.conf with some keys changed, in a temporary folder."""
    lines = []
    for raw in wiring.CONF.read_text().splitlines():
        key = raw.split("=", 1)[0].strip()
        if (not raw.startswith("#") or raw.startswith("# presence_line =")) and "=" in raw and key in changes:
            raw = f"{key} = {changes[key]}"
        lines.append(raw)
    path = Path(SCRATCH.name) / f"pomodoro-{len(list(Path(SCRATCH.name).iterdir()))}.conf"
    path.write_text("\n".join(lines) + "\n")
    return path


class WiringTests(unittest.TestCase):
    def test_header_pins_of_the_default_wiring(self):
        # The contract's default wiring: BCM name -> physical pin.
        expected = {"GPIO17": 11, "GPIO27": 13, "GPIO22": 15, "GPIO23": 16, "GPIO24": 18, "GPIO25": 22,
                    "GPIO2": 3, "GPIO3": 5}
        for name, pin in expected.items():
            self.assertEqual(wiring.physical_pin(name), pin, name)
        self.assertEqual(wiring.physical_pin("17"), 11, "an offset names the same line")

    def test_table_lists_every_signal_with_its_config_key(self):
        _, table = wiring.build()
        for row in ("| Encoder A | GPIO17 | 11 |", "| Encoder B | GPIO27 | 13 |", "| Encoder push | GPIO22 | 15 |",
                    "| Start | GPIO23 | 16 |", "| Cancel | GPIO24 | 18 |", "| Buzzer | GPIO25 | 22 |",
                    "| I2C1 SDA | GPIO2 | 3 |", "| I2C1 SCL | GPIO3 | 5 |", "| 3.3 V | - | 1 (3V3) |"):
            self.assertIn(row, table)
        self.assertIn("`buzzer = GPIO25`", table)
        self.assertIn("| Presence | GPIO16 | 36 | Presence sensor (optional: HC-SR501 PIR or LD2410): OUT |", table)
        self.assertIn("| 5 V (sensor supply) | - | 2 (5V) |", table)

    def test_the_presence_sensor_is_drawn_at_its_example_line(self):
        # presence_line is unset by default: the pin drawn is its example line's in pomodoro.conf.
        svg, table = wiring.build(conf_with(**{"# presence_line": "GPIO26"}))
        self.assertIn("| Presence | GPIO26 | 37 |", table)
        self.assertIn("`presence_line = GPIO26`", table)
        self.assertIn("Presence sensor", svg)

    def test_committed_svg_and_table_are_current(self):
        self.assertEqual(wiring.main(["--check"]), 0, "run python3 hardware/make_wiring_svg.py")

    def test_a_pin_change_in_the_config_moves_the_wire(self):
        svg, table = wiring.build(conf_with(buzzer="GPIO5"))
        default_svg, _ = wiring.build()
        self.assertIn("| Buzzer | GPIO5 | 29 |", table)
        self.assertNotIn("GPIO25`", table)
        self.assertNotEqual(svg, default_svg)

    def test_the_passive_drawing_puts_the_piezo_on_the_pwm_pin(self):
        svg, table = wiring.build(passive=True)
        self.assertIn("| PWM (passive buzzer) | GPIO18 | 12 | Passive piezo + NPN (PWM): 1k to base |", table)
        self.assertNotIn("GPIO25", table, "the active buzzer's line is not drawn")
        self.assertIn("passive buzzer on PWM", svg)
        self.assertEqual(wiring.build(conf_with(buzzer_kind="passive"))[1], table, "buzzer_kind says the same")

    def test_two_signals_on_one_pin_are_refused(self):
        with self.assertRaises(SystemExit) as caught:
            wiring.build(conf_with(button_start="GPIO25"))
        self.assertIn("pin 22", str(caught.exception))

    def test_the_display_bus_pins_are_refused_for_buttons(self):
        with self.assertRaises(SystemExit):
            wiring.build(conf_with(button_cancel="GPIO2"))

    def test_a_line_off_the_header_is_refused(self):
        with self.assertRaises(SystemExit) as caught:
            wiring.build(conf_with(encoder_a="GPIO40"))
        self.assertIn("GPIO40", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
