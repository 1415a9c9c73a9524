package dev.tether.bench;

/**
 * The message every typed row sends, in each system's own form (a record, a protobuf message, a
 * hessian2 bean): {@code {long id; String name; byte[] data}} with the run's payload as {@code
 * data} (64 bytes in the headline rows). A reply whose id or name differs from the request's fails
 * the call.
 */
final class TypedMessage {

  /** The id every typed request carries. */
  static final long ID = 0x7E7E_0000_0001L;

  /** The name every typed request carries. */
  static final String NAME = "tether-bench";

  private TypedMessage() {}

  /** Whether a reply's id and name are those sent. */
  static boolean isEcho(long id, String name) {
    return id == ID && NAME.equals(name);
  }

  /** The failure of a call whose reply is not the echo of the request's id and name. */
  static IllegalStateException notTheEcho(long id, String name) {
    return new IllegalStateException(
        "typed reply (id " + id + ", name " + name + ") is not the echo of the request");
  }
}
