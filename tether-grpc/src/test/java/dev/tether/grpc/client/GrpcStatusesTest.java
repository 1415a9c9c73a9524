package dev.tether.grpc.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.grpc.GrpcHeaders;
import dev.tether.spi.ClientWireProtocol.Blame;
import io.grpc.Status;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The table of what an answer's grpc-status says of its server, as docs/guide.md gives it. */
class GrpcStatusesTest {
  private static Blame blameOf(String grpcStatus) {
    Http2Headers trailers = new DefaultHttp2Headers();
    if (grpcStatus != null) {
      trailers.set(GrpcHeaders.STATUS, grpcStatus);
    }
    return GrpcStatuses.blameOf(trailers);
  }

  @Test
  void serverFaultsServiceFailuresAndChosenStatusesAreToldApartForEveryCode() {
    Map<Status.Code, Blame> expected = new EnumMap<>(Status.Code.class);
    for (Status.Code c : Status.Code.values()) {
      expected.put(c, Blame.NONE);
    }
    expected.put(Status.Code.INTERNAL, Blame.NODE_FAULT);
    expected.put(Status.Code.UNAVAILABLE, Blame.NODE_FAULT);
    expected.put(Status.Code.DATA_LOSS, Blame.NODE_FAULT);
    expected.put(Status.Code.DEADLINE_EXCEEDED, Blame.NODE_FAULT);
    expected.put(Status.Code.UNKNOWN, Blame.FAILED_ANSWER);
    expected.put(Status.Code.PERMISSION_DENIED, Blame.FAILED_ANSWER);
    expected.put(Status.Code.UNAUTHENTICATED, Blame.FAILED_ANSWER);

    for (Status.Code c : Status.Code.values()) {
      assertThat(blameOf(Integer.toString(c.value()))).as(c.name()).isEqualTo(expected.get(c));
    }
  }

  @Test
  void aMalformedStatusIsTheServersFaultAndAnUnknownCodeItsServicesFailure() {
    assertThat(blameOf("not a number")).isEqualTo(Blame.NODE_FAULT);
    assertThat(blameOf("99")).isEqualTo(Blame.FAILED_ANSWER); // gRPC reads it as UNKNOWN
  }

  @Test
  void anHttpErrorWithoutGrpcStatusIsBlamedAsTheStatusGrpcMapsItTo() {
    assertThat(GrpcStatuses.blameOf(StatusOfHttp.trailersFor(headersWith("503"))))
        .isEqualTo(Blame.NODE_FAULT);
    assertThat(GrpcStatuses.blameOf(StatusOfHttp.trailersFor(headersWith("404"))))
        .isEqualTo(Blame.NONE);
  }

  private static Http2Headers headersWith(String httpStatus) {
    return new DefaultHttp2Headers().status(httpStatus);
  }
}
