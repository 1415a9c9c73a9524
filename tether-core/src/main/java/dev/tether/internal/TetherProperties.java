package dev.tether.internal;

import java.util.Properties;

/**
 * The {@code tether.*} settings of one runtime or server: those given through its builder win over
 * {@code -Dtether.*} system properties, which win over the built-in defaults.
 */
public final class TetherProperties {
  private final Properties given;

  public TetherProperties() {
    this(new Properties());
  }

  /** Settings over {@code given}, which this keeps (not a copy) and into which the puts write. */
  public TetherProperties(Properties given) {
    this.given = given;
  }

  public void putAll(Properties p) {
    given.putAll(p);
  }

  public void put(String key, String value) {
    given.setProperty(key, value);
  }

  /** The value in force for {@code key}, or {@code fallback} when neither source sets it. */
  public String get(String key, String fallback) {
    return given.getProperty(key, System.getProperty(key, fallback));
  }

  /** Every setting in force: the {@code tether.*} system properties overlaid by the given ones. */
  public Properties effective() {
    return effective(given);
  }

  /** {@code -Dtether.*} system properties overlaid by {@code given}. */
  public static Properties effective(Properties given) {
    Properties merged = new Properties();
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("tether.")) {
        merged.setProperty(name, System.getProperty(name));
      }
    }
    merged.putAll(given);
    return merged;
  }
}
