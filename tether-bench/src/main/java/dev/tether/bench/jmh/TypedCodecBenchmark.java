package dev.tether.bench.jmh;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.dataformat.smile.SmileGenerator;
import com.fasterxml.jackson.dataformat.smile.SmileParser;
import dev.tether.bench.TetherSystems.Message;
import dev.tether.codec.JacksonCodec;
import dev.tether.spi.Codec;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: what a typed call's codec costs per direction, for the benchmark's record {@code {long id;
 * String name; byte[64] data}}: {@code encode} (the stub's argument, the skeleton's result) and
 * {@code decode} (the skeleton's argument, the stub's result). A typed echo pays each twice, once
 * per side. {@code codec=default} is {@link JacksonCodec}'s default (a record codec made per type);
 * {@code codec=databind} the same Smile settings through databind alone, as before. Run with {@code
 * java -cp tether-bench/target/tether-bench.jar org.openjdk.jmh.Main TypedCodecBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
public class TypedCodecBenchmark {

  @Param({"default", "databind"})
  String codec;

  private Codec chosen;
  private Message message;
  private byte[] encoded;

  @Setup
  public void setUp() {
    chosen = codec.equals("default") ? new JacksonCodec() : new JacksonCodec(databindMapper());
    message = new Message(0x7E7E_0000_0001L, "tether-bench", new byte[64]);
    encoded = chosen.encodeValue(message, Message.class);
  }

  /** The default codec's Smile settings on a plain mapper. */
  private static ObjectMapper databindMapper() {
    return new ObjectMapper(
            SmileFactory.builder()
                .enable(SmileGenerator.Feature.WRITE_HEADER)
                .disable(SmileGenerator.Feature.ENCODE_BINARY_AS_7BIT)
                .disable(SmileGenerator.Feature.CHECK_SHARED_NAMES)
                .disable(SmileParser.Feature.REQUIRE_HEADER)
                .build())
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  }

  @Benchmark
  public byte[] encode() {
    return chosen.encodeValue(message, Message.class);
  }

  @Benchmark
  public Object decode() {
    return chosen.decodeValue(encoded, Message.class);
  }
}
