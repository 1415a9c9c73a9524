package dev.tether.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SickNodesTest {
  private static final List<String> ENDPOINTS =
      List.of("tcp -h 127.0.0.1 -p 1", "tcp -h 127.0.0.1 -p 2", "tcp -h 127.0.0.1 -p 3");

  @Test
  void splitsASickNodesErrorsAtItsEjectionAndPassesWhenFewCameAfter() {
    FaultDriver.Played sick = sick(1, 10, 18);
    long[] answers = {s(10.1), s(11), s(12), s(15.1), s(18.5), s(30)};

    SickNodes nodes =
        SickNodes.judge(
            List.of(sick),
            ENDPOINTS,
            List.of(
                new SickNodes.Ejection(ENDPOINTS.get(0), s(11.5)),
                new SickNodes.Ejection(ENDPOINTS.get(1), s(15))),
            answers,
            s(40));

    assertThat(nodes.sicknesses()).containsExactly(new SickNodes.Sickness(1, s(8), s(5), 3, 2));
    assertThat(nodes.violations()).isEmpty();
  }

  @Test
  void failsWhenAnEjectedSickNodeKeepsAnswering() {
    long[] answers = new long[SickNodes.ANSWERS_AFTER_EJECTION + 1];
    for (int i = 0; i < answers.length; i++) {
      answers[i] = s(13) + i;
    }

    SickNodes nodes =
        SickNodes.judge(
            List.of(sick(2, 10, 14)),
            ENDPOINTS,
            List.of(new SickNodes.Ejection(ENDPOINTS.get(2), s(12))),
            answers,
            s(40));

    assertThat(nodes.violations()).singleElement().asString().contains("after its ejection");
  }

  @Test
  void failsWhenALongSicknessWasNeverEjectedButNotAShortOne() {
    SickNodes nodes =
        SickNodes.judge(
            List.of(sick(0, 10, 13), sick(1, 30, 39)), ENDPOINTS, List.of(), new long[0], s(40));

    assertThat(nodes.violations())
        .singleElement()
        .asString()
        .contains("sick node 1 was never ejected");
  }

  private static FaultDriver.Played sick(int node, double from, double to) {
    FaultStep step = new FaultStep(s(from), FaultKind.SICK_NODE, node, s(to) - s(from), 0);
    return new FaultDriver.Played(step, s(from), s(to));
  }

  private static long s(double seconds) {
    return (long) (seconds * TimeUnit.SECONDS.toNanos(1));
  }
}
