package dev.tether.bench.jmh;

import dev.tether.Tether;
import dev.tether.bench.TetherSystems.Echo;
import dev.tether.bench.TetherSystems.Message;
import dev.tether.codec.RemoteCall;
import dev.tether.codec.TypedStub;
import dev.tether.server.TypedServiceHandler;
import dev.tether.spi.Codec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: the typed machinery of one call without the network, for the load benchmark's typed echo
 * ({@code CompletableFuture<Message> echo(Message)}, {@code {long id; String name; byte[64]
 * data}}). {@code stub}: one call of a {@link TypedStub} with the default codec (proxy dispatch,
 * argument encode, the reply's decode and the future the caller holds) whose {@link RemoteCall}
 * hands back a future the benchmark then completes with the encoded answer, as the client's event
 * loop does. {@code skeleton}: one {@link TypedServiceHandler#handle} of the encoded request
 * (argument decode, the call of the implementation, result encode). What the untyped path pays for
 * the same steps is a completed future and nothing, so the scores are the typed surcharge per side.
 * Run with {@code java -cp tether-bench/target/tether-bench.jar org.openjdk.jmh.Main
 * TypedCallBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
public class TypedCallBenchmark {

  private Echo stub;
  private TypedServiceHandler skeleton;
  private Message message;
  private byte[] encoded;

  /** The reply of the stub's latest call, completed by the benchmark. */
  private CompletableFuture<byte[]> pending;

  @Setup
  public void setUp() {
    Codec codec = Tether.standardCodec();
    message = new Message(0x7E7E_0000_0001L, "tether-bench", new byte[64]);
    encoded = codec.encodeValue(message, Message.class);
    RemoteCall call = (operation, body, idempotent) -> pending = new CompletableFuture<>();
    stub = TypedStub.create(Echo.class, codec, call, "jmh");
    skeleton =
        new TypedServiceHandler(Echo.class, m -> CompletableFuture.completedFuture(m), codec);
  }

  /** The client's side of a typed echo: call, the answer arrives, the caller's future completes. */
  @Benchmark
  public Object stub() {
    CompletableFuture<Message> reply = stub.echo(message);
    pending.complete(encoded);
    return reply.join();
  }

  /** The server's side of a typed echo: the request's body in, the answer's body out. */
  @Benchmark
  public Object skeleton() throws Exception {
    return skeleton.handle("echo", encoded, null);
  }
}
