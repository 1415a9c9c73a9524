package dev.tether.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The admin page for a user with micrometer-core and tether-micrometer but another registry than
 * Prometheus's. Surefire's {@code without-prometheus} execution runs this class with
 * micrometer-registry-prometheus removed from the class path (and sets the property that enables
 * it); the default execution, whose class path has the registry, skips it.
 */
@EnabledIfSystemProperty(named = "tether.admin.withoutPrometheus", matches = "true")
class AdminWithoutPrometheusTest {
  private ObservedEcho page;

  @BeforeEach
  void start() {
    page = new ObservedEcho(p -> p);
  }

  @AfterEach
  void stop() {
    page.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return page.get(path);
  }

  @Test
  void classPathHasMicrometerCoreButNotThePrometheusRegistry() {
    // What makes the other tests mean something: the user's class path, not the module's usual one.
    assertThat(new SimpleMeterRegistry()).isNotNull();
    assertThatThrownBy(
            () -> Class.forName("io.micrometer.prometheusmetrics.PrometheusMeterRegistry"))
        .isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void statusPageAndStatusJsonAreServedWithoutThePrometheusRegistry() throws Exception {
    HttpResponse<String> page = get("");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("<html");
    HttpResponse<String> status = get("status.json");
    assertThat(status.statusCode()).isEqualTo(200);
    JsonNode root = new ObjectMapper().readTree(status.body());
    assertThat(root.at("/clients/0/connections/0/state").asText()).isEqualTo("ACTIVE");
    assertThat(root.at("/servers/0/state").asText()).isEqualTo("RUNNING");
  }

  @Test
  void metricsAnswerNotImplementedSayingWhichJarIsMissing() throws Exception {
    HttpResponse<String> metrics = get("metrics");
    assertThat(metrics.statusCode()).isEqualTo(501);
    assertThat(metrics.headers().firstValue("content-type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
    assertThat(metrics.body()).contains("micrometer-registry-prometheus");
  }
}
