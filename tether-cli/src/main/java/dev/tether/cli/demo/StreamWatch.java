package dev.tether.cli.demo;

import dev.tether.StreamLostException;
import dev.tether.Tether;
import dev.tether.cli.kv.DemoServer;
import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import dev.tether.testkit.NumberedStream;
import java.time.Duration;
import java.util.concurrent.Flow;
import java.util.function.Supplier;

/**
 * A live stream through one phase of the showcase: subscribes to a server's {@code ticks.tick},
 * tallies the items' numbers (a number that came twice, numbers skipped), and puts the stream's
 * life on the timeline: its opening, the resume after the phase's reset with the time it took, and
 * its end. Items arrive on a stream thread and events on the runtime's; each field has one writer.
 */
final class StreamWatch implements Flow.Subscriber<byte[]>, TetherListener {
  private final String server;
  private final Timeline timeline;

  /** When the cluster last reset connections, on the timeline's clock; null before any reset. */
  private final Supplier<Duration> lastReset;

  private final Tether tether;
  private volatile Flow.Subscription subscription;
  private volatile boolean stopped;

  /** Fed by the stream thread. */
  private final NumberedStream.Tally tally = new NumberedStream.Tally();

  /** Written by the stream thread only. */
  private volatile String failure;

  // Written by the runtime's event thread only.
  private volatile long resumes;
  private volatile long itemsBeforeResume;
  private volatile Duration resumeTime;

  private StreamWatch(
      String server, Timeline timeline, Supplier<Duration> lastReset, Tether tether) {
    this.server = server;
    this.timeline = timeline;
    this.lastReset = lastReset;
    this.tether = tether;
  }

  /**
   * Opens {@code server}'s tick stream through the cluster's fault proxy and watches it until
   * {@link #stop()}.
   */
  static StreamWatch open(Tether tether, DemoCluster cluster, String server, Timeline timeline) {
    StreamWatch watch = new StreamWatch(server, timeline, cluster::lastResetAt, tether);
    tether.addListener(watch);
    tether.proxy(cluster.proxyString(DemoServer.TICKS, server)).stream(DemoServer.TICK, new byte[0])
        .subscribe(watch);
    return watch;
  }

  /** Cancels the stream and stops listening; returns what it showed until now. */
  StreamFigures stop() {
    stopped = true;
    Flow.Subscription s = subscription;
    if (s != null) {
      s.cancel();
    }
    tether.removeListener(this);
    StreamFigures figures =
        new StreamFigures(
            server,
            tally.items(),
            tally.duplicates(),
            tally.gaps(),
            resumes,
            itemsBeforeResume,
            resumeTime,
            failure);
    timeline.record("stream cancelled as the phase ends: " + figures.describe());
    return figures;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    s.request(Long.MAX_VALUE); // the server paces it: one item per tick
  }

  @Override
  public void onNext(byte[] item) {
    if (stopped) {
      return;
    }
    tally.add(item);
  }

  @Override
  public void onError(Throwable t) {
    if (!stopped) {
      failure =
          t.getClass().getSimpleName()
              + (t instanceof StreamLostException lost
                  ? " (delivered=" + lost.delivered() + ")"
                  : "")
              + ": "
              + t.getMessage();
      timeline.record(
          "the stream from " + server + " ended after " + tally.items() + " items: " + failure);
    }
  }

  @Override
  public void onComplete() {
    if (!stopped) {
      failure = "it completed, though a tick stream has no end";
    }
  }

  @Override
  public void onEvent(TetherEvent event) {
    if (stopped || event.detail() == null || !event.detail().startsWith(DemoServer.TICKS + ".")) {
      return;
    }
    switch (event.kind()) {
      case STREAM_OPENED ->
          timeline.record(
              "STREAM_OPENED: a live stream from "
                  + server
                  + ", an item every "
                  + DemoCluster.TICK_INTERVAL.toMillis()
                  + " ms, each numbered by the server");
      case STREAM_RESUMED -> resumed();
      case STREAM_LOST -> timeline.record("STREAM_LOST: " + event.detail());
      default -> {}
    }
  }

  private void resumed() {
    resumes = resumes + 1;
    Duration reset = lastReset.get();
    String after = "";
    if (resumeTime == null && reset != null) {
      itemsBeforeResume = tally.items();
      resumeTime = timeline.elapsed().minus(reset);
      after = " " + resumeTime.toMillis() + " ms after the reset";
    }
    timeline.record(
        "STREAM_RESUMED: the stream went on over a new connection"
            + after
            + ", after item "
            + tally.items()
            + "; the server replays what had not arrived");
  }
}
