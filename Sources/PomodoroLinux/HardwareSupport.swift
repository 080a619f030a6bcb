import CPomodoroHW
/// Whether the hardware libraries were compiled in.
public enum HardwareSupport {
  public static var gpio: Bool { pomo_gpio_compiled() == 1 }
  public static var i2c: Bool { pomo_i2c_compiled() == 1 }
}
