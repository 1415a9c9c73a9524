package dev.tether;

import dev.tether.ProxyScanner.Kind;
import dev.tether.ProxyScanner.Token;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and prints the Ice-style proxy grammar:
 *
 * <pre>
 * proxy    = identity [-t | -o | -O | -d | -D] [-s] [ ':' endpoint ]*
 * endpoint = transport [-h host] [-p port] [-t millis | infinite | -1] [-z]
 * </pre>
 *
 * Options may come in any order; none may repeat. Printing gives one canonical form per value, so
 * that parsing what was printed yields an equal value and printing again the same text.
 */
final class ProxyGrammar {
  /** The host of an endpoint written without {@code -h}. */
  static final String DEFAULT_HOST = "localhost";

  // Unknown transports pass the parser (endpoint selection drops them later), but they must still
  // look like a transport name, so that a typo such as "echo:-p 1" fails here with a position.
  private static final Pattern TRANSPORT_NAME = Pattern.compile("[a-z][a-z0-9]*");
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");
  private static final String TIMEOUT_EXPECTED = "a positive timeout in milliseconds or 'infinite'";

  private ProxyGrammar() {}

  static ParsedProxy parseProxy(String text) {
    ProxyScanner in = new ProxyScanner(Objects.requireNonNull(text, "text"));
    String identity = readIdentity(in);
    ProxyOptions options = readProxyOptions(in);
    List<Endpoint> endpoints = in.next().is(Kind.COLON) ? readEndpointList(in) : List.of();
    return new ParsedProxy(identity, options.mode(), options.secure, endpoints);
  }

  static Endpoint parseEndpoint(String text) {
    ProxyScanner in = new ProxyScanner(Objects.requireNonNull(text, "text"));
    Endpoint endpoint = readEndpoint(in);
    Token rest = in.next();
    if (!rest.is(Kind.END)) {
      throw in.errorAt(rest, "expected the end of the endpoint (one endpoint only)");
    }
    return endpoint;
  }

  static List<Endpoint> parseEndpointList(String text) {
    return readEndpointList(new ProxyScanner(Objects.requireNonNull(text, "text")));
  }

  static String formatProxy(ParsedProxy proxy) {
    StringBuilder out = new StringBuilder(ProxyScanner.quoteIfNeeded(proxy.identity()));
    if (proxy.mode() != InvocationMode.TWOWAY) {
      out.append(' ').append(modeOption(proxy.mode()));
    }
    if (proxy.secure()) {
      out.append(" -s");
    }
    for (Endpoint endpoint : proxy.endpoints()) {
      out.append(':').append(formatEndpoint(endpoint));
    }
    return out.toString();
  }

  static String formatEndpoint(Endpoint endpoint) {
    StringBuilder out =
        new StringBuilder(endpoint.transport())
            .append(" -h ")
            .append(ProxyScanner.quoteIfNeeded(endpoint.host()))
            .append(" -p ")
            .append(endpoint.port());
    if (endpoint.timeout() != null) {
      out.append(" -t ").append(wholeMillis(endpoint.timeout()));
    }
    if (endpoint.compress()) {
      out.append(" -z");
    }
    return out.toString();
  }

  private static String readIdentity(ProxyScanner in) {
    Token token = in.next();
    if (token.is(Kind.END)) {
      throw in.errorAt(token, "empty proxy string; expected an identity");
    }
    // An unquoted identity may not start with '-': "-o:tcp" is far more likely a forgotten
    // identity than a service named "-o". Such a name must be quoted, and is printed quoted.
    if (token.is(Kind.COLON) || token.isOption()) {
      throw in.errorAt(token, "expected an identity but found " + token.describe());
    }
    if (token.text().isEmpty()) {
      throw in.errorAt(token, "empty identity");
    }
    return token.text();
  }

  /** Reads the options after the identity, stopping before the first ':' or the end. */
  private static ProxyOptions readProxyOptions(ProxyScanner in) {
    ProxyOptions options = new ProxyOptions();
    while (!in.peek().endsEndpoint()) {
      Token option = in.next();
      if (!option.isOption()) {
        throw in.errorAt(option, "expected a proxy option or ':' but found " + option.describe());
      }
      options.handle(option, in);
    }
    return options;
  }

  /** Reads endpoint (':' endpoint)* up to the end of the input. */
  private static List<Endpoint> readEndpointList(ProxyScanner in) {
    List<Endpoint> endpoints = new ArrayList<>();
    endpoints.add(readEndpoint(in));
    // readEndpoint stops before a ':' or the end, so this token is one of the two.
    while (in.next().is(Kind.COLON)) {
      endpoints.add(readEndpoint(in));
    }
    return List.copyOf(endpoints);
  }

  /** Reads one endpoint, stopping before the ':' or the end that follows it. */
  private static Endpoint readEndpoint(ProxyScanner in) {
    Token name = in.next();
    if (name.endsEndpoint()) {
      throw in.errorAt(
          name, "empty endpoint; expected a transport name but found " + name.describe());
    }
    if (!name.is(Kind.WORD) || !TRANSPORT_NAME.matcher(name.text()).matches()) {
      throw in.errorAt(
          name,
          "expected a transport name (lowercase letters and digits) but found " + name.describe());
    }
    EndpointOptions options = new EndpointOptions(name.text());
    while (!in.peek().endsEndpoint()) {
      Token option = in.next();
      if (!option.isOption()) {
        throw in.errorAt(
            option, "expected an endpoint option or ':' but found " + option.describe());
      }
      options.handle(option, in);
    }
    return options.toEndpoint();
  }

  /** Consumes the value after {@code option}; the next option, a ':' or the end means none. */
  private static Token readValue(ProxyScanner in, Token option, String expected) {
    Token value = in.peek();
    if (value.endsEndpoint() || value.isOption()) {
      throw in.errorAt(value, "expected " + expected + " after " + option.text());
    }
    return in.next();
  }

  private static String readHost(ProxyScanner in, Token option) {
    Token host = readValue(in, option, "a host");
    if (host.text().isEmpty()) {
      throw in.errorAt(host, "expected a host after " + option.text());
    }
    return host.text();
  }

  private static int readPort(ProxyScanner in, Token option) {
    Token port = readValue(in, option, "a port number");
    if (!DIGITS.matcher(port.text()).matches()) {
      throw in.errorAt(port, "expected a port number after " + option.text());
    }
    // Checking the length first keeps Integer.parseInt from overflowing on a long digit string.
    int number = port.text().length() <= 5 ? Integer.parseInt(port.text()) : Integer.MAX_VALUE;
    if (number > 65535) {
      throw in.errorAt(port, "port " + port.text() + " out of range 0..65535");
    }
    return number;
  }

  /** Returns the timeout, or null for infinite. */
  private static Duration readTimeout(ProxyScanner in, Token option) {
    Token timeout = readValue(in, option, TIMEOUT_EXPECTED);
    String text = timeout.text();
    if (text.equals("infinite") || text.equals("-1")) {
      return null;
    }
    // 18 digits always fit in a long; anything longer is far beyond any sensible timeout.
    boolean fits = DIGITS.matcher(text).matches() && text.length() <= 18;
    long millis = fits ? Long.parseLong(text) : 0;
    if (millis <= 0) {
      throw in.errorAt(timeout, "expected " + TIMEOUT_EXPECTED + " after " + option.text());
    }
    return Duration.ofMillis(millis);
  }

  /**
   * The grammar counts whole milliseconds; a sub-millisecond remainder rounds up so that a positive
   * timeout never prints as the invalid {@code -t 0}.
   */
  private static long wholeMillis(Duration timeout) {
    long millis = timeout.toMillis();
    return timeout.compareTo(Duration.ofMillis(millis)) > 0 ? millis + 1 : millis;
  }

  private static InvocationMode modeOf(String option) {
    return switch (option) {
      case "-t" -> InvocationMode.TWOWAY;
      case "-o" -> InvocationMode.ONEWAY;
      case "-O" -> InvocationMode.BATCH_ONEWAY;
      case "-d" -> InvocationMode.DATAGRAM;
      case "-D" -> InvocationMode.BATCH_DATAGRAM;
      default -> null;
    };
  }

  private static String modeOption(InvocationMode mode) {
    return switch (mode) {
      case TWOWAY -> "-t";
      case ONEWAY -> "-o";
      case BATCH_ONEWAY -> "-O";
      case DATAGRAM -> "-d";
      case BATCH_DATAGRAM -> "-D";
    };
  }

  /** The proxy options read so far. */
  private static final class ProxyOptions {
    /** The mode option given, such as "-o"; null until one is read. */
    private String modeOption;

    private boolean secure;

    void handle(Token option, ProxyScanner in) {
      String name = option.text();
      if (name.equals("-s")) {
        if (secure) {
          throw in.errorAt(option, "repeated option -s");
        }
        secure = true;
      } else if (modeOf(name) == null) {
        throw in.errorAt(
            option, "unknown proxy option " + name + "; expected -t, -o, -O, -d, -D or -s");
      } else if (modeOption != null) {
        throw in.errorAt(
            option,
            name.equals(modeOption)
                ? "repeated option " + name
                : "invocation mode " + name + " conflicts with " + modeOption);
      } else {
        modeOption = name;
      }
    }

    InvocationMode mode() {
      return modeOption == null ? InvocationMode.TWOWAY : modeOf(modeOption);
    }
  }

  /** The endpoint options read so far, starting from the defaults of a bare transport name. */
  private static final class EndpointOptions {
    private static final Set<String> ENDPOINT_OPTIONS = Set.of("-h", "-p", "-t", "-z");

    private final String transport;
    private final Set<String> seen = new HashSet<>();
    private String host = DEFAULT_HOST;
    private int port;

    /** Null while infinite: no {@code -t}, {@code -t infinite} or {@code -t -1}. */
    private Duration timeout;

    private boolean compress;

    EndpointOptions(String transport) {
      this.transport = transport;
    }

    void handle(Token option, ProxyScanner in) {
      if (!ENDPOINT_OPTIONS.contains(option.text())) {
        throw in.errorAt(
            option, "unknown endpoint option " + option.text() + "; expected -h, -p, -t or -z");
      }
      if (!seen.add(option.text())) {
        throw in.errorAt(option, "repeated option " + option.text());
      }
      switch (option.text()) {
        case "-h" -> host = readHost(in, option);
        case "-p" -> port = readPort(in, option);
        case "-t" -> timeout = readTimeout(in, option);
        default -> compress = true; // -z, the one option without a value
      }
    }

    Endpoint toEndpoint() {
      return new Endpoint(transport, host, port, timeout, compress);
    }
  }
}
