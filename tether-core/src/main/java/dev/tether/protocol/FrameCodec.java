package dev.tether.protocol;

import static dev.tether.protocol.PayloadReader.readCount;
import static dev.tether.protocol.PayloadReader.readMetadata;
import static dev.tether.protocol.PayloadReader.readName;
import static dev.tether.protocol.PayloadReader.readRest;
import static dev.tether.protocol.PayloadReader.readString;
import static dev.tether.protocol.PayloadReader.readU32;
import static dev.tether.protocol.PayloadReader.readU64;
import static dev.tether.protocol.PayloadReader.readU8;
import static dev.tether.protocol.PayloadReader.readVarint32;
import static dev.tether.protocol.PayloadReader.readVarint64;
import static dev.tether.protocol.PayloadReader.requireEnd;
import static dev.tether.protocol.PayloadWriter.metadataSize;
import static dev.tether.protocol.PayloadWriter.stringSize;
import static dev.tether.protocol.PayloadWriter.varint32Size;
import static dev.tether.protocol.PayloadWriter.varint64Size;
import static dev.tether.protocol.PayloadWriter.writeMetadata;
import static dev.tether.protocol.PayloadWriter.writeString;
import static dev.tether.protocol.PayloadWriter.writeVarint32;
import static dev.tether.protocol.PayloadWriter.writeVarint64;

import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Encodes frames into, and decodes them from, the v1 wire layout of {@code docs/protocol.md}.
 * Encoding writes header and payload straight into the caller's buffer and rejects frames the
 * protocol cannot carry with {@link IllegalArgumentException}; decoding reads exactly one frame
 * and throws {@link ProtocolException} naming the malformed field. Stateless and thread-safe.
 */
public final class FrameCodec {
  /** Bytes of the length field that opens every frame. */
  public static final int LENGTH_FIELD_LENGTH = 4;
  /** Bytes counted by the length field before the payload: type, flags, request id. */
  public static final int HEADER_LENGTH = 6;
  /** Every flag bit a REQUEST may carry; the rest are reserved. */
  public static final int REQUEST_FLAGS = Request.ONEWAY | Request.IDEMPOTENT | Request.COMPRESSED;
  /** Every flag bit a RESPONSE may carry (protocol 1.1); the rest are reserved. */
  public static final int RESPONSE_FLAGS = Response.COMPRESSED;

  // A batched REQUEST is at least its length field, its header and four one-byte fields.
  private static final int MIN_BATCH_ENTRY = LENGTH_FIELD_LENGTH + HEADER_LENGTH + 4;
  private static final int MIN_STRING = 1;
  // Presizing lists by a peer-supplied count would let a small frame ask for a large array.
  private static final int MAX_PRESIZE = 16;

  private FrameCodec() {}

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
   * @throws IllegalArgumentException if a field is outside what the protocol carries; then
   *     {@code out} is left as it was
   */
  public static void encode(Frame frame, ByteBuf out) {
    if (frame instanceof Request r) {
      encodeRequest(r.requestId(), r.flags(), r.service(), r.operation(), r.deadlineMillis(), r.metadata(), r.body(), out);
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

  /**
   * Decodes one whole frame: {@code frame}'s readable bytes are everything the length field
   * counts (type, flags, request id, payload). Consumes them all.
   *
   * @throws ProtocolException if the bytes are not exactly one well-formed frame
   */
  public static Frame decode(ByteBuf frame) {
    return decode(frame, null);
  }

  /** {@link #decode(ByteBuf)}, reading REQUEST names through {@code names} (null: no cache). */
  static Frame decode(ByteBuf frame, NameCache names) {
    return decode(frame, names, null);
  }

  /**
   * {@link #decode(ByteBuf, NameCache)}, with compressed bodies decompressed by {@code
   * bodies}; null leaves every body as it travelled.
   */
  static Frame decode(ByteBuf frame, NameCache names, BodyCompression bodies) {
    if (frame.readableBytes() < HEADER_LENGTH) {
      throw new ProtocolException(
          "frame of " + frame.readableBytes() + " bytes is shorter than the 6-byte header");
    }
    int typeCode = frame.readUnsignedByte();
    FrameType type = FrameType.fromCode(typeCode);
    if (type == null) {
      throw new ProtocolException("unknown frame type " + typeCode);
    }
    int flags = frame.readUnsignedByte();
    int requestId = frame.readInt();
    checkHeader(type, flags, requestId);
    return switch (type) {
      case HELLO -> readHello(frame);
      case WELCOME -> readWelcome(frame);
      case REQUEST -> readRequest(frame, flags, requestId, names, bodies);
      case RESPONSE -> readResponse(frame, flags, requestId, bodies);
      case CANCEL -> readCancel(frame, requestId);
      case PING -> new Ping(readData(frame, type));
      case PONG -> new Pong(readData(frame, type));
      case GOAWAY -> readGoAway(frame);
      case BATCH -> readBatch(frame, names, bodies);
      case TOPOLOGY -> readTopology(frame);
    };
  }

  // ---- encoding

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
      case TOPOLOGY -> topologySize(((TopologyUpdate) frame).primary(), ((TopologyUpdate) frame).alternates());
    };
  }

  private static long welcomeSize(Welcome welcome) {
    long size =
        stringSize(welcome.serverId())
            + stringSize(welcome.serverVersion())
            + varint32Size(welcome.heartbeatMillis())
            + 4
            + varint32Size(welcome.maxConcurrentRequests());
    return size + topologySize(welcome.primary(), welcome.alternates());
  }

  /** WELCOME's tail and TOPOLOGY's payload: primary, then the alternates. */
  private static long topologySize(String primary, List<String> alternates) {
    long size = stringSize(primary) + varint32Size(alternates.size());
    for (String alternate : alternates) {
      size += stringSize(alternate);
    }
    return size;
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
      case TOPOLOGY -> writeTopology(((TopologyUpdate) frame).primary(), ((TopologyUpdate) frame).alternates(), out);
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
        out,
        requireNonNegative(welcome.maxConcurrentRequests(), "WELCOME.maxConcurrentRequests"));
    writeTopology(welcome.primary(), welcome.alternates(), out);
  }

  private static void writeTopology(String primary, List<String> alternates, ByteBuf out) {
    writeString(out, primary);
    writeVarint32(out, alternates.size());
    for (String alternate : alternates) {
      writeString(out, alternate);
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
   * written from {@code names}, the sending connection's cache of their wire form (null: none);
   * the bytes are the same either way.
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
      throw new IllegalArgumentException("REQUEST flags 0x" + Integer.toHexString(flags) + " set reserved bits");
    }
    if (deadlineMillis < 0) {
      throw new IllegalArgumentException("REQUEST.deadlineMillis must not be negative: " + deadlineMillis);
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
   * Appends a RESPONSE frame built from its fields, with no {@link Response} object in between:
   * the server's path, which may swap in a compressed body. Same checks and layout as {@link
   * #encode(Frame, ByteBuf)}.
   */
  public static void encodeResponse(
      int requestId, int flags, Status status, Map<String, String> metadata, byte[] body, ByteBuf out) {
    if ((flags & ~RESPONSE_FLAGS) != 0) {
      throw new IllegalArgumentException("RESPONSE flags 0x" + Integer.toHexString(flags) + " set reserved bits");
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
    out.writeByte(goAway.reason().code());
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

  // ---- decoding

  private static void checkHeader(FrameType type, int flags, int requestId) {
    if (type == FrameType.REQUEST) {
      if ((flags & ~REQUEST_FLAGS) != 0) {
        throw new ProtocolException("REQUEST: reserved flag bits set in 0x" + hex(flags));
      }
    } else if (type == FrameType.RESPONSE) {
      if ((flags & ~RESPONSE_FLAGS) != 0) {
        throw new ProtocolException("RESPONSE: reserved flag bits set in 0x" + hex(flags));
      }
    } else if (flags != 0) {
      throw new ProtocolException(type + ": flags must be 0, got 0x" + hex(flags));
    }
    if (requestId != 0 && !carriesRequestId(type)) {
      throw new ProtocolException(
          type + ": request id must be 0, got " + Integer.toUnsignedString(requestId));
    }
  }

  private static boolean carriesRequestId(FrameType type) {
    return type == FrameType.REQUEST || type == FrameType.RESPONSE || type == FrameType.CANCEL;
  }

  private static Hello readHello(ByteBuf in) {
    String clientId = readString(in, "HELLO.clientId");
    int maxFrameSize = readFrameSizeLimit(in, "HELLO.maxFrameSize");
    requireEnd(in, FrameType.HELLO);
    return new Hello(clientId, maxFrameSize);
  }

  private static Welcome readWelcome(ByteBuf in) {
    String serverId = readString(in, "WELCOME.serverId");
    String serverVersion = readString(in, "WELCOME.serverVersion");
    int heartbeatMillis = readVarint32(in, "WELCOME.heartbeatMillis");
    int maxFrameSize = readFrameSizeLimit(in, "WELCOME.maxFrameSize");
    int maxConcurrentRequests = readVarint32(in, "WELCOME.maxConcurrentRequests");
    String primary = readString(in, "WELCOME.primary");
    List<String> alternates = readStrings(in, "WELCOME.alternates");
    requireEnd(in, FrameType.WELCOME);
    return new Welcome(
        serverId,
        serverVersion,
        heartbeatMillis,
        maxFrameSize,
        maxConcurrentRequests,
        primary,
        alternates);
  }

  private static TopologyUpdate readTopology(ByteBuf in) {
    String primary = readString(in, "TOPOLOGY.primary");
    List<String> alternates = readStrings(in, "TOPOLOGY.alternates");
    requireEnd(in, FrameType.TOPOLOGY);
    return new TopologyUpdate(primary, alternates);
  }

  private static Request readRequest(
      ByteBuf in, int flags, int requestId, NameCache names, BodyCompression bodies) {
    String service = readName(in, "REQUEST.service", names);
    String operation = readName(in, "REQUEST.operation", names);
    long deadlineMillis = readVarint64(in, "REQUEST.deadlineMillis");
    var metadata = readMetadata(in, "REQUEST.metadata");
    byte[] body = readBody(in, flags & Request.COMPRESSED, bodies, "REQUEST.body");
    return new Request(requestId, flags, service, operation, deadlineMillis, metadata, body);
  }

  /** The rest of the frame; decompressed when it travelled compressed and {@code bodies} is given. */
  private static byte[] readBody(ByteBuf in, int compressed, BodyCompression bodies, String field) {
    if (compressed == 0 || bodies == null) {
      return readRest(in);
    }
    return bodies.decompress(in, in.readableBytes(), field);
  }

  private static Response readResponse(ByteBuf in, int flags, int requestId, BodyCompression bodies) {
    Status status = readStatus(in);
    var metadata = readMetadata(in, "RESPONSE.metadata");
    byte[] body = readBody(in, flags & Response.COMPRESSED, bodies, "RESPONSE.body");
    return new Response(requestId, flags, status, metadata, body);
  }

  private static Status readStatus(ByteBuf in) {
    int code = readU8(in, "RESPONSE.status");
    Status status = Status.fromCode(code);
    if (status == null) {
      throw new ProtocolException("RESPONSE.status: unknown status code " + code);
    }
    return status;
  }

  /**
   * Decodes one whole RESPONSE frame, as {@link #decode(ByteBuf)} would, but hands its fields to
   * {@code sink} instead of building a {@link Response}: the client's hot path.
   *
   * @throws ProtocolException if the bytes are not exactly one well-formed RESPONSE frame
   */
  public static void decodeResponse(ByteBuf frame, ResponseSink sink) {
    decodeResponse(frame, sink, null);
  }

  /**
   * {@link #decodeResponse(ByteBuf, ResponseSink)}, with a compressed body decompressed by {@code
   * bodies} before {@code sink} sees it; null leaves it as it travelled.
   */
  public static void decodeResponse(ByteBuf frame, ResponseSink sink, BodyCompression bodies) {
    if (frame.readableBytes() < HEADER_LENGTH) {
      throw new ProtocolException(
          "frame of " + frame.readableBytes() + " bytes is shorter than the 6-byte header");
    }
    int typeCode = frame.readUnsignedByte();
    if (typeCode != FrameType.RESPONSE.code()) {
      throw new ProtocolException("expected a RESPONSE frame, got type " + typeCode);
    }
    int flags = frame.readUnsignedByte();
    int requestId = frame.readInt();
    checkHeader(FrameType.RESPONSE, flags, requestId);
    Status status = readStatus(frame);
    var metadata = readMetadata(frame, "RESPONSE.metadata");
    sink.onResponse(requestId, status, metadata, readBody(frame, flags & Response.COMPRESSED, bodies, "RESPONSE.body"));
  }

  private static Cancel readCancel(ByteBuf in, int requestId) {
    requireEnd(in, FrameType.CANCEL);
    return new Cancel(requestId);
  }

  private static long readData(ByteBuf in, FrameType type) {
    long data = readU64(in, type + ".data");
    requireEnd(in, type);
    return data;
  }

  private static GoAway readGoAway(ByteBuf in) {
    int code = readU8(in, "GOAWAY.reason");
    GoAwayReason reason = GoAwayReason.fromCode(code);
    if (reason == null) {
      throw new ProtocolException("GOAWAY.reason: unknown reason code " + code);
    }
    int lastAcceptedId = readU32(in, "GOAWAY.lastAcceptedId");
    String message = readString(in, "GOAWAY.message");
    requireEnd(in, FrameType.GOAWAY);
    return new GoAway(reason, lastAcceptedId, message);
  }

  private static Batch readBatch(ByteBuf in, NameCache names, BodyCompression bodies) {
    int count = readCount(in, MIN_BATCH_ENTRY, "BATCH.count");
    List<Request> requests = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      requests.add(readBatchEntry(in, i, names, bodies));
    }
    requireEnd(in, FrameType.BATCH);
    return new Batch(requests);
  }

  private static Request readBatchEntry(ByteBuf in, int index, NameCache names, BodyCompression bodies) {
    long length = Integer.toUnsignedLong(readU32(in, "BATCH.length"));
    if (length < HEADER_LENGTH || length > in.readableBytes()) {
      throw new ProtocolException(
          "BATCH: entry " + index + " has length " + length + ", outside 6.."
              + in.readableBytes() + " (what is left of the batch)");
    }
    ByteBuf entry = in.readSlice((int) length);
    int typeCode = entry.getUnsignedByte(entry.readerIndex());
    if (typeCode != FrameType.REQUEST.code()) {
      throw new ProtocolException(
          "BATCH: entry " + index + " has frame type " + typeCode + "; only REQUEST is allowed");
    }
    Request request;
    try {
      request = (Request) decode(entry, names, bodies);
    } catch (ProtocolException e) {
      throw new ProtocolException("BATCH: entry " + index + ": " + e.getMessage(), e);
    }
    if (!request.isOneway()) {
      throw new ProtocolException("BATCH: entry " + index + " is not ONEWAY");
    }
    return request;
  }

  private static List<String> readStrings(ByteBuf in, String field) {
    int count = readCount(in, MIN_STRING, field);
    if (count == 0) {
      return List.of();
    }
    List<String> strings = new ArrayList<>(Math.min(count, MAX_PRESIZE));
    for (int i = 0; i < count; i++) {
      strings.add(readString(in, field));
    }
    return strings;
  }

  private static int readFrameSizeLimit(ByteBuf in, String field) {
    int value = readU32(in, field);
    // Unsigned values of 2^31 and above read as negative: out of range as well.
    if (value < HEADER_LENGTH) {
      throw PayloadReader.malformed(
          field, Integer.toUnsignedString(value) + " is outside 6..2^31-1");
    }
    return value;
  }

  private static String hex(int flags) {
    return String.format("%02x", flags);
  }
}
