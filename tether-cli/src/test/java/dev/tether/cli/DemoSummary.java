package dev.tether.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The figures of a printed demo summary, read back from its text. */
record DemoSummary(
    Map<String, long[]> operations,
    long[] allCalls,
    Map<String, Long> failures,
    Map<String, Long> idempotentFailures,
    Map<String, Long> notIdempotentFailures,
    Map<String, long[]> servers,
    Map<String, String> serverStates,
    long[] allServers,
    long incrementsExecuted,
    long incrementsAcknowledged,
    long counter,
    long idempotentExecuted,
    long idempotentAcknowledged,
    boolean incrementCheckPassed,
    Map<String, String> verdicts,
    String verdict) {

  private static final String N = "([\\d,]+)";
  private static final Pattern OPERATION =
      Pattern.compile(
          "^  (put|get|increment)\\s+(?:idempotent|not idempotent)\\s+"
              + N
              + "\\s+"
              + N
              + "\\s+"
              + N
              + "$");
  private static final Pattern ALL =
      Pattern.compile("^  all\\s+" + N + "\\s+" + N + "\\s+" + N + "$");
  private static final Pattern SERVER =
      Pattern.compile(
          "^  (server-\\d+)\\s+(running|(?:closed|drained|restarted) at [\\d.]+ s)\\s+"
              + N
              + "\\s+"
              + N
              + "\\s+"
              + N
              + "$");

  /** A failure row: the exception, then its count among idempotent calls and among the others. */
  private static final Pattern FAILURE =
      Pattern.compile(
          "^  ([A-Za-z]+Exception(?: mayHaveExecuted=(?:true|false))?)\\s+" + N + "\\s+" + N + "$");

  private static final Pattern INCREMENTS =
      Pattern.compile(
          "^increments   executed on servers "
              + N
              + ", acknowledged to callers "
              + N
              + ", counter "
              + N);
  private static final Pattern IDEMPOTENT =
      Pattern.compile("^idempotent   executed on servers " + N + ", acknowledged to callers " + N);

  /** An expectation's line: PASS or FAIL, the claim, its evidence. */
  private static final Pattern VERDICT = Pattern.compile("^  (PASS|FAIL)  ([^:]+): (.*)$");

  private static final Pattern FINAL_VERDICT = Pattern.compile("^verdict      (.*)$");

  static DemoSummary parse(String text) {
    Map<String, long[]> operations = new LinkedHashMap<>();
    Map<String, Long> failures = new LinkedHashMap<>();
    Map<String, Long> idempotentFailures = new LinkedHashMap<>();
    Map<String, Long> notIdempotentFailures = new LinkedHashMap<>();
    Map<String, long[]> servers = new LinkedHashMap<>();
    Map<String, String> states = new LinkedHashMap<>();
    Map<String, String> verdicts = new LinkedHashMap<>();
    List<long[]> alls = new ArrayList<>();
    long[] increments = null;
    long[] idempotent = null;
    String verdict = null;
    for (String line : text.lines().toList()) {
      Matcher m;
      if ((m = OPERATION.matcher(line)).matches()) {
        operations.put(m.group(1), numbers(m, 2, 3, 4));
      } else if ((m = ALL.matcher(line)).matches()) {
        alls.add(numbers(m, 1, 2, 3));
      } else if ((m = SERVER.matcher(line)).matches()) {
        servers.put(m.group(1), numbers(m, 3, 4, 5));
        states.put(m.group(1), m.group(2));
      } else if ((m = FAILURE.matcher(line)).matches()) {
        idempotentFailures.put(m.group(1), number(m.group(2)));
        notIdempotentFailures.put(m.group(1), number(m.group(3)));
        failures.put(m.group(1), number(m.group(2)) + number(m.group(3)));
      } else if ((m = INCREMENTS.matcher(line)).find()) {
        increments = numbers(m, 1, 2, 3);
      } else if ((m = IDEMPOTENT.matcher(line)).find()) {
        idempotent = numbers(m, 1, 2);
      } else if ((m = VERDICT.matcher(line)).matches()) {
        verdicts.put(m.group(2), m.group(1) + " " + m.group(3));
      } else if ((m = FINAL_VERDICT.matcher(line)).matches()) {
        verdict = m.group(1);
      }
    }
    if (alls.size() != 2 || increments == null || idempotent == null || operations.size() != 3) {
      throw new IllegalArgumentException("not a complete demo summary:\n" + text);
    }
    return new DemoSummary(
        operations,
        alls.get(0),
        failures,
        idempotentFailures,
        notIdempotentFailures,
        servers,
        states,
        alls.get(1),
        increments[0],
        increments[1],
        increments[2],
        idempotent[0],
        idempotent[1],
        text.contains("none lost or doubled unseen"),
        verdicts,
        verdict);
  }

  private static long[] numbers(Matcher m, int... groups) {
    long[] out = new long[groups.length];
    for (int i = 0; i < groups.length; i++) {
      out[i] = number(m.group(groups[i]));
    }
    return out;
  }

  private static long number(String digits) {
    return Long.parseLong(digits.replace(",", ""));
  }

  long total() {
    return allCalls[0];
  }

  long ok() {
    return allCalls[1];
  }

  long failed() {
    return allCalls[2];
  }

  /** The calls of the idempotent operations, as {total, ok, failed}. */
  long[] idempotentCalls() {
    long[] out = new long[3];
    for (String op : List.of("put", "get")) {
      for (int i = 0; i < 3; i++) {
        out[i] += operations.get(op)[i];
      }
    }
    return out;
  }
}
