package dev.tether.grpc;

import io.grpc.Status;
import java.util.ArrayDeque;

/**
 * A call's last messages, on the service's side: once the client's half ended, the event loop hands
 * over everything it sent ({@link InboundMessages#takeRest}), and the call's listener events hand
 * it out as the service asks. So a unary call's {@code request}, message and half-close run in the
 * one task that started it, with no trip to the event loop and back. Touched by the call's listener
 * events only, which run one at a time.
 */
final class ArrivedMessages {
  /** Where the messages go, from a listener event. */
  interface Receiver {
    /** Hands one message to the listener now. */
    void message(MessageDeframer.Message message);

    /** Tells the listener the client is done now. */
    void halfClose();

    /** The client's bytes ended badly: the call ends with this status. */
    void malformed(Status status);

    /** {@code bytes} of the stream were handed out: their credit may return. */
    void consumed(long bytes);

    /** The call ended, or its service closed it: nothing more is handed out. */
    boolean stopped();
  }

  /** The gRPC prefix before each message: a flag and a four-byte length. */
  private static final int PREFIX = 5;

  private final Receiver receiver;

  /** Null until the loop handed the messages over. */
  private ArrayDeque<MessageDeframer.Message> messages;

  private Status tail;
  private boolean ended;
  private int demand;

  ArrivedMessages(Receiver receiver) {
    this.receiver = receiver;
  }

  /** The loop handed over what the client sent: hands out what was asked for already. */
  void arrive(InboundMessages.Rest rest) {
    messages = rest.messages();
    tail = rest.tail();
    deliver();
  }

  /** The service asks for {@code count} more. */
  void request(int count) {
    demand = (int) Math.min(Integer.MAX_VALUE, (long) demand + count);
    deliver();
  }

  private void deliver() {
    if (messages == null || ended) {
      return;
    }
    long bytes = 0;
    while (demand > 0 && !messages.isEmpty() && !receiver.stopped()) {
      MessageDeframer.Message message = messages.poll();
      demand--;
      bytes += PREFIX + message.bytes().length;
      receiver.message(message);
    }
    if (messages.isEmpty() && !receiver.stopped()) {
      if (tail == null) {
        ended = true;
        receiver.halfClose();
      } else if (demand > 0) {
        // As on the loop: a broken message fails the call once the service asks for it.
        ended = true;
        receiver.malformed(tail);
      }
    }
    if (bytes > 0) {
      receiver.consumed(bytes);
    }
  }
}
