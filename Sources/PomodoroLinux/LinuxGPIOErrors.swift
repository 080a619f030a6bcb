import PomodoroDrivers

/// Maps the shim's -errno answers to `GPIOError`s that name the thing and the fix.
enum LinuxGPIOErrors {
  /// Opening the chip `spec` failed with `errno`.
  static func chipOpen(errno e: Int32, spec: String, lineHint: String?) -> GPIOError {
    switch e {
    case Errno.notImplemented:
      return .notInstalled
    case Errno.noEntry:
      if spec == "auto" { return .chipNotFound("auto (no chip has a line named \(lineHint ?? "?"))") }
      return .chipNotFound(spec)
    case Errno.access, Errno.permission:
      return .permissionDenied(path: spec.hasPrefix("/") ? spec : "/dev/gpiochip*")
    case Errno.noDevice, Errno.notATTY:
      return .chipNotFound("\(spec) (not a GPIO chip)")
    default:
      return .io("opening GPIO chip \(spec): \(Errno.text(e))")
    }
  }

  /// Requesting lines on `chip` failed with `errno`; `busyLine` finds who holds what.
  static func request(
    errno e: Int32, chip: String, lines: [String], busyLine: () -> (line: String, consumer: String)?
  ) -> GPIOError {
    switch e {
    case Errno.notImplemented:
      return .notInstalled
    case Errno.busy:
      if let (line, consumer) = busyLine() { return .lineBusy(chip: chip, line: line, consumer: consumer) }
      return .lineBusy(chip: chip, line: lines.joined(separator: ", "), consumer: "another program")
    case Errno.access, Errno.permission:
      return .permissionDenied(path: chip)
    default:
      return .io("requesting \(lines.joined(separator: ", ")) on \(chip): \(Errno.text(e))")
    }
  }
}
