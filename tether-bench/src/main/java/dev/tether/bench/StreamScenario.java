package dev.tether.bench;

import java.util.List;
import java.util.function.Supplier;

/**
 * One stream run: a system's streams of one shape, {@code streams} of them at once on the one
 * connection, with the server where {@code placement} says.
 */
record StreamScenario(
    StreamScenario.StreamSystem system,
    StreamScenario.Shape shape,
    int streams,
    Placement placement) {

  /** What the streams do. */
  enum Shape {
    /** A server stream: the server sends stamped items as fast as the client's credit lets it. */
    FEED("server stream"),
    /** A bidirectional stream: the client sends stamped items, the server sends each one back. */
    ECHO("bidi echo");

    final String label;

    Shape(String label) {
      this.label = label;
    }
  }

  /**
   * A system with streams: its bench server (by its name in {@link SystemCatalog}, so that a server
   * process can start it) and a stream client for it.
   */
  record StreamSystem(String name, String serverName, Supplier<StreamClient> client) {
    SystemSpec server() {
      return SystemCatalog.byName(serverName);
    }

    /**
     * Tether's own protocol, or Tether's gRPC channel: its row gets ratios to gRPC-java's (a Tether
     * server under gRPC-java's client does not).
     */
    boolean comparedWithGrpc() {
      return name.equals(SystemSpec.TETHER) || name.startsWith("tchan>");
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * The systems, Tether first, then gRPC-java's client against gRPC-java's server and against a
   * Tether server (tether-grpc), then Tether's gRPC channel against both (tchan>grpc,
   * tchan>tether-grpc). Tether's stream contexts run on its stream threads whatever the server's
   * execution mode, so one Tether row stands against both gRPC settings.
   */
  static List<StreamSystem> systems() {
    return List.of(
        new StreamSystem("tether", "tether default", TetherStreams.Client::new),
        new StreamSystem("grpc direct", "grpc direct", () -> new GrpcStreams.Client(true)),
        new StreamSystem("grpc default", "grpc default", () -> new GrpcStreams.Client(false)),
        new StreamSystem(
            "tether-grpc direct", "tether-grpc direct", () -> new GrpcStreams.Client(true)),
        new StreamSystem(
            "tether-grpc default", "tether-grpc default", () -> new GrpcStreams.Client(false)),
        new StreamSystem(
            "tchan>grpc direct",
            "grpc direct",
            () -> new GrpcStreams.Client(new TetherChannelSystems.Source(true))),
        new StreamSystem(
            "tchan>grpc default",
            "grpc default",
            () -> new GrpcStreams.Client(new TetherChannelSystems.Source(false))),
        new StreamSystem(
            "tchan>tether-grpc direct",
            "tether-grpc direct",
            () -> new GrpcStreams.Client(new TetherChannelSystems.Source(true))),
        new StreamSystem(
            "tchan>tether-grpc default",
            "tether-grpc default",
            () -> new GrpcStreams.Client(new TetherChannelSystems.Source(false))));
  }

  @Override
  public String toString() {
    return system.name() + ", " + streams + " x " + shape.label + ", " + placement.label();
  }
}
