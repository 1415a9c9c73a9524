package dev.tether;

import java.util.List;
import java.util.Objects;

/**
 * A proxy string taken apart: the value a {@code Proxy} is built from. {@link #toString()} prints
 * the canonical grammar form, for example {@code echo -o -s:ssl -h db2 -p 7001 -t 5000 -z}, which
 * {@link #parse(String)} reads back to an equal value.
 *
 * @param identity the name of the target service; never empty
 * @param mode how requests are sent ({@code -t}, {@code -o}, {@code -O}, {@code -d}, {@code -D});
 *     twoway when the string names none
 * @param secure whether only secure endpoints may be used ({@code -s})
 * @param endpoints the endpoints in the order written; empty for an identity alone, in which case
 *     endpoint selection raises {@link NoEndpointException}
 */
public record ParsedProxy(
    String identity, InvocationMode mode, boolean secure, List<Endpoint> endpoints) {

  /** Checks the parts and takes an unmodifiable copy of {@code endpoints}. */
  public ParsedProxy {
    Objects.requireNonNull(identity, "identity");
    if (identity.isEmpty()) {
      // Nothing could print it: an empty identity is exactly what the parser rejects.
      throw new IllegalArgumentException("empty identity");
    }
    Objects.requireNonNull(mode, "mode");
    endpoints = List.copyOf(endpoints);
  }

  /** Parses a proxy string; throws {@link ProxyParseException} naming the offending position. */
  public static ParsedProxy parse(String text) {
    return ProxyGrammar.parseProxy(text);
  }

  /** The canonical grammar form, which {@link #parse(String)} reads back to an equal value. */
  @Override
  public String toString() {
    return ProxyGrammar.formatProxy(this);
  }
}
