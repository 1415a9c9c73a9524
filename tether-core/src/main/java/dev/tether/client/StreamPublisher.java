package dev.tether.client;

import java.util.Objects;
import java.util.concurrent.Flow;

/**
 * What {@code Proxy.stream} returns: a cold publisher, so each {@code subscribe} opens one stream
 * of its own with the same operation, request and (for a bidirectional stream) outbound publisher.
 */
public final class StreamPublisher implements Flow.Publisher<byte[]> {
  private final StreamHost host;
  private final ProxyBinding binding;
  private final String operation;
  private final byte[] request;
  private final Flow.Publisher<byte[]> outbound;
  private final int flags;

  /**
   * @param outbound what the client sends, or null for a server stream
   */
  StreamPublisher(
      StreamHost host,
      ProxyBinding binding,
      String operation,
      byte[] request,
      Flow.Publisher<byte[]> outbound,
      int flags) {
    this.host = host;
    this.binding = binding;
    this.operation = Objects.requireNonNull(operation, "operation");
    this.request = request;
    this.outbound = outbound;
    this.flags = flags;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super byte[]> subscriber) {
    Objects.requireNonNull(subscriber, "subscriber"); // Reactive Streams rule 1.9
    new ClientStream(host, binding, operation, request, outbound, flags).start(subscriber);
  }
}
