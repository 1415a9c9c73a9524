package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.bench.FakeSystem.Behaviour;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultTableTest {

    private static final SystemSpec RAW = FakeSystem.spec(SystemSpec.RAW_NETTY, "", Behaviour.ECHO);
    private static final SystemSpec GRPC_DIRECT = FakeSystem.spec(SystemSpec.GRPC, "direct", Behaviour.ECHO);
    private static final SystemSpec GRPC_DEFAULT = FakeSystem.spec(SystemSpec.GRPC, "default", Behaviour.ECHO);
    private static final SystemSpec TETHER_DIRECT = FakeSystem.spec(SystemSpec.TETHER, "direct", Behaviour.ECHO);
    private static final SystemSpec TETHER_DEFAULT = FakeSystem.spec(SystemSpec.TETHER, "default", Behaviour.ECHO);

    @Test
    void withoutTetherRowsTheTableHasNoRatioColumns() {
        String table = ResultTable.render(List.of(result(RAW, 64, 16, 150_000), result(GRPC_DIRECT, 64, 16, 28_000)));

        assertThat(table).doesNotContain("Tether/");
        assertThat(table.lines().toList().get(1))
                .startsWith("raw-netty")
                .contains("64 B", "16", "150,000", "100.0", "200.0", "300.0");
    }

    @Test
    void tetherRowsAreComparedWithGrpcInTheSameSettingAndWithRawNetty() {
        List<RunResult> results = List.of(
                result(RAW, 64, 16, 200_000),
                result(GRPC_DIRECT, 64, 16, 40_000),
                result(GRPC_DEFAULT, 64, 16, 10_000),
                result(TETHER_DIRECT, 64, 16, 60_000),
                result(TETHER_DEFAULT, 64, 16, 20_000));

        List<String> lines = ResultTable.render(results).lines().toList();

        assertThat(lines.get(0)).contains("Tether/gRPC", "Tether/raw");
        assertThat(lines.get(4)).startsWith("tether direct");
        assertThat(ratioColumns(lines.get(4))).containsExactly("1.50x", "0.30x");
        assertThat(lines.get(5)).startsWith("tether default");
        assertThat(ratioColumns(lines.get(5))).containsExactly("2.00x", "0.10x");
        assertThat(lines.get(1)).startsWith("raw-netty");
        assertThat(ratioColumns(lines.get(1))).containsExactly("-", "-");
    }

    @Test
    void ratiosOnlyCompareRunsOfTheSamePayloadAndConcurrency() {
        List<RunResult> results = List.of(result(GRPC_DIRECT, 4096, 16, 40_000), result(TETHER_DIRECT, 64, 16, 60_000));

        String tetherLine = ResultTable.render(results).lines().toList().get(2);

        assertThat(ratioColumns(tetherLine)).containsExactly("-", "-");
    }

    @Test
    void csvHasOneLinePerResultAndQuotesProblems() {
        RunResult failed = new RunResult(new Scenario(TETHER_DIRECT, 64, 1), 0, 0, 0, 0, 0, 0, 1, "Boom: \"x\", y");
        List<RunResult> results = List.of(result(GRPC_DIRECT, 64, 1, 7_000), failed);

        List<String> lines = ResultTable.csv(results).lines().toList();

        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("system,family,setting,payload_bytes,concurrency,calls_per_second");
        assertThat(lines.get(1)).isEqualTo("grpc direct,grpc,direct,64,1,7000.0,100.0,200.0,300.0,400.0,70000,0,,,");
        assertThat(lines.get(2)).endsWith(",1,0.00,,\"Boom: \"\"x\"\", y\"");
    }

    @Test
    void runsWithProblemsAreMarkedAndExplainedUnderTheTable() {
        RunResult failed = new RunResult(new Scenario(GRPC_DEFAULT, 64, 16), 10, 5, 1, 2, 3, 4, 2, "StatusRuntimeException: UNAVAILABLE");

        String table = ResultTable.render(List.of(failed));

        assertThat(table).contains("grpc default !")
                .contains("! grpc default, 64 B, 16 outstanding: 2 of 16 slots failed; StatusRuntimeException: UNAVAILABLE");
    }

    private static List<String> ratioColumns(String line) {
        List<String> columns = List.of(line.trim().split("\\s+"));
        return columns.subList(columns.size() - 2, columns.size());
    }

    private static RunResult result(SystemSpec system, int payloadBytes, int concurrency, double callsPerSecond) {
        return new RunResult(new Scenario(system, payloadBytes, concurrency), (long) callsPerSecond * 10, callsPerSecond, 100, 200, 300, 400, 0, "");
    }
}
