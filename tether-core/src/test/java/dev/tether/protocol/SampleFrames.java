package dev.tether.protocol;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Representative frames of every type, with the edge cases a codec gets wrong. */
final class SampleFrames {
  static final String NON_ASCII = "Grüße, 世界 🚀";

  private SampleFrames() {}

  static Hello hello() {
    return new Hello("tether-java/0.1 " + NON_ASCII, ProtocolVersion.DEFAULT_MAX_FRAME_SIZE);
  }

  static Welcome welcome() {
    return new Welcome(
        "node-7",
        "2.1.0",
        3000,
        1 << 20,
        10_000,
        "tcp -h 10.0.0.1 -p 7000",
        List.of("tcp -h 10.0.0.2 -p 7000", "ssl -h db2 -p 7001"));
  }

  static Welcome welcomeWithoutTopology() {
    return new Welcome("", "", 0, FrameHeader.HEADER_LENGTH, 0, "", List.of());
  }

  static Request request(int requestId) {
    return new Request(
        requestId,
        // Not COMPRESSED: since 1.1 that flag needs a real zstd body (BodyCompressionTest).
        Request.IDEMPOTENT,
        "echo",
        "say",
        Long.MAX_VALUE,
        metadata("trace-id", "abc123", "lang", NON_ASCII, "", ""),
        "hello".getBytes(StandardCharsets.UTF_8));
  }

  static Request bareRequest(int requestId) {
    return new Request(requestId, 0, "", "", 0, Map.of(), new byte[0]);
  }

  static Request oneway(int requestId, String operation) {
    return new Request(
        requestId,
        Request.ONEWAY,
        "log",
        operation,
        250,
        Map.of("k", "v"),
        operation.getBytes(StandardCharsets.UTF_8));
  }

  static Response response(int requestId) {
    return new Response(
        requestId,
        Status.REMOTE_ERROR,
        metadata(
            Response.ERROR_TYPE,
            "java.lang.IllegalStateException",
            Response.ERROR_MESSAGE,
            NON_ASCII),
        new byte[0]);
  }

  static Response okResponse(int requestId) {
    return new Response(requestId, Status.OK, Map.of(), new byte[] {0, -1, 127, -128});
  }

  static GoAway goAway() {
    return new GoAway(GoAwayReason.SHUTDOWN, 0xFFFF_FFFE, "draining: " + NON_ASCII);
  }

  static Batch batch() {
    return new Batch(List.of(oneway(0, "a"), oneway(11, "b"), oneway(12, "c")));
  }

  /** Frames a client sends after its HELLO. */
  static List<Frame> clientFrames() {
    return List.of(
        request(1),
        bareRequest(2),
        oneway(3, "x"),
        new Cancel(1),
        new Ping(Long.MIN_VALUE),
        new Pong(42),
        batch(),
        new Batch(List.of()),
        goAway());
  }

  /** Frames a server sends after its WELCOME. */
  static List<Frame> serverFrames() {
    return List.of(
        response(1),
        okResponse(0x8000_0000),
        new Ping(-1),
        new Pong(0),
        new GoAway(GoAwayReason.PROTOCOL_ERROR, 0, ""),
        new GoAway(GoAwayReason.TOO_MANY_CONNECTIONS, 0, "too many connections"),
        new GoAway(GoAwayReason.MAX_AGE, GoAway.UNTIL_FURTHER_NOTICE, "max connection age"),
        topology(),
        new TopologyUpdate("", List.of()));
  }

  static TopologyUpdate topology() {
    return new TopologyUpdate(
        "tcp -h 10.0.0.2 -p 7000", List.of("tcp -h 10.0.0.1 -p 7000", NON_ASCII));
  }

  static Stream<Frame> all() {
    return Stream.of(
            Stream.<Frame>of(hello(), welcome(), welcomeWithoutTopology()),
            clientFrames().stream(),
            serverFrames().stream())
        .flatMap(s -> s);
  }

  private static Map<String, String> metadata(String... keysAndValues) {
    Map<String, String> metadata = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      metadata.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return metadata;
  }
}
