package dev.tether.grpc;

import io.grpc.Status;
import io.grpc.StatusException;
import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.function.IntConsumer;

/**
 * What the client sends on one call's stream, on the connection's event loop: the messages in its
 * DATA, handed out as the service asks for them, and the window credit given back for them. Bytes
 * earn the client more window only as the service asks, so a service that reads slowly slows its
 * client instead of filling the server. What the stream holds counts against its connection's
 * {@link InboundBudget}: DATA that would take the connection over it ends the call with
 * RESOURCE_EXHAUSTED instead of being kept.
 */
final class InboundMessages {
  /** Where the messages asked for, the half-close and a protocol breach go; on the loop. */
  interface Receiver {
    void message(MessageDeframer.Message message);

    void halfClose();

    /** The client's bytes cannot be read: the call ends with this status. */
    void malformed(Status status);
  }

  private final MessageDeframer deframer;
  private final Receiver receiver;

  /** The connection's count of request bytes held, which this stream's share is part of. */
  private final InboundBudget budget;

  /** This stream's share of the budget: bytes received and not handed out (until released). */
  private long charged;

  /** The deframer is freed: nothing is held any more. */
  private boolean released;

  /** Gives the client this many more bytes of the stream's window. */
  private final IntConsumer credit;

  private int demand;
  private boolean clientDone;
  private boolean halfCloseDelivered;

  /** Nothing more is handed out: the call ended. */
  private boolean stopped;

  /** Bytes of the stream's window given back to the client so far. */
  private long returned;

  InboundMessages(
      MessageDeframer deframer, Receiver receiver, IntConsumer credit, InboundBudget budget) {
    this.deframer = deframer;
    this.receiver = receiver;
    this.credit = credit;
    this.budget = budget;
  }

  /** DATA from the client ({@code data} null for none), and whether its half ended. */
  void add(ByteBuf data, boolean endOfStream) {
    if (data != null && data.isReadable()) {
      int bytes = data.readableBytes();
      if (stopped || !budget.take(bytes)) {
        // Never kept: its window goes back at once, as for any stream nobody reads.
        credit.accept(bytes);
        if (!stopped) {
          receiver.malformed(overBudget());
        }
        return;
      }
      charged += bytes;
      deframer.add(data);
    }
    clientDone |= endOfStream;
    deliver();
  }

  /** The service asks for {@code messages} more. */
  void request(int messages) {
    demand = (int) Math.min(Integer.MAX_VALUE, (long) demand + messages);
    deliver();
  }

  /** The client ended its half of the stream. */
  boolean clientDone() {
    return clientDone;
  }

  /** Hands out the messages asked for, then the half-close once all are out; gives credit back. */
  private void deliver() {
    while (demand > 0 && !stopped) {
      MessageDeframer.Message message;
      try {
        message = deframer.next();
      } catch (StatusException bad) {
        receiver.malformed(bad.getStatus());
        return;
      }
      if (message == null) {
        break;
      }
      demand--;
      receiver.message(message);
    }
    deframer.keepRest();
    settleBudget();
    if (stopped) {
      return;
    }
    if (clientDone && !halfCloseDelivered) {
      if (deframer.isEmpty()) {
        halfCloseDelivered = true;
        receiver.halfClose();
      } else if (demand > 0) {
        receiver.malformed(Status.INTERNAL.withDescription("the stream ended inside a message"));
        return;
      }
    }
    // With demand left, every byte held belongs to a message asked for: let the rest of it come.
    giveBack((demand > 0 ? deframer.received() : deframer.handedOut()) - returned);
  }

  /**
   * What the client sent in all, taken out at once once its half ended: the whole messages nobody
   * asked for yet, and what ends them ({@code tail}: null for a clean half-close, else the status
   * the call ends with when the service reaches it).
   */
  record Rest(ArrayDeque<MessageDeframer.Message> messages, Status tail) {}

  /**
   * Once the client's half ended with messages nobody asked for yet, takes them all out, so the
   * service's side can hand them out as it asks, without asking the loop; from then on the loop
   * hands out nothing. Their credit still returns as they are handed out ({@link #consumed}). Null
   * when the client may still send, or nothing waits.
   */
  Rest takeRest() {
    if (!clientDone || stopped || halfCloseDelivered || demand > 0 || deframer.isEmpty()) {
      return null;
    }
    ArrayDeque<MessageDeframer.Message> messages = new ArrayDeque<>(2);
    Status tail = null;
    try {
      for (MessageDeframer.Message m = deframer.next(); m != null; m = deframer.next()) {
        messages.add(m);
      }
      if (!deframer.isEmpty()) {
        tail = Status.INTERNAL.withDescription("the stream ended inside a message");
      }
    } catch (StatusException bad) {
      tail = bad.getStatus();
    }
    stopped = true;
    halfCloseDelivered = true;
    return new Rest(messages, tail);
  }

  /**
   * {@code bytes} of what {@link #takeRest} took were handed out: their credit returns, and the
   * budget holds them no more, though the call may go on long after (a long answer stream).
   */
  void consumed(long bytes) {
    giveBack(Math.min(bytes, deframer.received() - returned));
    if (!released) {
      long freed = Math.min(bytes, charged);
      budget.give(freed);
      charged -= freed;
    }
  }

  /**
   * The call is ending: whatever the client sent and nobody will read gives its credit back, or the
   * connection's window would shrink by it for good.
   */
  void end() {
    stopped = true;
    giveBack(deframer.received() - returned);
  }

  /** The stream is gone: frees what the deframer holds, and its share of the budget. */
  void release() {
    stopped = true;
    if (!released) {
      released = true;
      deframer.release();
      budget.give(charged);
      charged = 0;
    }
  }

  /** Messages handed out are held no more: the budget gets their bytes back. */
  private void settleBudget() {
    if (!released) {
      long holding = deframer.received() - deframer.handedOut();
      budget.give(charged - holding);
      charged = holding;
    }
  }

  private Status overBudget() {
    return Status.RESOURCE_EXHAUSTED.withDescription(
        "request messages held for this connection would exceed the server's limit of "
            + budget.limit()
            + " bytes");
  }

  private void giveBack(long bytes) {
    if (bytes > 0) {
      returned += bytes;
      credit.accept((int) bytes);
    }
  }
}
