// Placeholder until the display work lands.
public enum GraphicsPlaceholder {}
