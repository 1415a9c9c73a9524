package dev.tether.admin;

import io.netty.util.NetUtil;
import java.util.Locale;
import java.util.Set;

/**
 * Which {@code Host} headers the page answers, against DNS rebinding: a web page elsewhere can make
 * a browser send requests to the admin port under a name the attacker controls, and would then read
 * the answers. So a request is served only when it names the page by an IP address (a literal
 * cannot be rebound), by {@code localhost} or a name under it (RFC 6761: never resolved through
 * DNS), or by a name the builder allowed; a request without a {@code Host} (HTTP/1.0, never a
 * browser) is served too.
 */
final class HostCheck {
  private final Set<String> allowedNames;

  /**
   * @param allowedNames host names (without port) the page is reached by, beyond IP addresses and
   *     localhost; compared without case
   */
  HostCheck(Set<String> allowedNames) {
    this.allowedNames = Set.copyOf(allowedNames.stream().map(HostCheck::lower).toList());
  }

  /** Whether a request with this {@code Host} header (null when absent) is served. */
  boolean serves(String hostHeader) {
    if (hostHeader == null) {
      return true;
    }
    String host = lower(withoutPort(hostHeader.trim()));
    if (host.startsWith("[") && host.endsWith("]")) {
      // Brackets alone prove nothing: only an IPv6 address inside them cannot be rebound.
      return NetUtil.isValidIpV6Address(host.substring(1, host.length() - 1));
    }
    return isIpv4Literal(host)
        || host.equals("localhost")
        || host.equals("localhost.")
        || host.endsWith(".localhost")
        || allowedNames.contains(host);
  }

  private static String withoutPort(String host) {
    int colon = host.lastIndexOf(':');
    if (colon < 0 || host.endsWith("]")) {
      return host;
    }
    return host.substring(0, colon);
  }

  private static boolean isIpv4Literal(String host) {
    String[] parts = host.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String part : parts) {
      if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(Character::isDigit)) {
        return false;
      }
      if (Integer.parseInt(part) > 255) {
        return false;
      }
    }
    return true;
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
