package dev.tether.protocol;

import static dev.tether.protocol.FrameHeader.HEADER_LENGTH;
import static dev.tether.protocol.FrameHeader.LENGTH_FIELD_LENGTH;
import static dev.tether.protocol.FrameHeader.REQUEST_FLAGS;
import static dev.tether.protocol.FrameHeader.RESPONSE_FLAGS;
import static dev.tether.protocol.PayloadWriter.metadataSize;
import static dev.tether.protocol.PayloadWriter.stringSize;
import static dev.tether.protocol.PayloadWriter.varint32Size;
import static dev.tether.protocol.PayloadWriter.varint64Size;
import static dev.tether.protocol.PayloadWriter.writeMetadata;
import static dev.tether.protocol.PayloadWriter.writeString;
import static dev.tether.protocol.PayloadWriter.writeVarint32;
import static dev.tether.protocol.PayloadWriter.writeVarint64;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Map;

/**
 * Encodes frames into the v1 wire layout of {@code docs/protocol.md}: header and payload go
 * straight into the caller's buffer, and a frame the protocol cannot carry is rejected with {@link
 * IllegalArgumentException}, leaving the buffer as it was. The request and response paths take
 * their fields directly, with no frame object in between. Stateless and thread-safe.
 */
public final class FrameWriter {
  private FrameWriter() {}

  /** Writes an 8-byte preface that announces no capabilities. */
  public static void writePreface(ByteBuf out) {
    writePreface(out, 0);
  }

  /**
   * Writes this side's 8-byte preface: "TETH", major, minor, then the capability bits (protocol
   * 1.1: {@link BodyCompression#ZSTD}) in the two bytes a 1.0 receiver ignores.
   */
  public static void writePreface(ByteBuf out, int capabilities) {
    out.writeInt(ProtocolVersion.MAGIC);
    out.writeByte(ProtocolVersion.MAJOR);
    out.writeByte(ProtocolVersion.MINOR);
    out.writeShort(capabilities);
  }

  /** The bytes {@link #encode(Frame, ByteBuf)} writes for {@code frame}, length field included. */
  public static int encodedSize(Frame frame) {
    long size = LENGTH_FIELD_LENGTH + HEADER_LENGTH + payloadSize(frame);
    if (size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          frame.type() + " frame of " + size + " bytes does not fit in a buffer");
    }
    return (int) size;
  }

  /** Encodes {@code frame} into a new I/O buffer of exactly its size, owned by the caller. */
  public static ByteBuf encode(Frame frame, ByteBufAllocator alloc) {
    ByteBuf out = alloc.ioBuffer(encodedSize(frame));
    try {
      encode(frame, out);
      return out;
    } catch (RuntimeException e) {
      out.release();
      throw e;
    }
  }

  /**
   * Appends {@code frame}, length field included, to {@code out}.
   *
   * @throws IllegalArgumentException if a field is outside what the protocol carries; then {@code
   *     out} is left as it was
   */
  public static void encode(Frame frame, ByteBuf out) {
    if (frame instanceof Request r) {
      encodeRequest(
          r.requestId(),
          r.flags(),
          r.service(),
          r.operation(),
          r.deadlineMillis(),
          r.metadata(),
          r.body(),
          out);
      return;
    }
    if (frame instanceof Response r) {
      encodeResponse(r.requestId(), r.flags(), r.status(), r.metadata(), r.body(), out);
      return;
    }
    // Only REQUEST and RESPONSE carry flags, and their own encoders write them.
    int start = beginFrame(frame.type(), 0, frame.requestId(), out);
    try {
      writePayload(frame, out);
      endFrame(start, out);
    } catch (RuntimeException e) {
      out.writerIndex(start);
      throw e;
    }
  }

  private static long payloadSize(Frame frame) {
    return switch (frame.type()) {
      case HELLO -> stringSize(((Hello) frame).clientId()) + 4;
      case WELCOME -> welcomeSize((Welcome) frame);
      case REQUEST -> requestSize((Request) frame);
      case RESPONSE -> responseSize((Response) frame);
      case CANCEL -> 0;
      case PING, PONG -> 8;
      case GOAWAY -> 1 + 4 + stringSize(((GoAway) frame).message());
      case BATCH -> batchSize((Batch) frame);
      case TOPOLOGY -> topologySize((TopologyUpdate) frame);
      case STREAM_ITEM, STREAM_CREDIT, STREAM_END -> StreamFrames.payloadSize(frame);
    };
  }

  private static long welcomeSize(Welcome welcome) {
    long size =
        stringSize(welcome.serverId())
            + stringSize(welcome.serverVersion())
            + varint32Size(welcome.heartbeatMillis())
            + 4
            + varint32Size(welcome.maxConcurrentRequests());
    return size + topologySize(TopologyUpdate.of(welcome));
  }

  /**
   * WELCOME's tail and TOPOLOGY's payload: primary, the alternates, then the epoch when there is
   * one (protocol 1.4; absent for 0).
   */
  private static long topologySize(TopologyUpdate view) {
    long size = stringSize(view.primary()) + varint32Size(view.alternates().size());
    for (String alternate : view.alternates()) {
      size += stringSize(alternate);
    }
    return view.epoch() == 0 ? size : size + varint64Size(view.epoch());
  }

  private static long requestSize(Request request) {
    return stringSize(request.service())
        + stringSize(request.operation())
        + varint64Size(request.deadlineMillis())
        + metadataSize(request.metadata())
        + request.body().length;
  }

  private static long responseSize(Response response) {
    return 1 + metadataSize(response.metadata()) + response.body().length;
  }

  private static long batchSize(Batch batch) {
    long size = varint32Size(batch.requests().size());
    for (Request request : batch.requests()) {
      size += LENGTH_FIELD_LENGTH + HEADER_LENGTH + requestSize(request);
    }
    return size;
  }

  private static void writePayload(Frame frame, ByteBuf out) {
    switch (frame.type()) {
      case HELLO -> writeHello((Hello) frame, out);
      case WELCOME -> writeWelcome((Welcome) frame, out);
      case REQUEST -> throw new AssertionError("requests are written by encodeRequest");
      case RESPONSE -> throw new AssertionError("responses are written by encodeResponse");
      case CANCEL -> {}
      case PING -> out.writeLong(((Ping) frame).data());
      case PONG -> out.writeLong(((Pong) frame).data());
      case GOAWAY -> writeGoAway((GoAway) frame, out);
      case BATCH -> writeBatch((Batch) frame, out);
      case TOPOLOGY -> writeTopology((TopologyUpdate) frame, out);
      case STREAM_ITEM, STREAM_CREDIT, STREAM_END -> StreamFrames.writePayload(frame, out);
    }
  }

  private static void writeHello(Hello hello, ByteBuf out) {
    writeString(out, hello.clientId());
    out.writeInt(requireFrameSizeLimit(hello.maxFrameSize(), "HELLO.maxFrameSize"));
  }

  private static void writeWelcome(Welcome welcome, ByteBuf out) {
    writeString(out, welcome.serverId());
    writeString(out, welcome.serverVersion());
    writeVarint32(out, requireNonNegative(welcome.heartbeatMillis(), "WELCOME.heartbeatMillis"));
    out.writeInt(requireFrameSizeLimit(welcome.maxFrameSize(), "WELCOME.maxFrameSize"));
    writeVarint32(
        out, requireNonNegative(welcome.maxConcurrentRequests(), "WELCOME.maxConcurrentRequests"));
    writeTopology(TopologyUpdate.of(welcome), out);
  }

  private static void writeTopology(TopologyUpdate view, ByteBuf out) {
    writeString(out, view.primary());
    writeVarint32(out, view.alternates().size());
    for (String alternate : view.alternates()) {
      writeString(out, alternate);
    }
    if (view.epoch() != 0) {
      // Only a 1.4 peer is sent a view with an epoch (the server strips it for older ones).
      writeVarint64(out, view.epoch());
    }
  }

  /**
   * Appends a REQUEST frame built from its fields, with no {@link Request} object in between: the
   * client's hot path. Same checks and layout as {@link #encode(Frame, ByteBuf)}.
   */
  public static void encodeRequest(
      int requestId,
      int flags,
      String service,
      String operation,
      long deadlineMillis,
      Map<String, String> metadata,
      byte[] body,
      ByteBuf out) {
    encodeRequest(requestId, flags, service, operation, deadlineMillis, metadata, body, null, out);
  }

  /**
   * {@link #encodeRequest(int, int, String, String, long, Map, byte[], ByteBuf)} with the names
   * written from {@code names}, the sending connection's cache of their wire form (null: none); the
   * bytes are the same either way.
   */
  public static void encodeRequest(
      int requestId,
      int flags,
      String service,
      String operation,
      long deadlineMillis,
      Map<String, String> metadata,
      byte[] body,
      EncodedNames names,
      ByteBuf out) {
    if ((flags & ~REQUEST_FLAGS) != 0) {
      throw new IllegalArgumentException(
          "REQUEST flags 0x" + Integer.toHexString(flags) + " set reserved bits");
    }
    if (deadlineMillis < 0) {
      throw new IllegalArgumentException(
          "REQUEST.deadlineMillis must not be negative: " + deadlineMillis);
    }
    int start = beginFrame(FrameType.REQUEST, flags, requestId, out);
    try {
      if (names == null) {
        writeString(out, service);
        writeString(out, operation);
      } else {
        names.write(out, service);
        names.write(out, operation);
      }
      writeVarint64(out, deadlineMillis);
      writeMetadata(out, metadata);
      out.writeBytes(body);
      endFrame(start, out);
    } catch (RuntimeException e) {
      out.writerIndex(start);
      throw e;
    }
  }

  /**
   * Appends a RESPONSE frame built from its fields, with no {@link Response} object in between: the
   * server's path, which may swap in a compressed body. Same checks and layout as {@link
   * #encode(Frame, ByteBuf)}.
   */
  public static void encodeResponse(
      int requestId,
      int flags,
      Status status,
      Map<String, String> metadata,
      byte[] body,
      ByteBuf out) {
    if ((flags & ~RESPONSE_FLAGS) != 0) {
      throw new IllegalArgumentException(
          "RESPONSE flags 0x" + Integer.toHexString(flags) + " set reserved bits");
    }
    int start = beginFrame(FrameType.RESPONSE, flags, requestId, out);
    try {
      out.writeByte(status.code());
      writeMetadata(out, metadata);
      out.writeBytes(body);
      endFrame(start, out);
    } catch (RuntimeException e) {
      out.writerIndex(start);
      throw e;
    }
  }

  /**
   * Writes a frame's header with a placeholder length, for {@link #endFrame} to patch once the
   * payload is written; returns where the frame starts, which is also where to roll back to.
   */
  private static int beginFrame(FrameType type, int flags, int requestId, ByteBuf out) {
    int start = out.writerIndex();
    out.writeInt(0);
    out.writeByte(type.code());
    out.writeByte(flags);
    out.writeInt(requestId);
    return start;
  }

  private static void endFrame(int start, ByteBuf out) {
    out.setInt(start, out.writerIndex() - start - LENGTH_FIELD_LENGTH);
  }

  private static void writeGoAway(GoAway goAway, ByteBuf out) {
    out.writeByte(goAway.reasonCode());
    out.writeInt(goAway.lastAcceptedId());
    writeString(out, goAway.message());
  }

  private static void writeBatch(Batch batch, ByteBuf out) {
    writeVarint32(out, batch.requests().size());
    for (Request request : batch.requests()) {
      if (!request.isOneway()) {
        throw new IllegalArgumentException("a BATCH may hold only ONEWAY requests");
      }
      encode(request, out);
    }
  }

  private static int requireNonNegative(int value, String field) {
    if (value < 0) {
      throw new IllegalArgumentException(field + " must not be negative: " + value);
    }
    return value;
  }

  private static int requireFrameSizeLimit(int value, String field) {
    if (value < HEADER_LENGTH) {
      throw new IllegalArgumentException(field + " must be at least 6: " + value);
    }
    return value;
  }
}
