package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ProxyGrammarTest {
  private static final String DESIGN_EXAMPLE =
      "echo:tcp -h 127.0.0.1 -p 7000:ssl -h db2 -p 7001 -t 5000:udp -h 127.0.0.1 -p 7002";

  // ---- good strings -----------------------------------------------------------------------

  @Test
  void designExampleParsesIntoThreeEndpointsInOrder() {
    ParsedProxy proxy = ProxyGrammar.parseProxy(DESIGN_EXAMPLE);

    assertThat(proxy.identity()).isEqualTo("echo");
    assertThat(proxy.mode()).isEqualTo(InvocationMode.TWOWAY);
    assertThat(proxy.secure()).isFalse();
    assertThat(proxy.endpoints())
        .containsExactly(
            new Endpoint("tcp", "127.0.0.1", 7000, null, false),
            new Endpoint("ssl", "db2", 7001, Duration.ofMillis(5000), false),
            new Endpoint("udp", "127.0.0.1", 7002, null, false));
  }

  @Test
  void printedProxyParsesBackToAnEqualProxy() {
    ParsedProxy proxy = ProxyGrammar.parseProxy(DESIGN_EXAMPLE);

    String printed = ProxyGrammar.formatProxy(proxy);

    assertThat(printed).isEqualTo(DESIGN_EXAMPLE);
    assertThat(ProxyGrammar.parseProxy(printed)).isEqualTo(proxy);
    assertThat(proxy.toString()).isEqualTo(printed);
  }

  @Test
  void canonicalFormListsModeSecureTimeoutAndCompression() {
    ParsedProxy proxy =
        new ParsedProxy(
            "echo",
            InvocationMode.ONEWAY,
            true,
            List.of(
                new Endpoint("ssl", "db2", 7001, Duration.ofMillis(5000), true),
                new Endpoint("udp", "::1", 7002, null, false)));

    assertThat(proxy.toString())
        .isEqualTo("echo -o -s:ssl -h db2 -p 7001 -t 5000 -z:udp -h \"::1\" -p 7002");
  }

  @ParameterizedTest
  @CsvSource({"-t, TWOWAY", "-o, ONEWAY", "-O, BATCH_ONEWAY", "-d, DATAGRAM", "-D, BATCH_DATAGRAM"})
  void everyModeOptionSelectsItsInvocationMode(String option, InvocationMode mode) {
    ParsedProxy proxy = ProxyGrammar.parseProxy("echo " + option + ":udp -p 1");

    assertThat(proxy.mode()).isEqualTo(mode);
    assertThat(ProxyGrammar.parseProxy(proxy.toString())).isEqualTo(proxy);
  }

  @Test
  void twowayIsTheDefaultAndIsNotPrinted() {
    assertThat(ProxyGrammar.parseProxy("echo:tcp -p 1").mode()).isEqualTo(InvocationMode.TWOWAY);
    assertThat(ProxyGrammar.parseProxy("echo -t:tcp -p 1").toString())
        .isEqualTo("echo:tcp -h localhost -p 1");
  }

  @Test
  void secureOptionMayComeBeforeOrAfterTheMode() {
    ParsedProxy before = ProxyGrammar.parseProxy("echo -s -O:tcp -p 1");
    ParsedProxy after = ProxyGrammar.parseProxy("echo -O -s:tcp -p 1");

    assertThat(before).isEqualTo(after);
    assertThat(before.secure()).isTrue();
    assertThat(before.mode()).isEqualTo(InvocationMode.BATCH_ONEWAY);
    assertThat(before.toString()).isEqualTo("echo -O -s:tcp -h localhost -p 1");
  }

  @Test
  void compressOptionIsReadAndPrinted() {
    Endpoint endpoint = ProxyGrammar.parseEndpoint("tcp -z -p 9");

    assertThat(endpoint.compress()).isTrue();
    assertThat(endpoint.toString()).isEqualTo("tcp -h localhost -p 9 -z");
  }

  @Test
  void missingHostPortAndTimeoutTakeTheirDefaults() {
    Endpoint endpoint = ProxyGrammar.parseEndpoint("tcp");

    assertThat(endpoint).isEqualTo(new Endpoint("tcp", "localhost", 0, null, false));
  }

  @ParameterizedTest
  @CsvSource({"tcp -p 1", "tcp -p 1 -t infinite", "tcp -p 1 -t -1"})
  void everySpellingOfAnInfiniteTimeoutMeansNoTimeout(String text) {
    Endpoint endpoint = ProxyGrammar.parseEndpoint(text);

    assertThat(endpoint.timeout()).isNull();
    assertThat(endpoint.toString()).isEqualTo("tcp -h localhost -p 1");
  }

  @Test
  void endpointOptionsMayComeInAnyOrder() {
    Endpoint endpoint = ProxyGrammar.parseEndpoint("ssl -z -t 250 -p 7001 -h db2");

    assertThat(endpoint).isEqualTo(new Endpoint("ssl", "db2", 7001, Duration.ofMillis(250), true));
  }

  @Test
  void whitespaceAroundTokensAndColonsIsFlexible() {
    ParsedProxy spaced =
        ProxyGrammar.parseProxy("  echo \t-o  :\ttcp   -h\t127.0.0.1 -p 7000 : udp -p 7002\t ");

    assertThat(spaced)
        .isEqualTo(ProxyGrammar.parseProxy("echo -o:tcp -h 127.0.0.1 -p 7000:udp -p 7002"));
  }

  @Test
  void quotedIdentityMayHoldSpacesColonsAndEscapes() {
    ParsedProxy proxy = ProxyGrammar.parseProxy("\"my svc: \\\"v2\\\" \\\\ \":tcp -p 1");

    assertThat(proxy.identity()).isEqualTo("my svc: \"v2\" \\ ");
    assertThat(proxy.toString()).isEqualTo("\"my svc: \\\"v2\\\" \\\\ \":tcp -h localhost -p 1");
    assertThat(ProxyGrammar.parseProxy(proxy.toString())).isEqualTo(proxy);
  }

  @Test
  void backslashBeforeAnOrdinaryCharacterStandsForItself() {
    assertThat(ProxyGrammar.parseProxy("\"a\\b\"").identity()).isEqualTo("a\\b");
    assertThat(ProxyGrammar.parseProxy("a\\b").identity()).isEqualTo("a\\b");
  }

  @Test
  void identityIsQuotedOnlyWhenNeeded() {
    assertThat(ProxyGrammar.parseProxy("\"echo\"").toString()).isEqualTo("echo");
    assertThat(proxyNamed("my svc").toString()).isEqualTo("\"my svc\"");
    assertThat(proxyNamed("a:b").toString()).isEqualTo("\"a:b\"");
    assertThat(proxyNamed("-o").toString()).isEqualTo("\"-o\"");
  }

  @Test
  void quotedIdentityMayStartWithADash() {
    assertThat(ProxyGrammar.parseProxy("\"-o\" -o").identity()).isEqualTo("-o");
  }

  @Test
  void ipv6HostsAreQuotedBecauseColonSeparatesEndpoints() {
    ParsedProxy proxy = ProxyGrammar.parseProxy("echo:tcp -h \"::1\" -p 1:udp -h \"fe80::1%eth0\"");

    assertThat(proxy.endpoints()).extracting(Endpoint::host).containsExactly("::1", "fe80::1%eth0");
    assertThat(proxy.toString()).isEqualTo("echo:tcp -h \"::1\" -p 1:udp -h \"fe80::1%eth0\" -p 0");
  }

  @Test
  void wildcardHostIsAllowedForServers() {
    List<Endpoint> endpoints = ProxyGrammar.parseEndpointList("tcp -h * -p 0:udp -h * -p 0");

    assertThat(endpoints).extracting(Endpoint::host).containsExactly("*", "*");
    assertThat(endpoints.get(0).toString()).isEqualTo("tcp -h * -p 0");
  }

  @Test
  void unknownTransportIsKeptByNameForSelectionToDrop() {
    ParsedProxy proxy = ProxyGrammar.parseProxy("echo:ws -h web -p 80 -t 100:tcp -p 1");

    assertThat(proxy.endpoints()).extracting(Endpoint::transport).containsExactly("ws", "tcp");
    assertThat(proxy.toString()).startsWith("echo:ws -h web -p 80 -t 100:");
  }

  @Test
  void identityAloneHasNoEndpoints() {
    ParsedProxy proxy = ProxyGrammar.parseProxy("echo");

    assertThat(proxy.endpoints()).isEmpty();
    assertThat(proxy.toString()).isEqualTo("echo");
  }

  @Test
  void endpointListReadsServerEndpoints() {
    List<Endpoint> endpoints = Endpoint.parseList("tcp -h 127.0.0.1 -p 0 : local -h node1");

    assertThat(endpoints)
        .containsExactly(
            new Endpoint("tcp", "127.0.0.1", 0, null, false),
            new Endpoint("local", "node1", 0, null, false));
  }

  @Test
  void endpointToStringParsesBackToAnEqualEndpoint() {
    Endpoint endpoint = new Endpoint("tcp", "127.0.0.1", 41234, Duration.ofSeconds(5), true);

    assertThat(endpoint.toString()).isEqualTo("tcp -h 127.0.0.1 -p 41234 -t 5000 -z");
    assertThat(Endpoint.parse(endpoint.toString())).isEqualTo(endpoint);
  }

  @Test
  void subMillisecondTimeoutRoundsUpRatherThanPrintingZero() {
    Endpoint endpoint = new Endpoint("tcp", "h", 1, Duration.ofNanos(1_500_000), false);

    assertThat(endpoint.toString()).isEqualTo("tcp -h h -p 1 -t 2");
  }

  @Test
  void parsedProxyRefusesAnEmptyIdentity() {
    assertThatThrownBy(() -> new ParsedProxy("", InvocationMode.TWOWAY, false, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void parsedProxyEndpointsCannotBeChanged() {
    List<Endpoint> endpoints = new ArrayList<>(List.of(Endpoint.parse("tcp -p 1")));
    ParsedProxy proxy = new ParsedProxy("echo", InvocationMode.TWOWAY, false, endpoints);

    endpoints.clear();

    assertThat(proxy.endpoints()).hasSize(1);
    assertThatThrownBy(() -> proxy.endpoints().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  // ---- bad strings ------------------------------------------------------------------------

  @Test
  void badPortNamesItsPosition() {
    ProxyParseException e = rejected("echo:tcp -h x -p abc");

    assertThat(e.position()).isEqualTo(17);
    assertThat(e)
        .hasMessage("expected a port number after -p at position 17 in \"echo:tcp -h x -p abc\"");
  }

  static Stream<Arguments> badProxyStrings() {
    return Stream.of(
        Arguments.of("empty string", "", 0, "empty proxy string"),
        Arguments.of("blank string", "   ", 3, "empty proxy string"),
        Arguments.of("no identity before ':'", ":tcp -p 1", 0, "expected an identity"),
        Arguments.of("option instead of identity", "-o:tcp", 0, "expected an identity"),
        Arguments.of("empty quoted identity", "\"\":tcp -p 1", 0, "empty identity"),
        Arguments.of("unterminated identity", "\"echo:tcp -p 1", 0, "unterminated quote"),
        Arguments.of("unterminated host", "echo:tcp -h \"::1 -p 1", 12, "unterminated quote"),
        Arguments.of("escaped closing quote", "\"echo\\\"", 0, "unterminated quote"),
        Arguments.of("unknown proxy option", "echo -x:tcp", 5, "unknown proxy option -x"),
        Arguments.of("junk after identity", "echo junk:tcp", 5, "expected a proxy option or ':'"),
        Arguments.of("two modes", "echo -o -d:tcp", 8, "invocation mode -d conflicts with -o"),
        Arguments.of("repeated mode", "echo -o -o", 8, "repeated option -o"),
        Arguments.of("repeated secure", "echo -s -s", 8, "repeated option -s"),
        Arguments.of("unknown endpoint option", "echo:tcp -y 1", 9, "unknown endpoint option -y"),
        Arguments.of("proxy option in endpoint", "echo:tcp -s", 9, "unknown endpoint option -s"),
        Arguments.of("host missing at end", "echo:tcp -h", 11, "expected a host after -h"),
        Arguments.of("host before option", "echo:tcp -h -p 1", 12, "expected a host after -h"),
        Arguments.of("host missing before ':'", "echo:tcp -h:udp", 11, "expected a host after -h"),
        Arguments.of("empty quoted host", "echo:tcp -h \"\"", 12, "expected a host after -h"),
        Arguments.of("port missing", "echo:tcp -p", 11, "expected a port number after -p"),
        Arguments.of("negative port", "echo:tcp -p -1", 12, "expected a port number after -p"),
        Arguments.of("port too big", "echo:tcp -p 65536", 12, "port 65536 out of range 0..65535"),
        Arguments.of("port far too big", "echo:tcp -p 99999999999", 12, "out of range 0..65535"),
        Arguments.of("zero timeout", "echo:tcp -t 0", 12, "expected a positive timeout"),
        Arguments.of("negative timeout", "echo:tcp -t -5", 12, "expected a positive timeout"),
        Arguments.of("word timeout", "echo:tcp -t soon", 12, "expected a positive timeout"),
        Arguments.of("huge timeout", "echo:tcp -t 1234567890123456789", 12, "positive timeout"),
        Arguments.of("timeout missing", "echo:tcp -t -z", 12, "expected a positive timeout"),
        Arguments.of("empty endpoint between ':'", "echo:tcp -p 1::udp", 14, "empty endpoint"),
        Arguments.of("spaced empty endpoint", "echo:tcp -p 1 : : udp", 16, "empty endpoint"),
        Arguments.of("trailing ':'", "echo:tcp -p 1:", 14, "empty endpoint"),
        Arguments.of("bare ':' after identity", "echo:", 5, "empty endpoint"),
        Arguments.of("junk after endpoint", "echo:tcp -p 1 junk", 14, "found 'junk'"),
        Arguments.of("value after -z", "echo:tcp -z 1", 12, "expected an endpoint option or ':'"),
        Arguments.of("repeated host", "echo:tcp -h a -h b", 14, "repeated option -h"),
        Arguments.of("repeated compress", "echo:tcp -z -p 1 -z", 17, "repeated option -z"),
        Arguments.of("uppercase transport", "echo:TCP -p 1", 5, "expected a transport name"),
        Arguments.of("quoted transport", "echo:\"tcp\" -p 1", 5, "expected a transport name"),
        Arguments.of("option as transport", "echo:-p 1", 5, "expected a transport name"),
        Arguments.of("unquoted IPv6 host", "echo:tcp -h ::1 -p 1", 12, "expected a host after -h"));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("badProxyStrings")
  void badProxyStringNamesTheOffendingPosition(
      String what, String input, int position, String problem) {
    ProxyParseException e = rejected(input);

    assertThat(e.position()).as(e.getMessage()).isEqualTo(position);
    assertThat(e.getMessage())
        .contains(problem)
        .endsWith(" at position " + position + " in \"" + input + "\"");
  }

  @Test
  void singleEndpointParseRefusesASecondEndpoint() {
    ProxyParseException e =
        catchThrowableOfType(ProxyParseException.class, () -> Endpoint.parse("tcp -p 1:udp -p 2"));

    assertThat(e.position()).isEqualTo(8);
    assertThat(e.getMessage()).contains("expected the end of the endpoint");
  }

  @Test
  void emptyEndpointListIsRefused() {
    ProxyParseException e =
        catchThrowableOfType(ProxyParseException.class, () -> Endpoint.parseList(""));

    assertThat(e.position()).isZero();
    assertThat(e.getMessage()).contains("empty endpoint");
  }

  @Test
  void endpointListRefusesProxyOptions() {
    ProxyParseException e =
        catchThrowableOfType(
            ProxyParseException.class, () -> Endpoint.parseList("echo -o:tcp -p 1"));

    assertThat(e.position()).isEqualTo(5);
    assertThat(e.getMessage()).contains("unknown endpoint option -o");
  }

  @Test
  void firstProblemInReadingOrderIsReported() {
    // The unterminated quote comes later; the bad port before it is what gets reported.
    ProxyParseException e = rejected("echo:tcp -p x -h \"oops");

    assertThat(e.position()).isEqualTo(12);
  }

  // ---- properties -------------------------------------------------------------------------

  @Test
  void randomProxiesSurvivePrintingAndParsing() {
    Random random = new Random(20240601L);
    for (int i = 0; i < 3000; i++) {
      ParsedProxy proxy = randomProxy(random);
      String printed = ProxyGrammar.formatProxy(proxy);

      ParsedProxy reparsed = ProxyGrammar.parseProxy(printed);

      assertThat(reparsed).as(printed).isEqualTo(proxy);
      assertThat(ProxyGrammar.formatProxy(reparsed)).isEqualTo(printed);
    }
  }

  @Test
  void looselyWrittenProxiesParseToTheValueTheyDescribe() {
    Random random = new Random(7L);
    for (int i = 0; i < 3000; i++) {
      ParsedProxy proxy = randomProxy(random);
      String loose = writeLoosely(proxy, random);

      ParsedProxy parsed = ProxyGrammar.parseProxy(loose);

      assertThat(parsed).as(loose).isEqualTo(proxy);
      String printed = ProxyGrammar.formatProxy(parsed);
      assertThat(ProxyGrammar.parseProxy(printed)).as(printed).isEqualTo(parsed);
      assertThat(ProxyGrammar.formatProxy(ProxyGrammar.parseProxy(printed))).isEqualTo(printed);
    }
  }

  @Test
  void mangledStringsEitherParseAndRoundTripOrNameAPositionInside() {
    Random random = new Random(99L);
    for (int i = 0; i < 3000; i++) {
      String mangled = mangle(ProxyGrammar.formatProxy(randomProxy(random)), random);
      ParsedProxy parsed;
      try {
        parsed = ProxyGrammar.parseProxy(mangled);
      } catch (ProxyParseException e) {
        assertThat(e.position()).as(mangled).isBetween(0, mangled.length());
        continue;
      }
      assertThat(ProxyGrammar.parseProxy(parsed.toString())).as(mangled).isEqualTo(parsed);
    }
  }

  // ---- helpers ----------------------------------------------------------------------------

  private static ProxyParseException rejected(String input) {
    return catchThrowableOfType(ProxyParseException.class, () -> ProxyGrammar.parseProxy(input));
  }

  private static ParsedProxy proxyNamed(String identity) {
    return new ParsedProxy(identity, InvocationMode.TWOWAY, false, List.of());
  }

  // Characters chosen to hit every lexical rule: separators, quotes, escapes, dashes, non-ASCII.
  private static final String TRICKY_CHARS = "abcxyz019-_./ :\"\\\té*";
  private static final List<String> HOSTS =
      List.of(
          "localhost", "127.0.0.1", "db2", "::1", "fe80::1%eth0", "*", "my host", "-odd", "a\"b");
  private static final List<String> TRANSPORTS = List.of("tcp", "ssl", "udp", "local", "ws", "bt2");

  private static ParsedProxy randomProxy(Random random) {
    InvocationMode mode = InvocationMode.values()[random.nextInt(InvocationMode.values().length)];
    List<Endpoint> endpoints = new ArrayList<>();
    for (int n = random.nextInt(4); n > 0; n--) {
      endpoints.add(randomEndpoint(random));
    }
    return new ParsedProxy(randomText(random), mode, random.nextBoolean(), endpoints);
  }

  private static Endpoint randomEndpoint(Random random) {
    String host = random.nextInt(4) == 0 ? randomText(random) : pick(HOSTS, random);
    int port = random.nextBoolean() ? 0 : random.nextInt(65536);
    Duration timeout = random.nextBoolean() ? null : Duration.ofMillis(1 + random.nextInt(1 << 30));
    return new Endpoint(pick(TRANSPORTS, random), host, port, timeout, random.nextBoolean());
  }

  private static String randomText(Random random) {
    StringBuilder text = new StringBuilder();
    for (int n = 1 + random.nextInt(8); n > 0; n--) {
      text.append(TRICKY_CHARS.charAt(random.nextInt(TRICKY_CHARS.length())));
    }
    return text.toString();
  }

  /** Writes the proxy as a person might: shuffled options, defaults left out, odd whitespace. */
  private static String writeLoosely(ParsedProxy proxy, Random random) {
    List<String> options = new ArrayList<>();
    if (proxy.mode() != InvocationMode.TWOWAY || random.nextBoolean()) {
      options.add(modeOption(proxy.mode()));
    }
    if (proxy.secure()) {
      options.add("-s");
    }
    Collections.shuffle(options, random);
    StringBuilder out =
        new StringBuilder(space(random, 0)).append(quoteLoosely(proxy.identity(), random));
    options.forEach(option -> out.append(space(random, 1)).append(option));
    for (Endpoint endpoint : proxy.endpoints()) {
      out.append(space(random, 0))
          .append(':')
          .append(space(random, 0))
          .append(writeLoosely(endpoint, random));
    }
    return out.append(space(random, 0)).toString();
  }

  private static String writeLoosely(Endpoint endpoint, Random random) {
    List<String> options = new ArrayList<>();
    if (!endpoint.host().equals("localhost") || random.nextBoolean()) {
      options.add("-h" + space(random, 1) + quoteLoosely(endpoint.host(), random));
    }
    if (endpoint.port() != 0 || random.nextBoolean()) {
      options.add("-p" + space(random, 1) + endpoint.port());
    }
    if (endpoint.timeout() != null) {
      options.add("-t" + space(random, 1) + endpoint.timeout().toMillis());
    } else if (random.nextBoolean()) {
      options.add("-t" + space(random, 1) + (random.nextBoolean() ? "infinite" : "-1"));
    }
    if (endpoint.compress()) {
      options.add("-z");
    }
    Collections.shuffle(options, random);
    StringBuilder out = new StringBuilder(endpoint.transport());
    options.forEach(option -> out.append(space(random, 1)).append(option));
    return out.toString();
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

  /** Quotes as the printer would, and sometimes also where the printer would not need to. */
  private static String quoteLoosely(String text, Random random) {
    String needed = ProxyScanner.quoteIfNeeded(text);
    boolean bare = needed.equals(text);
    return bare && random.nextInt(4) == 0 ? "\"" + text.replace("\\", "\\\\") + "\"" : needed;
  }

  private static String space(Random random, int atLeast) {
    StringBuilder space = new StringBuilder();
    for (int n = atLeast + random.nextInt(3); n > 0; n--) {
      space.append(random.nextBoolean() ? ' ' : '\t');
    }
    return space.toString();
  }

  /** Deletes, duplicates or inserts one character somewhere. */
  private static String mangle(String text, Random random) {
    StringBuilder out = new StringBuilder(text);
    int at = random.nextInt(text.length() + 1);
    switch (random.nextInt(3)) {
      case 0 -> {
        if (at < out.length()) {
          out.deleteCharAt(at);
        }
      }
      case 1 -> out.insert(at, at < text.length() ? text.charAt(at) : ':');
      default -> out.insert(at, TRICKY_CHARS.charAt(random.nextInt(TRICKY_CHARS.length())));
    }
    return out.toString();
  }

  private static <T> T pick(List<T> choices, Random random) {
    return choices.get(random.nextInt(choices.size()));
  }
}
