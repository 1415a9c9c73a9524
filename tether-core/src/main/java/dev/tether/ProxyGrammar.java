package dev.tether;

import java.util.List;

/** Placeholder until the grammar lands. */
final class ProxyGrammar {
  private ProxyGrammar() {}

  static Endpoint parseEndpoint(String text) {
    throw new ProxyParseException(text, 0, "grammar not available");
  }

  static List<Endpoint> parseEndpointList(String text) {
    throw new ProxyParseException(text, 0, "grammar not available");
  }

  static String formatEndpoint(Endpoint e) {
    return e.transport() + " -h " + e.host() + " -p " + e.port();
  }
}
