/**
 * Tether's runtime. Only the public API, the extension points and the observability types are
 * exported; everything else may change between releases without notice.
 */
module dev.tether.core {
  requires io.netty.buffer;
  requires io.netty.common;
  requires io.netty.transport;
  requires io.netty.handler;
  requires io.netty.codec;
  requires io.netty.transport.classes.epoll;
  requires com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.dataformat.smile;
  requires org.slf4j;
  requires com.github.luben.zstd_jni;

  exports dev.tether;
  exports dev.tether.spi;
  exports dev.tether.observe;

  // Typed services and records travel through Jackson, which reads them reflectively.
  opens dev.tether.codec to
      com.fasterxml.jackson.databind;
}
