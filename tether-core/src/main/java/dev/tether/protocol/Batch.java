package dev.tether.protocol;

import java.util.List;

/** Oneway requests queued by a batch proxy and sent together. */
public record Batch(List<Request> requests) implements Frame {
  public Batch {
    requests = List.copyOf(requests);
  }

  @Override
  public FrameType type() {
    return FrameType.BATCH;
  }
}
