package dev.tether.protocol;

import java.util.Map;

/**
 * One stream direction ended after {@code finalPosition} items (protocol 1.3): OK when it
 * completed, REMOTE_ERROR with the error's type and message in {@code metadata} when the
 * application failed it, STREAM_LOST when the runtime could not carry it on.
 */
public record StreamEnd(
    int streamId, Status status, long finalPosition, Map<String, String> metadata)
    implements Frame {
  public StreamEnd {
    metadata = Map.copyOf(metadata);
  }

  @Override
  public FrameType type() {
    return FrameType.STREAM_END;
  }

  @Override
  public int requestId() {
    return streamId;
  }
}
