package dev.tether;

import dev.tether.client.ClientConnection;
import dev.tether.client.RequestChannel;

/**
 * For tests of the client's insides: the live connection a {@link Connection} snapshot was taken
 * of, while its runtime still holds it. Users have no such way in; they poll {@link
 * Tether#connection(Connection)}.
 */
public final class LiveConnections {
  private LiveConnections() {}

  /**
   * The live connection behind {@code snapshot}; fails the test when {@code tether} no longer holds
   * it.
   */
  public static RequestChannel of(Tether tether, Connection snapshot) {
    RequestChannel live = tether.runtime().connectionNumbered(snapshot.id());
    if (live == null) {
      throw new AssertionError("the runtime no longer holds " + snapshot);
    }
    return live;
  }

  /** The live stream connection behind {@code snapshot}. */
  public static ClientConnection stream(Tether tether, Connection snapshot) {
    return (ClientConnection) of(tether, snapshot);
  }
}
