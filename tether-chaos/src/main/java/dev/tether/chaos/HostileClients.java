package dev.tether.chaos;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The hostile stream clients of a run and what the servers did with them. Each fault plays three
 * attacks on one node ({@link HostileStreamClient}): items past the credit on a BIDI stream, an
 * opening on the id of a stream still open (each must end that connection as a protocol error), and
 * a credit of 2^62 from a client that then reads nothing, held for the fault's hold while the JVM's
 * heap and Netty's direct memory are sampled (after a GC) before and at the end. Used by the fault
 * driver's thread.
 */
public final class HostileClients {
  /**
   * How much the JVM's heap and direct memory may grow while a hostile client holds a huge credit:
   * docs/reliability.md bounds what one connection can make a server hold to about 3 MiB (1 MiB
   * above the write buffer's mark, a 1 MiB resume buffer, 256 KiB on their way, 32 items); the rest
   * is room for the chaos load's own live objects, which a GC cannot free mid-run.
   */
  static final long GROWTH_ALLOWANCE_BYTES = 32L << 20;

  private static final Duration PATIENCE = Duration.ofSeconds(5);

  /** Items the client sends without credit: past any window a server grants (64 items, 64 KiB). */
  private static final int ITEMS_PAST_CREDIT = 256;

  /** What the huge credit's stream asks for: more than a run could ever send. */
  private static final long FLOOD_ITEMS = 1L << 40;

  /** One fault's attacks and what came of them. */
  public record Attack(
      int node,
      String itemsPastCredit,
      String reusedId,
      long heapBefore,
      long heapAfter,
      long directBefore,
      long directAfter) {
    public long growth() {
      return Math.max(0, heapAfter - heapBefore) + Math.max(0, directAfter - directBefore);
    }
  }

  private final List<Attack> attacks = new ArrayList<>();
  private HostileStreamClient holding;
  private int holdingNode;
  private String itemsPastCredit;
  private String reusedId;
  private long heapBefore;
  private long directBefore;

  /** Plays the first two attacks on {@code host:port} and starts the huge credit's hold. */
  void begin(int node, String host, int port) {
    holdingNode = node;
    heapBefore = heapAfterGc();
    directBefore = Math.max(0, ResourceSnapshot.take().nettyDirectMemory());
    itemsPastCredit = attack(host, port, false);
    reusedId = attack(host, port, true);
    try {
      holding = new HostileStreamClient(host, port, PATIENCE);
      holding.open(1, FLOOD_ITEMS, false);
      holding.awaitOpened(1);
      holding.credit(1, 1L << 62);
    } catch (IOException e) {
      // The server refused or dropped a well-formed opening: the attack's record says so.
      itemsPastCredit += "; the huge credit's opening failed: " + e;
      closeHolding();
    }
  }

  /** Samples the memory the huge credit left held, then closes its connection. */
  void heal() {
    long heapAfter = heapAfterGc();
    long directAfter = Math.max(0, ResourceSnapshot.take().nettyDirectMemory());
    closeHolding();
    attacks.add(
        new Attack(
            holdingNode,
            itemsPastCredit,
            reusedId,
            heapBefore,
            heapAfter,
            directBefore,
            directAfter));
  }

  private void closeHolding() {
    if (holding != null) {
      try {
        holding.close();
      } catch (IOException e) {
        // Closing a socket the server may have closed first: nothing is left to free.
      }
      holding = null;
    }
  }

  /** Items past the credit, or ({@code reuse}) an opening on an id still in use; the verdict. */
  private static String attack(String host, int port, boolean reuse) {
    try (HostileStreamClient c = new HostileStreamClient(host, port, PATIENCE)) {
      try {
        if (reuse) {
          c.open(1, FLOOD_ITEMS, false);
          c.awaitOpened(1);
          c.open(1, FLOOD_ITEMS, false);
        } else {
          c.open(1, FLOOD_ITEMS, true);
          c.sendItems(1, ITEMS_PAST_CREDIT);
        }
      } catch (IOException closedMidway) {
        // The server may close before the last frame is written; its verdict is what counts.
      }
      return c.verdict().name();
    } catch (IOException e) {
      return "no connection: " + e;
    }
  }

  private static long heapAfterGc() {
    // A full collection, so that the sample counts what is held, not garbage.
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  List<Attack> attacks() {
    return List.copyOf(attacks);
  }

  /** One line per broken promise of {@code attacks}; empty when there is none. */
  static List<String> violations(List<Attack> attacks) {
    List<String> out = new ArrayList<>();
    String closed = HostileStreamClient.Verdict.CLOSED_AS_PROTOCOL_ERROR.name();
    for (Attack a : attacks) {
      if (!a.itemsPastCredit().equals(closed)) {
        out.add("node " + a.node() + ", items past the credit: " + a.itemsPastCredit());
      }
      if (!a.reusedId().equals(closed)) {
        out.add("node " + a.node() + ", an opening on an id in use: " + a.reusedId());
      }
      if (a.growth() > GROWTH_ALLOWANCE_BYTES) {
        out.add(
            "node "
                + a.node()
                + ", a huge credit never read: heap and direct memory grew "
                + ResourceSnapshot.bytes(a.growth())
                + ", more than "
                + ResourceSnapshot.bytes(GROWTH_ALLOWANCE_BYTES));
      }
    }
    return out;
  }

  static void print(List<Attack> attacks, PrintStream out) {
    for (Attack a : attacks) {
      out.printf(
          Locale.ROOT,
          "hostile stream client on node %d: items past the credit %s, an opening on an id in use"
              + " %s; a huge credit never read: heap %s -> %s, direct memory %s -> %s%n",
          a.node(),
          a.itemsPastCredit(),
          a.reusedId(),
          ResourceSnapshot.bytes(a.heapBefore()),
          ResourceSnapshot.bytes(a.heapAfter()),
          ResourceSnapshot.bytes(a.directBefore()),
          ResourceSnapshot.bytes(a.directAfter()));
    }
  }
}
