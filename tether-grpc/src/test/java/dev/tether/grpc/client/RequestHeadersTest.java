package dev.tether.grpc.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.spi.ClientWireProtocol;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The HEADERS that open a call's stream, built from the envelope and the runtime's metadata. */
class RequestHeadersTest {
  private static final Map.Entry<CharSequence, CharSequence> AUTHORITY =
      RequestHeaders.authority("127.0.0.1:1");

  @Test
  void writesPseudoHeadersFirstThenGrpcsHeadersTheDeadlineAndTheCallersMetadata() {
    Http2Headers envelope = new DefaultHttp2Headers(false).add("x-user", "u1");
    Http2Headers h =
        RequestHeaders.of(call(Map.of()), request(envelope), true, 1500, AUTHORITY, true);

    assertThat(h.method().toString()).isEqualTo("POST");
    assertThat(h.scheme().toString()).isEqualTo("https");
    assertThat(h.path().toString()).isEqualTo("/test.Echo/Say");
    assertThat(h.authority().toString()).isEqualTo("127.0.0.1:1");
    assertThat(h.get("content-type").toString()).isEqualTo("application/grpc");
    assertThat(h.get("te").toString()).isEqualTo("trailers");
    assertThat(h.get("grpc-encoding").toString()).isEqualTo("gzip");
    assertThat(h.get("grpc-timeout").toString()).isEqualTo("1500m");
    assertThat(h.get("x-user").toString()).isEqualTo("u1");
    List<String> names = new ArrayList<>();
    h.forEach(e -> names.add(e.getKey().toString()));
    assertThat(names.subList(0, 4)).containsExactly(":method", ":scheme", ":path", ":authority");
  }

  @Test
  void leavesOutRuntimeMetadataWhoseNameHttp2OrTheLinkForbids() {
    Map<String, String> runtime =
        Map.of("X-Trace", "t1", "bad name", "b", ":path", "/evil", "te", "gzip");
    Http2Headers h =
        RequestHeaders.of(
            call(runtime), request(new DefaultHttp2Headers(false)), false, 0, AUTHORITY, false);

    assertThat(h.scheme().toString()).isEqualTo("http");
    assertThat(h.get("x-trace").toString()).isEqualTo("t1");
    assertThat(h.contains("bad name")).isFalse();
    assertThat(h.path().toString()).isEqualTo("/test.Echo/Say");
    assertThat(h.getAll("te")).hasSize(1);
    assertThat(h.contains("grpc-timeout")).isFalse();
  }

  private static Envelopes.Request request(Http2Headers metadata) {
    return Envelopes.readRequest(Envelopes.request(metadata, new byte[0], 0, false));
  }

  private static ClientWireProtocol.Call call(Map<String, String> metadata) {
    return new ClientWireProtocol.Call() {
      @Override
      public String service() {
        return "test.Echo";
      }

      @Override
      public String operation() {
        return "test.Echo/Say";
      }

      @Override
      public Map<String, String> metadata() {
        return metadata;
      }

      @Override
      public byte[] body() {
        return new byte[0];
      }

      @Override
      public long remainingMillis() {
        return 0;
      }

      @Override
      public void onWritten() {}

      @Override
      public void onAnswer(byte[] body, ClientWireProtocol.Blame blame) {}

      @Override
      public void onStreamAccepted(byte[] body) {}

      @Override
      public void onStreamEnd(ClientWireProtocol.Blame blame) {}

      @Override
      public void onFailedAnswer(
          byte[] body,
          ClientWireProtocol.Blame blame,
          String status,
          String detail,
          boolean retryable) {}

      @Override
      public void onRefused(String why) {}

      @Override
      public void onLost(Throwable cause) {}
    };
  }
}
