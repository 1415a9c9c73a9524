package dev.tether.protocol;

/** The protocol version this implementation speaks and the 8-byte preface that announces it. */
public final class ProtocolVersion {
  /** The ASCII magic "TETH" as a big-endian int. */
  public static final int MAGIC = 0x54455448;

  public static final int MAJOR = 1;

  /**
   * 1.1 added capability bits in the preface and compressed bodies (docs/protocol.md 2.4) and the
   * TOPOLOGY frame, sent only to peers whose preface announced minor 1 or later; 1.2 the GOAWAY
   * reason MAX_AGE, and reads a reason code it does not know as SHUTDOWN; 1.3 streams (the REQUEST
   * flags STREAM, BIDI, RESUME and the frames STREAM_ITEM, STREAM_CREDIT, STREAM_END); 1.4 the
   * election epoch at the end of the cluster view in WELCOME and TOPOLOGY.
   */
  public static final int MINOR = 4;

  /**
   * The minor version from which a peer may be sent what 1.1 added (the TOPOLOGY frame, the
   * TOO_MANY_CONNECTIONS reason); a peer whose preface announced less is sent neither.
   */
  public static final int FIRST_MINOR_OF_1_1 = 1;

  /**
   * The minor version from which a peer may be sent GOAWAY(MAX_AGE); an older peer would take the
   * code for a protocol error and is sent SHUTDOWN in its place.
   */
  public static final int FIRST_MINOR_OF_1_2 = 2;

  /**
   * The minor version from which a peer may be sent a stream opening; an older server refuses it.
   */
  public static final int FIRST_MINOR_OF_1_3 = 3;

  /**
   * The minor version from which a peer may be sent a cluster view's epoch; an older client would
   * take the extra field for trailing bytes, so its views go without it.
   */
  public static final int FIRST_MINOR_OF_1_4 = 4;

  /** Bytes in a preface: magic, major, minor, two reserved. */
  public static final int PREFACE_LENGTH = 8;

  /** Default largest accepted frame, header included: 16 MiB. */
  public static final int DEFAULT_MAX_FRAME_SIZE = 16 * 1024 * 1024;

  private ProtocolVersion() {}
}
