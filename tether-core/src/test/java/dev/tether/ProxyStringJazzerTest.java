package dev.tether;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/**
 * Coverage-guided fuzzing of the proxy-string grammar through its four entry points: {@link
 * ParsedProxy#parse}, {@link Endpoint#parse}, {@link Endpoint#parseList} and {@link
 * Tether#proxy(String)}. Jazzer's last input byte picks the entry point, the rest is the string
 * (any Unicode). A string either parses to a value whose {@code toString()} parses back to an equal
 * value and prints the same again, or is refused with a {@link ProxyParseException} whose position
 * lies within the string and whose message quotes it; never another exception.
 */
class ProxyStringJazzerTest {
  private static Tether tether;

  @AfterAll
  static void closeRuntime() {
    if (tether != null) {
      tether.close();
    }
  }

  @FuzzTest(maxDuration = FuzzRun.MAX_DURATION)
  void parsedStringPrintsBackToAnEqualValueOrFailsAtAPosition(FuzzedDataProvider data) {
    int entryPoint = data.consumeInt(0, 3);
    String text = data.consumeRemainingAsString();
    try {
      switch (entryPoint) {
        case 0 -> checkProxy(text);
        case 1 -> checkEndpoint(text);
        case 2 -> checkEndpointList(text);
        default -> checkRuntimeProxy(text);
      }
    } catch (ProxyParseException e) {
      check(
          e.position() >= 0 && e.position() <= text.length(),
          "position " + e.position() + " outside a string of " + text.length());
      check(e.getMessage().contains("at position " + e.position()), "message lacks the position");
      check(e.getMessage().contains(text), "message does not quote the input");
    }
  }

  private static void checkProxy(String text) {
    ParsedProxy parsed = ParsedProxy.parse(text);
    String printed = parsed.toString();
    ParsedProxy again = ParsedProxy.parse(printed);
    check(again.equals(parsed), "\"" + printed + "\" parses to " + again + ", not " + parsed);
    check(again.toString().equals(printed), "printing is not stable: " + printed);
  }

  private static void checkEndpoint(String text) {
    Endpoint parsed = Endpoint.parse(text);
    String printed = parsed.toString();
    Endpoint again = Endpoint.parse(printed);
    check(
        again.equals(parsed) && again.hashCode() == parsed.hashCode(),
        "\"" + printed + "\" parses to another endpoint");
    check(again.toString().equals(printed), "printing is not stable: " + printed);
  }

  private static void checkEndpointList(String text) {
    List<Endpoint> parsed = Endpoint.parseList(text);
    check(!parsed.isEmpty(), "an endpoint list parsed to nothing");
    StringBuilder printed = new StringBuilder();
    for (Endpoint endpoint : parsed) {
      printed.append(printed.length() == 0 ? "" : ":").append(endpoint);
    }
    check(
        Endpoint.parseList(printed.toString()).equals(parsed),
        "list does not print back: " + printed);
  }

  private static void checkRuntimeProxy(String text) {
    Proxy proxy = runtime().proxy(text);
    String printed = proxy.toString();
    check(printed.equals(ParsedProxy.parse(text).toString()), "a Proxy prints " + printed);
    check(
        runtime().proxy(printed).toString().equals(printed),
        "a Proxy does not print back: " + printed);
  }

  private static Tether runtime() {
    if (tether == null) {
      tether = Tether.create();
    }
    return tether;
  }

  private static void check(boolean condition, String problem) {
    if (!condition) {
      throw new AssertionError(problem);
    }
  }
}
