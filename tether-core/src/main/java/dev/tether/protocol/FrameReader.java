package dev.tether.protocol;

import static dev.tether.protocol.FrameHeader.HEADER_LENGTH;
import static dev.tether.protocol.FrameHeader.LENGTH_FIELD_LENGTH;
import static dev.tether.protocol.FrameHeader.REQUEST_FLAGS;
import static dev.tether.protocol.FrameHeader.RESPONSE_FLAGS;
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

import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes frames from the v1 wire layout of {@code docs/protocol.md}: each call reads exactly one
 * whole frame and throws {@link ProtocolException} naming the malformed field. The client's
 * response path hands the fields of a RESPONSE to a {@link ResponseSink} instead of building a
 * frame object. Stateless and thread-safe.
 */
public final class FrameReader {
  // A batched REQUEST is at least its length field, its header and four one-byte fields.
  private static final int MIN_BATCH_ENTRY = LENGTH_FIELD_LENGTH + HEADER_LENGTH + 4;
  private static final int MIN_STRING = 1;
  // Presizing lists by a peer-supplied count would let a small frame ask for a large array.
  private static final int MAX_PRESIZE = 16;

  private FrameReader() {}

  /**
   * Decodes one whole frame: {@code frame}'s readable bytes are everything the length field counts
   * (type, flags, request id, payload). Consumes them all.
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
   * {@link #decode(ByteBuf, NameCache)}, with compressed bodies decompressed by {@code bodies};
   * null leaves every body as it travelled.
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
      case STREAM_ITEM -> StreamFrames.readItem(frame, requestId);
      case STREAM_CREDIT -> StreamFrames.readCredit(frame, requestId);
      case STREAM_END -> StreamFrames.readEnd(frame, requestId);
    };
  }

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
    return type == FrameType.REQUEST
        || type == FrameType.RESPONSE
        || type == FrameType.CANCEL
        || type == FrameType.STREAM_ITEM
        || type == FrameType.STREAM_CREDIT
        || type == FrameType.STREAM_END;
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
    long epoch = readEpoch(in, "WELCOME.epoch");
    requireEnd(in, FrameType.WELCOME);
    return new Welcome(
        serverId,
        serverVersion,
        heartbeatMillis,
        maxFrameSize,
        maxConcurrentRequests,
        primary,
        alternates,
        epoch);
  }

  private static TopologyUpdate readTopology(ByteBuf in) {
    String primary = readString(in, "TOPOLOGY.primary");
    List<String> alternates = readStrings(in, "TOPOLOGY.alternates");
    long epoch = readEpoch(in, "TOPOLOGY.epoch");
    requireEnd(in, FrameType.TOPOLOGY);
    return new TopologyUpdate(primary, alternates, epoch);
  }

  /**
   * The optional last field of a view (protocol 1.4): absent (0) from older servers and for a view
   * no election made; present, it is positive.
   */
  private static long readEpoch(ByteBuf in, String field) {
    if (!in.isReadable()) {
      return 0;
    }
    long epoch = readVarint64(in, field);
    if (epoch <= 0) {
      throw new ProtocolException(field + ": must be positive when present, got " + epoch);
    }
    return epoch;
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

  /**
   * The rest of the frame; decompressed when it travelled compressed and {@code bodies} is given.
   */
  private static byte[] readBody(ByteBuf in, int compressed, BodyCompression bodies, String field) {
    if (compressed == 0 || bodies == null) {
      return readRest(in);
    }
    return bodies.decompress(in, in.readableBytes(), field);
  }

  private static Response readResponse(
      ByteBuf in, int flags, int requestId, BodyCompression bodies) {
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
    sink.onResponse(
        requestId,
        status,
        metadata,
        readBody(frame, flags & Response.COMPRESSED, bodies, "RESPONSE.body"));
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
    // A reason of a later version is still a GOAWAY: read as SHUTDOWN, its code kept.
    GoAwayReason reason = GoAwayReason.fromCode(code);
    int lastAcceptedId = readU32(in, "GOAWAY.lastAcceptedId");
    String message = readString(in, "GOAWAY.message");
    requireEnd(in, FrameType.GOAWAY);
    return new GoAway(reason, lastAcceptedId, message, code);
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

  private static Request readBatchEntry(
      ByteBuf in, int index, NameCache names, BodyCompression bodies) {
    long length = Integer.toUnsignedLong(readU32(in, "BATCH.length"));
    if (length < HEADER_LENGTH || length > in.readableBytes()) {
      throw new ProtocolException(
          "BATCH: entry "
              + index
              + " has length "
              + length
              + ", outside 6.."
              + in.readableBytes()
              + " (what is left of the batch)");
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
