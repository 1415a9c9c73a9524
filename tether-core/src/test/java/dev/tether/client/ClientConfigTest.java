package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The client settings' defaults where a choice was made, and bad values named by key. */
class ClientConfigTest {
  private static ClientConfig config(String... keyValues) {
    Properties p = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      p.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return ClientConfig.from(p);
  }

  @Test
  void nodeReconnectStartsWithinAFractionOfASecondByDefault() {
    // A node whose connection was only reset must not stay dead for RethinkDB's 30 s.
    assertThat(config().nodeReconnect().initial()).isEqualTo(Duration.ofMillis(100));
    assertThat(config("tether.cluster.reconnect.policy", "exponential").nodeReconnect().initial())
        .isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void extraConnectionsAndIdleCloseDefaults() {
    ClientConfig.ConnectionUse use = config().connections();
    assertThat(use.maxExtra()).isEqualTo(4);
    assertThat(use.extraIdleClose()).isEqualTo(Duration.ofSeconds(10));
    assertThat(use.idleClose()).isEqualTo(Duration.ZERO);
  }

  @Test
  void connectionsNeverAgeOnTheClientByDefault() {
    assertThat(config().connections().maxAge()).isEqualTo(Duration.ZERO);
    assertThat(config("tether.connection.maxAge", "5min").connections().maxAge())
        .isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void negativeMaxAgeIsRejectedNamingTheKey() {
    assertThatThrownBy(() -> config("tether.connection.maxAge", "-1s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tether.connection.maxAge");
  }

  @Test
  void negativeMaxExtraIsRejectedNamingTheKey() {
    assertThatThrownBy(() -> config("tether.connection.maxExtra", "-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tether.connection.maxExtra");
  }

  @Test
  void outlierComparisonLooksAtEachNodesLastFortyAnswersByDefault() {
    assertThat(config().ejection().outlierCalls()).isEqualTo(40);
    assertThat(config("tether.cluster.ejection.outlierCalls", "60").ejection().outlierCalls())
        .isEqualTo(60);
  }

  @Test
  void outlierWindowOfNoCallsIsRejectedNamingTheKey() {
    assertThatThrownBy(() -> config("tether.cluster.ejection.outlierCalls", "0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tether.cluster.ejection.outlierCalls");
  }
}
