package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tether.FuzzRun;
import dev.tether.NumberedItems;
import dev.tether.RawStreamService;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.Request;
import dev.tether.protocol.Status;
import dev.tether.protocol.StreamCredit;
import dev.tether.protocol.StreamEnd;
import dev.tether.protocol.StreamItem;
import dev.tether.protocol.StreamResume;
import dev.tether.stream.StreamSettings;
import dev.tether.testing.ManualClock;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Flow;

/**
 * Coverage-guided fuzzing of what a client may send a server's stream table: sequences of openings
 * (server and bidirectional), items, credits, ends, cancels and resumes on two connections, with
 * ids reused and tokens real or not, the stream work run at once on the fuzzer's thread. No
 * exception escapes, and however the sequence went, once both connections closed and the resume
 * window passed on the clock the server holds no stream and every service that ran was cancelled.
 * The normal build replays the corpus under {@code
 * src/test/resources/dev/tether/server/StreamTableJazzerTestInputs/}.
 */
class StreamTableJazzerTest {
  private static final Duration RESUME_WINDOW = Duration.ofSeconds(30);
  private static final int STEPS = 64;

  @FuzzTest(maxDuration = FuzzRun.MAX_DURATION)
  void anyFrameSequenceLeavesNoStreamOnceItsConnectionsAndResumeWindowAreGone(
      FuzzedDataProvider data) {
    ManualClock clock = new ManualClock(1_000_000_000L);
    List<NumberedItems> opened = new ArrayList<>();
    RawStreamService service =
        (operation, request, inbound, ctx) -> {
          inbound.subscribe(new AskingFor(2));
          NumberedItems items = new NumberedItems(-1);
          opened.add(items);
          return items;
        };
    StreamRegistry registry =
        new StreamRegistry(
            Map.of("feed", service),
            new StreamSettings(4, 0, 1 << 10, RESUME_WINDOW),
            Runnable::run,
            clock,
            clock,
            null,
            Oversight.NONE,
            4,
            StreamRegistry.DEFAULT_MAX_DETACHED_STREAMS);
    List<byte[]> tokens = new ArrayList<>();
    EmbeddedChannel[] channels = {new EmbeddedChannel(), new EmbeddedChannel()};
    ServerStreams[] tables = {
      new ServerStreams(channels[0], registry), new ServerStreams(channels[1], registry)
    };
    Peer peer = new Peer(null, List.of(), "fuzzer");
    try {
      for (int step = 0; step < STEPS && data.remainingBytes() > 0; step++) {
        int on = data.consumeInt(0, 1);
        int id = data.consumeInt(1, 4);
        switch (data.consumeInt(0, 6)) {
          case 0 ->
              tables[on].handle(
                  new Request(
                      id,
                      Request.STREAM | (data.consumeBoolean() ? Request.BIDI : 0),
                      "feed",
                      "watch",
                      0,
                      Map.of(),
                      new byte[0]),
                  peer,
                  data.consumeBoolean());
          case 1 -> {
            byte[] token =
                tokens.isEmpty() || data.consumeBoolean()
                    ? data.consumeBytes(StreamResume.TOKEN_BYTES)
                    : tokens.get(data.consumeInt(0, tokens.size() - 1));
            byte[] body =
                token.length == StreamResume.TOKEN_BYTES
                    ? new StreamResume(token, data.consumeLong(0, 8), data.consumeLong(0, 16))
                        .encodeRequest()
                    : token;
            tables[on].handle(
                new Request(
                    id, Request.STREAM | Request.RESUME, "feed", "watch", 0, Map.of(), body),
                peer,
                true);
          }
          case 2 ->
              tables[on].onFrame(
                  new StreamItem(id, data.consumeLong(0, 16), data.consumeBytes(16)));
          case 3 ->
              tables[on].onFrame(
                  new StreamCredit(id, data.consumeLong(0, 16), data.consumeLong(0, 1 << 12)));
          case 4 ->
              tables[on].onFrame(new StreamEnd(id, Status.OK, data.consumeLong(0, 8), Map.of()));
          case 5 -> tables[on].onFrame(new Cancel(id));
          default -> tokens.addAll(drain(channels[on]));
        }
      }
      tables[0].connectionClosed();
      tables[1].connectionClosed();
      clock.forward(RESUME_WINDOW);

      assertThat(registry.size()).as("streams kept").isZero();
      assertThat(registry.detached()).isZero();
      assertThat(opened).allSatisfy(items -> assertThat(items.cancels()).isEqualTo(1));
    } finally {
      for (EmbeddedChannel channel : channels) {
        channel.finishAndReleaseAll();
      }
    }
  }

  /** Takes what the server wrote, keeping the tokens of the openings it accepted. */
  private static List<byte[]> drain(EmbeddedChannel channel) {
    List<byte[]> tokens = new ArrayList<>();
    Object frame;
    while ((frame = channel.readOutbound()) != null) {
      if (frame instanceof dev.tether.protocol.Response r
          && r.status() == Status.OK
          && r.body().length == StreamResume.TOKEN_BYTES) {
        tokens.add(r.body());
      }
      ReferenceCountUtil.release(frame);
    }
    return tokens;
  }

  /** A service's inbound subscriber that asks for a few items once. */
  private record AskingFor(long n) implements Flow.Subscriber<byte[]> {
    @Override
    public void onSubscribe(Flow.Subscription s) {
      s.request(n);
    }

    @Override
    public void onNext(byte[] item) {}

    @Override
    public void onError(Throwable failure) {}

    @Override
    public void onComplete() {}
  }
}
