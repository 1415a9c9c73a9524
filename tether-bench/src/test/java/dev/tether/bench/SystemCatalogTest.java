package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SystemCatalogTest {

  private final List<SystemSpec> catalog = SystemCatalog.all();

  @Test
  void theCatalogListsRawNettyAndBothGrpcSettings() {
    assertThat(catalog)
        .extracting(SystemSpec::name)
        .startsWith("raw-netty", "grpc direct", "grpc default");
  }

  @Test
  void aFamilySelectsEachOfItsSettings() {
    assertThat(SystemCatalog.select(catalog, List.of("GRPC")))
        .extracting(SystemSpec::name)
        .containsExactly(
            "grpc direct", "grpc default", "grpc protobuf direct", "grpc protobuf default");
  }

  @Test
  void aNameSelectsOneSettingWrittenWithASpaceOrAHyphen() {
    assertThat(SystemCatalog.select(catalog, List.of("grpc-default", "raw-netty")))
        .extracting(SystemSpec::name)
        .containsExactly("raw-netty", "grpc default");
    assertThat(SystemCatalog.select(catalog, List.of("grpc direct")))
        .extracting(SystemSpec::name)
        .containsExactly("grpc direct");
  }

  @Test
  void noTokensSelectEverySystem() {
    assertThat(SystemCatalog.select(catalog, List.of())).isEqualTo(catalog);
  }

  @Test
  void aTokenThatSelectsNothingIsRefusedWithTheKnownNames() {
    assertThatThrownBy(() -> SystemCatalog.select(catalog, List.of("grpc", "thrift")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'thrift'")
        .hasMessageContaining("raw-netty, grpc direct, grpc default");
  }

  @Test
  void
      theTwoByTwoOfGrpcClientsAndServersRunsFromOneSelectionAndTheTetherChannelRowsSayWhatTheyAre() {
    List<SystemSpec> selected =
        SystemCatalog.select(
            catalog,
            List.of(
                "grpc-default", "tether-grpc-default", "tchan>grpc-default", "tchan>tether-grpc"));

    assertThat(selected)
        .extracting(SystemSpec::name)
        .containsExactly(
            "grpc default",
            "tether-grpc default",
            "tchan>grpc default",
            "tchan>tether-grpc direct",
            "tchan>tether-grpc default");
    assertThat(selected.get(2).description())
        .contains("Tether's gRPC channel", "gRPC-java's server");
  }
}
