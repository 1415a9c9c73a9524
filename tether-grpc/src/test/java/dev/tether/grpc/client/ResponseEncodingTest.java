package dev.tether.grpc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tether.grpc.Gzip;
import dev.tether.grpc.MessageDeframer;
import io.grpc.Status;
import io.grpc.StatusException;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What an answer's grpc-encoding makes of its messages, as a table without sockets. */
class ResponseEncodingTest {
  private static final byte[] HELLO = "hello".getBytes(StandardCharsets.UTF_8);

  private static Http2Headers encoded(String encoding) {
    return new DefaultHttp2Headers().set("grpc-encoding", encoding);
  }

  @Test
  void anUnknownResponseEncodingFailsTheCallInternalNamingIt() {
    StatusException failed =
        catchThrowableOfType(StatusException.class, () -> ResponseEncoding.of(encoded("snappy")));

    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(failed.getStatus().getDescription()).contains("\"snappy\"", "gzip");
  }

  @Test
  void aGzipAnswersCompressedMessagesAreInflatedAndItsPlainOnesPass() throws StatusException {
    ResponseEncoding gzip = ResponseEncoding.of(encoded("gzip"));

    byte[] inflated = gzip.decode(new MessageDeframer.Message(Gzip.compress(HELLO), true), 100);
    byte[] plain = gzip.decode(new MessageDeframer.Message(HELLO, false), 100);

    assertThat(inflated).isEqualTo(HELLO);
    assertThat(plain).isSameAs(HELLO);
  }

  @Test
  void aCompressedMessageInAnAnswerWithoutGzipFailsInternal() throws StatusException {
    ResponseEncoding none = ResponseEncoding.of(new DefaultHttp2Headers());

    StatusException failed =
        catchThrowableOfType(
            StatusException.class,
            () -> none.decode(new MessageDeframer.Message(Gzip.compress(HELLO), true), 100));

    assertThat(none).isEqualTo(ResponseEncoding.IDENTITY);
    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
  }

  @Test
  void aMessageThatInflatesBeyondTheLimitFailsResourceExhausted() throws StatusException {
    ResponseEncoding gzip = ResponseEncoding.of(encoded("gzip"));

    StatusException failed =
        catchThrowableOfType(
            StatusException.class,
            () ->
                gzip.decode(new MessageDeframer.Message(Gzip.compress(new byte[1000]), true), 10));

    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }
}
