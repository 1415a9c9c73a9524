package dev.tether.chaos;

import dev.tether.CallContext;
import dev.tether.RawService;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * The servers' side of the ledger: every request carries its ledger id and a service time in its
 * payload ({@link #payload}); the service reports the execution (to the ledger, or on a child
 * process's output) before doing anything else, works for the service time, and echoes the payload.
 * While its node is sick it throws {@link SickNodeException} at once instead, running nothing.
 */
public final class ChaosService implements RawService {
  /** The service name the chaos load calls. */
  public static final String NAME = "chaos";

  /** The one operation. */
  public static final String OPERATION = "work";

  private static final int PAYLOAD_BYTES = 8;

  private final IntConsumer executions;
  private final BooleanSupplier sick;

  /**
   * The error a sick node's service answers every call with; callers see it as a {@code
   * RemoteException} of this type.
   */
  public static final class SickNodeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SickNodeException() {
      super("this node is sick: its database is down");
    }
  }

  /**
   * A service that is never sick.
   *
   * @param executions told the id of every request this service runs, on the service thread
   */
  public ChaosService(IntConsumer executions) {
    this(executions, () -> false);
  }

  /**
   * @param executions told the id of every request this service runs, on the service thread
   * @param sick whether the node is sick now: every call then fails at once, running nothing
   */
  public ChaosService(IntConsumer executions, BooleanSupplier sick) {
    this.executions = executions;
    this.sick = sick;
  }

  /** The payload of call {@code id}: its id, then how long the service works on it. */
  public static byte[] payload(int id, int serviceMillis) {
    return ByteBuffer.allocate(PAYLOAD_BYTES).putInt(id).putInt(serviceMillis).array();
  }

  /** The ledger id {@link #payload} put in. */
  public static int id(byte[] payload) {
    return ByteBuffer.wrap(payload).getInt(0);
  }

  @Override
  public byte[] handle(String operation, byte[] payload, CallContext context) {
    if (payload.length != PAYLOAD_BYTES) {
      throw new IllegalArgumentException(
          "a chaos payload has " + PAYLOAD_BYTES + " bytes, not " + payload.length);
    }
    if (sick.getAsBoolean()) {
      throw new SickNodeException();
    }
    ByteBuffer in = ByteBuffer.wrap(payload);
    executions.accept(in.getInt());
    int serviceMillis = in.getInt();
    if (serviceMillis > 0) {
      try {
        // The work a call does, long enough for kills and drains to catch calls in flight.
        TimeUnit.MILLISECONDS.sleep(serviceMillis);
      } catch (InterruptedException e) {
        // An abrupt close interrupts service threads; the answer then goes nowhere.
        Thread.currentThread().interrupt();
      }
    }
    return payload;
  }
}
