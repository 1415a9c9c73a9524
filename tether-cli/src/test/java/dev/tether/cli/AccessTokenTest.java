package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Where an access token comes from, and that no error ever shows it. */
class AccessTokenTest {
  private static final UnaryOperator<String> ENVIRONMENT =
      Map.of("PAGE_TOKEN", " s3cret-4711\n", "EMPTY_TOKEN", "  ")::get;

  @Test
  void tokenFromAnEnvironmentVariableIsReadWithoutSurroundingSpace() {
    assertThat(AccessToken.resolve("--token", null, null, "PAGE_TOKEN", ENVIRONMENT))
        .isEqualTo("s3cret-4711");
  }

  @Test
  void missingOrEmptyEnvironmentVariableIsNamedInTheError() {
    assertThatThrownBy(() -> AccessToken.resolve("--token", null, null, "NO_SUCH", ENVIRONMENT))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("--token-env NO_SUCH");
    assertThatThrownBy(() -> AccessToken.resolve("--token", null, null, "EMPTY_TOKEN", ENVIRONMENT))
        .hasMessageContaining("EMPTY_TOKEN")
        .hasMessageContaining("empty");
  }

  @Test
  void noTokenGivenIsNone() {
    assertThat(AccessToken.resolve("--admin-token", null, null, null, ENVIRONMENT)).isNull();
  }

  @Test
  void tokenGivenTwoWaysIsRefusedWithoutShowingIt() {
    assertThatThrownBy(
            () -> AccessToken.resolve("--token", "literal-4711", null, "PAGE_TOKEN", ENVIRONMENT))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("one way")
        .hasMessageNotContaining("4711");
  }
}
