import PomodoroControl
import PomodoroCore
import PomodoroSystem

/// What the bridge takes from its command topic, judged before anything reaches the device:
/// payloads over the socket's line limit, retained copies (the broker would replay them at every
/// reconnect), the empty payload that clears one, malformed text, `watch`, and anything past
/// `rate` commands a second (a burst of `burst` allowed) are not passed on. What is dropped is
/// said a few times a minute, then counted (`LogLimiter`).
struct CommandIntake {
  /// The longest payload taken: 4 KiB, room for any command (the control socket takes longer
  /// lines, for the room's status the bridge says).
  static let limit = 4096
  static let rate = 10
  static let burst = 20

  let topic: String
  let host: String
  let log: Log
  let limiter: LogLimiter
  /// Commands over the rate: said once a minute, then counted.
  let flood: LogLimiter
  var tokens = Double(CommandIntake.burst)
  var filled: Instant?

  init(topic: String, host: String, log: Log, limiter: LogLimiter) {
    self.topic = topic
    self.host = host
    self.log = log
    self.limiter = limiter
    flood = LogLimiter(log: log, burst: 1)
  }

  /// The command in `message` and its label for the log, or nil when it is not passed on.
  mutating func take(_ message: MQTTMessage, at now: Instant) -> (ControlCommand, String)? {
    guard message.length <= Self.limit else {
      limiter.say(
        "oversized", .warning,
        "ignored a command payload of \(message.length) bytes on \(topic): over the \(Self.limit / 1024) KiB limit (a command is a line like 'extend 5m')",
        what: "oversized command payloads on \(topic)", at: now)
      return nil
    }
    let text = message.text
    // A retained command is the broker's copy of an old one: taken, it would replay at every
    // reconnect (a timer started again after a cancel).
    if message.retained && message.length > 0 {
      log.once(
        "retained-command", .warning,
        "ignored a retained command '\(text.prefix(100))' on \(topic): the broker keeps it and would replay it at every reconnect; "
          + "publish commands without -r, and clear it with: mosquitto_pub -h \(host) -r -n -t \(topic)"
      )
      return nil
    }
    // Empty: the clearing of a retained command (mosquitto_pub -r -n), as documented above.
    guard message.length > 0 else { return nil }
    switch ControlCommand.parse(payload: text) {
    case .failure(let refusal):
      limiter.say(
        "malformed", .warning, "ignored a malformed command on \(topic): '\(text.prefix(100))' (\(refusal.message))",
        what: "malformed commands on \(topic)", at: now)
      return nil
    case .success(.watch):
      limiter.say(
        "watch", .warning, "ignored 'watch' on \(topic): the bridge watches already",
        what: "'watch' commands on \(topic)", at: now)
      return nil
    case .success(.pair):
      limiter.say(
        "pair", .warning, "ignored 'pair' on \(topic): pairing codes are pomodoro web's",
        what: "'pair' commands on \(topic)", at: now)
      return nil
    case .success(let command) where command.isConfig:
      limiter.say(
        "config", .warning,
        "ignored '\(command.name)' on \(topic): settings are changed with pomodoro ctl config or the page, not over MQTT",
        what: "config commands on \(topic)", at: now)
      return nil
    case .success(let command):
      guard admit(at: now) else {
        flood.say(
          "rate", .warning,
          "dropped the command '\(command.name)' from \(topic): more than \(Self.rate) a second (a burst of \(Self.burst) is let through)",
          what: "commands dropped over the rate on \(topic)", at: now)
        return nil
      }
      return (command, String(TextLines.trimmed(text).prefix(100)))
    }
  }

  /// A token bucket: `rate` tokens a second up to `burst`; one a command.
  mutating func admit(at now: Instant) -> Bool {
    if let filled { tokens = min(Double(Self.burst), tokens + Double(now - filled) * Double(Self.rate) / 1e9) }
    filled = now
    guard tokens >= 1 else { return false }
    tokens -= 1
    return true
  }
}
