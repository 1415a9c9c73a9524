package dev.tether.protocol;

import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DatagramPacket;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes datagrams that each carry exactly one whole frame, length field included: a ONEWAY
 * REQUEST or a BATCH. There is no preface and no handshake. A datagram that is anything else is
 * dropped, counted in {@link #droppedDatagrams()} and logged at debug; it never raises an error,
 * since a datagram socket serves many peers and one bad packet must not disturb the others.
 */
public final class DatagramFrameDecoder extends MessageToMessageDecoder<DatagramPacket> {
  private static final Logger log = LoggerFactory.getLogger(DatagramFrameDecoder.class);

  // Written on the event loop, read by whoever reports metrics.
  private final AtomicLong droppedDatagrams = new AtomicLong();

  /** No handshake negotiates compression on a datagram, so a compressed body is always refused. */
  private static final BodyCompression NO_COMPRESSION = BodyCompression.disabled();

  public DatagramFrameDecoder() {
    super(DatagramPacket.class);
  }

  /** How many datagrams were dropped as malformed since this decoder was created. */
  public long droppedDatagrams() {
    return droppedDatagrams.get();
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, DatagramPacket packet, List<Object> out) {
    try {
      out.add(decodeDatagram(packet.content()));
    } catch (ProtocolException e) {
      droppedDatagrams.incrementAndGet();
      log.debug("dropped a datagram from {}: {}", packet.sender(), e.getMessage());
    }
  }

  private static Frame decodeDatagram(ByteBuf content) {
    int size = content.readableBytes();
    if (size < FrameHeader.LENGTH_FIELD_LENGTH + FrameHeader.HEADER_LENGTH) {
      throw new ProtocolException("datagram of " + size + " bytes is shorter than a frame header");
    }
    long length = content.readUnsignedInt();
    if (length != content.readableBytes()) {
      throw new ProtocolException(
          "frame length "
              + length
              + " but the datagram holds "
              + content.readableBytes()
              + " bytes after the length field");
    }
    int typeCode = content.getUnsignedByte(content.readerIndex());
    if (typeCode != FrameType.REQUEST.code() && typeCode != FrameType.BATCH.code()) {
      throw new ProtocolException("frame type " + typeCode + " does not travel by datagram");
    }
    Frame frame = FrameReader.decode(content, null, NO_COMPRESSION);
    if (frame instanceof Request request && !request.isOneway()) {
      throw new ProtocolException("a REQUEST by datagram must be ONEWAY");
    }
    return frame;
  }
}
