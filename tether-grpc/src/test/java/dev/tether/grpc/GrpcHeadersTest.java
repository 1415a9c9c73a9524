package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Metadata;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GrpcHeadersTest {
  @Test
  void percentEncodesEverythingButPrintableAsciiAndThePercentSign() {
    assertThat(GrpcHeaders.percentEncode("a b%\t☺")).isEqualTo("a b%25%09%E2%98%BA");
  }

  @Test
  void readsEveryUnitOfGrpcTimeout() {
    assertThat(GrpcHeaders.timeoutNanos("2H")).isEqualTo(TimeUnit.HOURS.toNanos(2));
    assertThat(GrpcHeaders.timeoutNanos("3M")).isEqualTo(TimeUnit.MINUTES.toNanos(3));
    assertThat(GrpcHeaders.timeoutNanos("4S")).isEqualTo(TimeUnit.SECONDS.toNanos(4));
    assertThat(GrpcHeaders.timeoutNanos("5m")).isEqualTo(TimeUnit.MILLISECONDS.toNanos(5));
    assertThat(GrpcHeaders.timeoutNanos("6u")).isEqualTo(6_000);
    assertThat(GrpcHeaders.timeoutNanos("99999999n")).isEqualTo(99_999_999);
    assertThat(GrpcHeaders.timeoutNanos(null)).isEqualTo(-1);
  }

  @Test
  void rejectsATimeoutOfMoreThanEightDigitsOrAnUnknownUnit() {
    assertThatThrownBy(() -> GrpcHeaders.timeoutNanos("123456789S"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> GrpcHeaders.timeoutNanos("10x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> GrpcHeaders.timeoutNanos("S"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void acceptsGrpcContentTypesWithSuffixesAndNothingElse() {
    assertThat(GrpcHeaders.isGrpc("application/grpc")).isTrue();
    assertThat(GrpcHeaders.isGrpc("application/grpc+proto")).isTrue();
    assertThat(GrpcHeaders.isGrpc("application/grpc; charset=utf-8")).isTrue();
    assertThat(GrpcHeaders.isGrpc("application/grpcx")).isFalse();
    assertThat(GrpcHeaders.isGrpc("application/json")).isFalse();
    assertThat(GrpcHeaders.isGrpc(null)).isFalse();
  }

  @Test
  void decodesBinaryMetadataPaddedOrNotAndLeavesPseudoHeadersOut() {
    Http2Headers h =
        new DefaultHttp2Headers()
            .path("/a.B/C")
            .add("x-padded-bin", "AAE=")
            .add("x-unpadded-bin", "AAE")
            .add("x-text", "plain");

    Metadata md = GrpcHeaders.toMetadata(h);

    Metadata.Key<byte[]> padded = Metadata.Key.of("x-padded-bin", Metadata.BINARY_BYTE_MARSHALLER);
    Metadata.Key<byte[]> unpadded =
        Metadata.Key.of("x-unpadded-bin", Metadata.BINARY_BYTE_MARSHALLER);
    assertThat(md.get(padded)).containsExactly(0, 1);
    assertThat(md.get(unpadded)).containsExactly(0, 1);
    assertThat(md.get(Metadata.Key.of("x-text", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("plain");
    assertThat(md.keys()).doesNotContain(":path");
  }

  @Test
  void writesBinaryMetadataUnpaddedAndKeepsReservedNamesForTheTransport() {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("x-bin", Metadata.BINARY_BYTE_MARSHALLER), new byte[] {0, 1});
    md.put(Metadata.Key.of("grpc-status", Metadata.ASCII_STRING_MARSHALLER), "0");

    Http2Headers h = GrpcHeaders.addMetadata(new DefaultHttp2Headers(), md);

    assertThat(h.get("x-bin").toString()).isEqualTo("AAE");
    assertThat(h.contains("grpc-status")).isFalse();
  }

  @Test
  void readsEveryCommaSeparatedBinaryValueAndLeavesOutNamesGrpcForbids() {
    Http2Headers h =
        new DefaultHttp2Headers(false)
            .add("x-many-bin", "AAE, AAI")
            .add("x y", "spaced")
            .add("x-text", "a")
            .add("x-text", "b");

    Metadata md = GrpcHeaders.toMetadata(h);

    Metadata.Key<byte[]> many = Metadata.Key.of("x-many-bin", Metadata.BINARY_BYTE_MARSHALLER);
    assertThat(md.getAll(many)).containsExactly(new byte[] {0, 1}, new byte[] {0, 2});
    assertThat(md.getAll(Metadata.Key.of("x-text", Metadata.ASCII_STRING_MARSHALLER)))
        .containsExactly("a", "b");
    assertThat(md.keys()).containsExactlyInAnyOrder("x-many-bin", "x-text");
  }

  @Test
  void writesEveryValueOfANameInItsOrder() {
    Metadata md = new Metadata();
    Metadata.Key<String> text = Metadata.Key.of("x-text", Metadata.ASCII_STRING_MARSHALLER);
    md.put(text, "a");
    md.put(Metadata.Key.of("x-other", Metadata.ASCII_STRING_MARSHALLER), "o");
    md.put(text, "b");

    Http2Headers h = GrpcHeaders.addMetadata(new DefaultHttp2Headers(), md);

    assertThat(h.getAll("x-text")).map(CharSequence::toString).containsExactly("a", "b");
    assertThat(h.get("x-other").toString()).isEqualTo("o");
  }
}
