package dev.tether.admin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The status page of a process that only serves (as {@code tether serve --admin}), in a real
 * headless Chromium: under load from a client it does not observe, the header and the chart show
 * the calls it serves, not the zero calls it makes.
 */
class ServedLoadBrowserTest {
  private ChromeDriver browser;
  private TetherServer server;
  private Tether caller;
  private TetherAdmin admin;
  private volatile boolean stopLoad;

  @BeforeEach
  void start() {
    browser = HeadlessChromium.startOrSkip();
    TetherAdmin.Builder builder = TetherAdmin.builder().bind("127.0.0.1", 0);
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .listener(builder.listener())
            .service("work", (op, payload, ctx) -> payload)
            .build()
            .start();
    admin = builder.observe(server).build().start();
    // Another process's client, as far as the page knows: not observed.
    caller = Tether.builder().build();
    browser.get(admin.url());
    await().atMost(Duration.ofSeconds(10)).until(() -> text("#stream").equals("live"));
  }

  @AfterEach
  void stop() {
    if (browser == null) {
      return;
    }
    stopLoad = true;
    browser.quit();
    admin.close();
    caller.close();
    server.close();
  }

  private String text(String css) {
    return String.valueOf(
        browser.executeScript(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : '';",
            css));
  }

  private boolean shown(String css) {
    return (Boolean)
        browser.executeScript(
            "const e = document.querySelector(arguments[0]);"
                + " return !!e && getComputedStyle(e).display !== 'none';",
            css);
  }

  @Test
  void headerAndChartShowTheCallsServedWhenNoClientIsObserved() throws Exception {
    Proxy work = caller.proxy("work:" + server.endpoints().get(0));
    CompletableFuture<Integer> load = CompletableFuture.supplyAsync(() -> callUntilStopped(work));

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(Long.parseLong(text("#served-rate"))).as("calls/s served").isPositive());
    assertThat(shown("#served")).isTrue();
    assertThat(shown("#made")).as("calls/s made, in a process that makes none").isFalse();
    assertThat(shown("#served-line")).isTrue();
    assertThat(text("#rate-max")).isNotEqualTo("1 calls/s"); // the scale follows what is served
    Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
    Files.createDirectories(Path.of("target"));
    Files.copy(
        shot, Path.of("target", "status-page-served.png"), StandardCopyOption.REPLACE_EXISTING);
    HttpResponse<String> status =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(admin.url()).resolve("status.json")).build(),
                HttpResponse.BodyHandlers.ofString());
    JsonNode json = new ObjectMapper().readTree(status.body());
    assertThat(json.get("servedPerSecond").asDouble()).isPositive();
    assertThat(json.get("callsPerSecond").asDouble()).isZero();

    stopLoad = true;
    assertThat(load.get(10, TimeUnit.SECONDS)).isPositive();
  }

  /** Calls until told to stop, for at most 30 s or 1,000,000 calls; returns how many succeeded. */
  private int callUntilStopped(Proxy work) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int ok = 0;
    byte[] payload = "hi".getBytes(UTF_8);
    for (int i = 0; i < 1_000_000 && !stopLoad && System.nanoTime() < deadline; i++) {
      work.invoke("echo", payload);
      ok++;
    }
    return ok;
  }
}
