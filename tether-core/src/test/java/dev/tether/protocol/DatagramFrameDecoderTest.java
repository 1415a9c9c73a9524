package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One frame per datagram, oneway only; anything else is dropped and counted, never thrown. */
class DatagramFrameDecoderTest {
  private static final InetSocketAddress SENDER = new InetSocketAddress("127.0.0.1", 40000);
  private static final InetSocketAddress RECIPIENT = new InetSocketAddress("127.0.0.1", 7002);

  private final DatagramFrameDecoder decoder = new DatagramFrameDecoder();
  private final EmbeddedChannel channel = new EmbeddedChannel(decoder);
  private final List<ByteBuf> sent = new ArrayList<>();

  @AfterEach
  void everyDatagramIsReleasedAndNothingThrown() {
    channel.finishAndReleaseAll();
    channel.checkException();
    assertThat(sent).allSatisfy(buf -> assertThat(buf.refCnt()).isZero());
  }

  private void receive(byte[] datagram) {
    ByteBuf content = Unpooled.buffer(datagram.length).writeBytes(datagram);
    sent.add(content);
    channel.writeInbound(new DatagramPacket(content, RECIPIENT, SENDER));
  }

  private Object received() {
    return channel.readInbound();
  }

  @Test
  void onewayRequestIsDecoded() {
    Request request = SampleFrames.oneway(0, "log");

    receive(DecoderHarness.encode(request));

    assertThat(received()).usingRecursiveComparison().isEqualTo(request);
    assertThat(decoder.droppedDatagrams()).isZero();
  }

  @Test
  void batchIsDecoded() {
    receive(DecoderHarness.encode(SampleFrames.batch()));

    assertThat(received()).usingRecursiveComparison().isEqualTo(SampleFrames.batch());
  }

  @Test
  void twowayRequestIsDropped() {
    receive(DecoderHarness.encode(SampleFrames.request(1)));

    assertDropped(1);
  }

  @Test
  void framesOfOtherTypesAreDropped() {
    receive(DecoderHarness.encode(SampleFrames.hello()));
    receive(DecoderHarness.encode(new Ping(1)));
    receive(DecoderHarness.encode(SampleFrames.okResponse(1)));

    assertDropped(3);
  }

  @Test
  void datagramWhoseLengthFieldDisagreesWithItsSizeIsDropped() {
    byte[] request = DecoderHarness.encode(SampleFrames.oneway(0, "x"));
    byte[] longer = new byte[request.length + 1];
    System.arraycopy(request, 0, longer, 0, request.length);

    receive(longer);
    receive(Arrays.copyOf(request, request.length - 1));

    assertDropped(2);
  }

  @Test
  void garbageAndEmptyDatagramsAreDroppedAndCounted() {
    receive(new byte[0]);
    receive(new byte[] {1, 2, 3});
    receive(RawFrame.of(3, 1, 0).string("s").varint(5).raw('o').withLength());

    assertDropped(3);
  }

  @Test
  void aBadDatagramDoesNotDisturbTheNextOne() {
    receive(new byte[] {0, 0, 0, 6, 3, 1, 0, 0, 0, 0});
    receive(DecoderHarness.encode(SampleFrames.oneway(0, "ok")));

    assertThat(received()).isInstanceOf(Request.class);
    assertThat(decoder.droppedDatagrams()).isEqualTo(1);
  }

  private void assertDropped(int count) {
    assertThat(received()).isNull();
    assertThat(decoder.droppedDatagrams()).isEqualTo(count);
    assertThat(channel.isOpen()).isTrue();
  }
}
