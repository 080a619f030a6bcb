import CPomodoroSystem

/// The signals the loop hears through its self-pipe (SIGINT, SIGTERM and SIGHUP always; others
/// once watched), their names, and their default actions carried out on purpose.
public enum Signals {
  /// `SIGTERM` for 15, and so on; `signal N` for one without a name here.
  public static func name(_ signo: Int32) -> String {
    let names: [Int32: String] = [
      SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGTERM: "SIGTERM", SIGUSR1: "SIGUSR1",
      SIGUSR2: "SIGUSR2", SIGALRM: "SIGALRM", SIGTSTP: "SIGTSTP", SIGCONT: "SIGCONT", SIGPIPE: "SIGPIPE",
      SIGVTALRM: "SIGVTALRM", SIGPROF: "SIGPROF", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
    ]
    return names[signo] ?? "signal \(signo)"
  }

  /// The signals of one wake as the loop acts on them: in the order they came, each SIGHUP after
  /// the first dropped. Every signal is a byte in the self-pipe, and a storm (a script looping
  /// `systemctl kill -s HUP`) leaves thousands there: they ask for one reload, not one each.
  public static func coalesced(_ signals: [Int32]) -> [Int32] {
    var hangUp = false
    return signals.filter { signo in
      guard signo == SIGHUP else { return true }
      defer { hangUp = true }
      return !hangUp
    }
  }

  /// The exit code that says "ended by `signo`" the way a shell reports it: 128 + n.
  public static func exitCode(_ signo: Int32) -> Int32 { 128 + signo }

  /// Sends `signos` to the loop's pipe as well (beyond SIGINT, SIGTERM and SIGHUP).
  public static func watch(_ signos: [Int32]) throws {
    for signo in signos where pomo_signal_watch(signo) != 0 {
      throw SystemError("cannot install a handler for \(name(signo))")
    }
  }

  /// Puts `signos` back to their default actions (SIGINT, SIGTERM and SIGHUP stay on the pipe).
  public static func unwatch(_ signos: [Int32]) {
    for signo in signos { pomo_signal_unwatch(signo) }
  }

  /// The first signal caught since start (nil: none): checked between steps of a scripted run.
  public static var first: Int32? {
    let signo = pomo_signal_first()
    return signo == 0 ? nil : signo
  }

  /// Forgets every signal caught so far (the pipe drained, `first` nil again): for a process that
  /// runs several commands in turn, as the tests do, so one command's signal never ends the next.
  public static func forget() { pomo_signal_forget() }

  /// Stops (SIGTSTP) or ends (SIGUSR1, SIGQUIT, ...) the process as the signal would have had
  /// it not been caught; returns only when the process lives on (continued after a stop).
  public static func defaultAction(_ signo: Int32) { pomo_signal_default_action(signo) }

  /// The signals whose default action ends the process, other than SIGINT, SIGTERM, SIGHUP and
  /// SIGPIPE (ignored): a program that owns the terminal restores it before any of them.
  public static let otherTerminating: [Int32] = [
    SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ,
  ]
}
