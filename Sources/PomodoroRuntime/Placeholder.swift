// Placeholder until the runtime work lands.
public enum RuntimePlaceholder {}
