package dev.tether.protocol;

import dev.tether.ProtocolException;
import java.util.Objects;

/**
 * User event fired by {@link FrameDecoder} when the peer broke the protocol. By then the decoder
 * has written GOAWAY({@code reason}), is closing the channel and ignores all further input;
 * handlers above fail their pending calls with {@code cause}.
 *
 * @param cause what the peer did wrong
 * @param reason the reason sent in the GOAWAY: PROTOCOL_ERROR, or UNSUPPORTED_VERSION when the
 *     peer's preface announced another major version
 */
public record ProtocolViolation(ProtocolException cause, GoAwayReason reason) {
  public ProtocolViolation {
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(reason, "reason");
  }

  /** A violation answered with GOAWAY(PROTOCOL_ERROR). */
  public ProtocolViolation(ProtocolException cause) {
    this(cause, GoAwayReason.PROTOCOL_ERROR);
  }
}
