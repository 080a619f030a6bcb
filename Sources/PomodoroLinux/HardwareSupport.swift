import CPomodoroHW

/// Whether the hardware libraries were compiled in.
public enum HardwareSupport {
  public static var gpio: Bool { pomo_gpio_compiled() == 1 }
  public static var i2c: Bool { pomo_i2c_compiled() == 1 }
  /// The libgpiod API the shim was built against: 1 (libgpiod 1.x), 2 (2.x) or 0 (none).
  public static var gpiodAPI: Int { Int(pomo_gpio_api()) }
}
