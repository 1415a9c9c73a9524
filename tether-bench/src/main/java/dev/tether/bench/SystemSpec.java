package dev.tether.bench;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A named system and setting the benchmark can run, with factories for fresh servers and clients.
 *
 * @param family the system being compared: {@link #RAW_NETTY}, {@link #GRPC}, {@link #DUBBO},
 *     {@link #TETHER} or {@link #TETHER_GRPC}
 * @param setting the variant of the family, such as {@code "direct"} or {@code "default"}; empty
 *     when the family has a single setting
 * @param server creates a new, not yet started server
 * @param client creates a new, not yet connected client for that server
 * @param description what {@code --list} says of a name that does not explain itself; may be empty
 */
public record SystemSpec(
    String family,
    String setting,
    Supplier<? extends BenchServer> server,
    Supplier<? extends BenchClient> client,
    String description) {

  /** Hand-written length-prefixed frames over Netty: the practical limit. */
  public static final String RAW_NETTY = "raw-netty";

  /** gRPC-java unary calls. */
  public static final String GRPC = "grpc";

  /** Apache Dubbo, its default dubbo protocol. */
  public static final String DUBBO = "dubbo";

  /** Tether. */
  public static final String TETHER = "tether";

  /** A Tether server serving gRPC, measured with gRPC-java's client. */
  public static final String TETHER_GRPC = "tether-grpc";

  /** Tether's gRPC channel (a Tether proxy's connections) calling gRPC-java's server. */
  public static final String TETHER_CHANNEL_TO_GRPC = "tchan>grpc";

  /** Tether's gRPC channel calling a Tether server that serves gRPC. */
  public static final String TETHER_CHANNEL_TO_TETHER_GRPC = "tchan>tether-grpc";

  public SystemSpec {
    Objects.requireNonNull(family, "family");
    Objects.requireNonNull(setting, "setting");
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(description, "description");
  }

  /** A system whose name says what it is. */
  public SystemSpec(
      String family,
      String setting,
      Supplier<? extends BenchServer> server,
      Supplier<? extends BenchClient> client) {
    this(family, setting, server, client, "");
  }

  /** A fresh server and client in this JVM, not yet started. */
  public BenchSystem inJvm() {
    return new InJvmSystem(server.get(), client.get());
  }

  /** The label shown in the results, e.g. {@code "grpc direct"} or {@code "raw-netty"}. */
  public String name() {
    return setting.isEmpty() ? family : family + " " + setting;
  }

  /**
   * Whether a {@code --systems} token selects this system: the family alone ({@code grpc}) or the
   * full name, with a space or a hyphen between family and setting ({@code grpc-direct}).
   */
  public boolean matches(String token) {
    String wanted = normalize(token);
    return wanted.equals(normalize(family)) || wanted.equals(normalize(name()));
  }

  private static String normalize(String text) {
    return text.trim().toLowerCase(Locale.ROOT).replace(' ', '-');
  }
}
