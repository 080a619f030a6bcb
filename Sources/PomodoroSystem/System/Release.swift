/// The release: `pomodoro --version`, and the software version Home Assistant shows for the
/// desk (the bridge's discovery).
public enum Release {
  public static let version = "0.2.0"
}
