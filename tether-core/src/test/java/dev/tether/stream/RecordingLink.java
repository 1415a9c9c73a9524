package dev.tether.stream;

import dev.tether.protocol.Frame;
import dev.tether.protocol.StreamCredit;
import dev.tether.protocol.StreamEnd;
import dev.tether.protocol.StreamItem;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A link that keeps every frame a stream half writes to it, for tests to read back in order. */
final class RecordingLink implements StreamLink {
  private final int streamId;
  private final List<Frame> frames = new ArrayList<>();
  private boolean writable = true;
  private int peerMaxFrameSize = Integer.MAX_VALUE;
  private final List<Runnable> waiting = new ArrayList<>();

  RecordingLink(int streamId) {
    this.streamId = streamId;
  }

  @Override
  public int streamId() {
    return streamId;
  }

  @Override
  public void write(Frame frame) {
    frames.add(frame);
  }

  @Override
  public void flush() {}

  @Override
  public CompletableFuture<Void> flushAndWait() {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public boolean isWritable() {
    return writable;
  }

  @Override
  public void whenWritable(Runnable wake) {
    waiting.add(wake);
  }

  @Override
  public int peerMaxFrameSize() {
    return peerMaxFrameSize;
  }

  /** The peer announced it takes frames of at most {@code bytes}. */
  void peerAccepts(int bytes) {
    peerMaxFrameSize = bytes;
  }

  /** The connection fills up: writes queue past its high water mark. */
  void fillUp() {
    writable = false;
  }

  /** The connection drained: whoever waited for it hears so. */
  void drain() {
    writable = true;
    List<Runnable> woken = List.copyOf(waiting);
    waiting.clear();
    woken.forEach(Runnable::run);
  }

  List<Frame> frames() {
    return frames;
  }

  List<StreamCredit> credits() {
    return framesOf(StreamCredit.class);
  }

  List<StreamItem> items() {
    return framesOf(StreamItem.class);
  }

  /** The positions of the items written, in order. */
  List<Long> positions() {
    return items().stream().map(StreamItem::position).toList();
  }

  /** The bodies of the items written, as ASCII. */
  List<String> bodies() {
    return items().stream().map(i -> new String(i.body(), StandardCharsets.US_ASCII)).toList();
  }

  List<StreamEnd> ends() {
    return framesOf(StreamEnd.class);
  }

  long lastLimit() {
    List<StreamCredit> credits = credits();
    return credits.get(credits.size() - 1).limit();
  }

  /** The most items a credit from the {@code first}th on let the sender have in flight. */
  long largestAllowanceSince(int first) {
    List<StreamCredit> credits = credits();
    return credits.subList(first, credits.size()).stream()
        .mapToLong(c -> c.limit() - c.received())
        .max()
        .orElseThrow();
  }

  private <T extends Frame> List<T> framesOf(Class<T> type) {
    return frames.stream().filter(type::isInstance).map(type::cast).toList();
  }
}
