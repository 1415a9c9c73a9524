package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.bench.FakeSystem.Behaviour;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultTableTest {

  private static final SystemSpec RAW = FakeSystem.spec(SystemSpec.RAW_NETTY, "", Behaviour.ECHO);
  private static final SystemSpec GRPC_DIRECT =
      FakeSystem.spec(SystemSpec.GRPC, "direct", Behaviour.ECHO);
  private static final SystemSpec GRPC_DEFAULT =
      FakeSystem.spec(SystemSpec.GRPC, "default", Behaviour.ECHO);
  private static final SystemSpec TETHER_DIRECT =
      FakeSystem.spec(SystemSpec.TETHER, "direct", Behaviour.ECHO);
  private static final SystemSpec TETHER_DEFAULT =
      FakeSystem.spec(SystemSpec.TETHER, "default", Behaviour.ECHO);
  private static final SystemSpec TETHER_TYPED =
      FakeSystem.spec(SystemSpec.TETHER, "typed", Behaviour.ECHO);
  private static final SystemSpec GRPC_PROTOBUF =
      FakeSystem.spec(SystemSpec.GRPC, "protobuf default", Behaviour.ECHO);
  private static final SystemSpec DUBBO_BYTES =
      FakeSystem.spec(SystemSpec.DUBBO, "bytes", Behaviour.ECHO);
  private static final SystemSpec DUBBO_TYPED =
      FakeSystem.spec(SystemSpec.DUBBO, "typed", Behaviour.ECHO);

  @Test
  void withoutTetherRowsTheTableHasNoRatioColumns() {
    String table =
        ResultTable.render(
            List.of(result(RAW, 64, 16, 150_000), result(GRPC_DIRECT, 64, 16, 28_000)));

    assertThat(table).doesNotContain("Tether/");
    assertThat(table.lines().toList().get(1))
        .startsWith("raw-netty")
        .contains("64 B", "16", "150,000", "100.0", "200.0", "300.0");
  }

  @Test
  void tetherRowsAreComparedWithGrpcInTheSameSettingWithDubboAndWithRawNetty() {
    List<RunResult> results =
        List.of(
            result(RAW, 64, 16, 200_000),
            result(GRPC_DIRECT, 64, 16, 40_000),
            result(GRPC_DEFAULT, 64, 16, 10_000),
            result(DUBBO_BYTES, 64, 16, 5_000),
            result(TETHER_DIRECT, 64, 16, 60_000),
            result(TETHER_DEFAULT, 64, 16, 20_000));

    List<String> lines = ResultTable.render(results).lines().toList();

    assertThat(lines.get(0)).contains("Tether/gRPC", "Tether/Dubbo", "Tether/raw", "typed/untyped");
    assertThat(lines.get(5)).startsWith("tether direct");
    assertThat(ratioColumns(lines.get(5))).containsExactly("1.50x", "12.00x", "0.30x", "-");
    assertThat(lines.get(6)).startsWith("tether default");
    assertThat(ratioColumns(lines.get(6))).containsExactly("2.00x", "4.00x", "0.10x", "-");
    assertThat(lines.get(1)).startsWith("raw-netty");
    assertThat(ratioColumns(lines.get(1))).containsExactly("-", "-", "-", "-");
  }

  @Test
  void typedRowsAreComparedWithProtobufWithTypedDubboAndWithUntypedCalls() {
    List<RunResult> results =
        List.of(
            result(GRPC_DEFAULT, 64, 16, 10_000),
            result(GRPC_PROTOBUF, 64, 16, 8_000),
            result(DUBBO_BYTES, 64, 16, 5_000),
            result(DUBBO_TYPED, 64, 16, 4_000),
            result(TETHER_DEFAULT, 64, 16, 20_000),
            result(TETHER_TYPED, 64, 16, 16_000));

    String typedLine = ResultTable.render(results).lines().toList().get(6);

    assertThat(typedLine).startsWith("tether typed");
    assertThat(ratioColumns(typedLine)).containsExactly("2.00x", "4.00x", "-", "0.80x");
  }

  @Test
  void ratiosOnlyCompareRunsOfTheSamePlacement() {
    List<RunResult> results =
        List.of(
            result(new Scenario(GRPC_DIRECT, 64, 16, Placement.TWO_PROCESS), 40_000, CpuUse.NONE),
            result(TETHER_DIRECT, 64, 16, 60_000));

    String tetherLine = ResultTable.render(results).lines().toList().get(2);

    assertThat(ratioColumns(tetherLine)).containsExactly("-", "-", "-", "-");
  }

  @Test
  void cpuPerCallIsSplitIntoClientAndServerWhenTheServerRanApart() {
    // 10 s at 1,000 calls/s: 10,000 calls; 20 ms of client CPU and 30 ms of server CPU.
    RunResult apart =
        result(
            new Scenario(RAW, 64, 1, Placement.TWO_PROCESS),
            1_000,
            new CpuUse(20_000_000, 30_000_000));
    RunResult together = result(new Scenario(RAW, 64, 1), 1_000, new CpuUse(50_000_000, -1));

    List<String> lines = ResultTable.render(List.of(apart, together)).lines().toList();

    assertThat(lines.get(0)).contains("cpu/call", "client", "server");
    assertThat(lines.get(1)).endsWith("5.00    2.00    3.00");
    assertThat(lines.get(2)).endsWith("5.00       -       -");
  }

  @Test
  void ratiosOnlyCompareRunsOfTheSamePayloadAndConcurrency() {
    List<RunResult> results =
        List.of(result(GRPC_DIRECT, 4096, 16, 40_000), result(TETHER_DIRECT, 64, 16, 60_000));

    String tetherLine = ResultTable.render(results).lines().toList().get(2);

    assertThat(ratioColumns(tetherLine)).containsExactly("-", "-", "-", "-");
  }

  @Test
  void csvHasOneLinePerResultAndQuotesProblems() {
    RunResult failed =
        new RunResult(
            new Scenario(TETHER_DIRECT, 64, 1), 0, 0, 0, 0, 0, 0, CpuUse.NONE, 1, "Boom: \"x\", y");
    List<RunResult> results = List.of(result(GRPC_DIRECT, 64, 1, 7_000), failed);

    List<String> lines = ResultTable.csv(results).lines().toList();

    assertThat(lines).hasSize(3);
    assertThat(lines.get(0))
        .startsWith("system,family,setting,placement,payload_bytes,concurrency,calls_per_second");
    assertThat(lines.get(1))
        .isEqualTo(
            "grpc direct,grpc,direct,ONE_JVM,64,1,7000.0,100.0,200.0,300.0,400.0,5.000,,,70000,0,,,,,");
    assertThat(lines.get(2)).endsWith(",0,1,0.00,,,,\"Boom: \"\"x\"\", y\"");
  }

  @Test
  void runsWithProblemsAreMarkedAndExplainedUnderTheTable() {
    RunResult failed =
        new RunResult(
            new Scenario(GRPC_DEFAULT, 64, 16),
            10,
            5,
            1,
            2,
            3,
            4,
            CpuUse.NONE,
            2,
            "StatusRuntimeException: UNAVAILABLE");

    String table = ResultTable.render(List.of(failed));

    assertThat(table)
        .contains("grpc default !")
        .contains(
            "! grpc default, 64 B, 16 outstanding, one JVM: 2 of 16 slots failed; StatusRuntimeException: UNAVAILABLE");
  }

  private static List<String> ratioColumns(String line) {
    List<String> columns = List.of(line.trim().split("\\s+"));
    return columns.subList(columns.size() - 4, columns.size());
  }

  private static RunResult result(
      SystemSpec system, int payloadBytes, int concurrency, double callsPerSecond) {
    return result(
        new Scenario(system, payloadBytes, concurrency),
        callsPerSecond,
        new CpuUse((long) callsPerSecond * 10 * 5_000, -1));
  }

  /** A run of 10 s at {@code callsPerSecond} with fixed latencies. */
  private static RunResult result(Scenario scenario, double callsPerSecond, CpuUse cpu) {
    return new RunResult(
        scenario, (long) callsPerSecond * 10, callsPerSecond, 100, 200, 300, 400, cpu, 0, "");
  }
}
