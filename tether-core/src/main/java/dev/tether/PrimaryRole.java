package dev.tether;

/**
 * Whether a server is the primary a cluster view names: the view's primary is one of the endpoints
 * the server listens on (as bound, real ports), spelled in endpoint grammar, so a server bound to a
 * wildcard address never recognises itself.
 */
final class PrimaryRole {
  private PrimaryRole() {}

  static boolean of(TetherServer server, Topology view) {
    return view != null && server.endpoints().contains(Endpoint.parse(view.primary()));
  }
}
