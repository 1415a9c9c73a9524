package dev.tether.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tether status}: a status page's snapshot ({@code /status.json}) as terminal tables. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Prints what a status page shows: nodes, connections and servers, as tables.",
      "",
      "Example:",
      "  tether status http://127.0.0.1:8080/ --watch",
      ""
    })
public final class StatusCommand implements Callable<Integer> {
  /** ANSI: cursor home, then clear the screen, so each refresh redraws in place. */
  private static final String CLEAR = "\033[H\033[2J";

  @Spec private CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "<admin-url>",
      description = "The status page, e.g. http://127.0.0.1:8080/.")
  private URI adminUrl;

  @Option(names = "--watch", description = "Redraw every --interval until Ctrl-C.")
  private boolean watch;

  @Option(
      names = "--interval",
      defaultValue = "1s",
      converter = DurationConverter.class,
      paramLabel = "<duration>",
      description = "Time between refreshes with --watch (default: ${DEFAULT-VALUE}).")
  private Duration interval;

  @Option(
      names = "--refreshes",
      defaultValue = "0",
      paramLabel = "<n>",
      description = "With --watch, stop after this many tables (default: 0, until Ctrl-C).")
  private int refreshes;

  @Option(
      names = "--token",
      paramLabel = "<token>",
      description = "The page's access token, when it has one.")
  private String token;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    if (!watch) {
      out.print(StatusTables.render(fetch()));
      out.flush();
      return ExitCode.OK;
    }
    for (int shown = 0; refreshes == 0 || shown < refreshes; shown++) {
      if (shown > 0) {
        Thread.sleep(interval.toMillis());
      }
      out.print(
          CLEAR
              + adminUrl
              + "  (every "
              + interval.toMillis()
              + " ms, Ctrl-C stops)\n\n"
              + StatusTables.render(fetch()));
      out.flush();
    }
    return ExitCode.OK;
  }

  private JsonNode fetch() throws InterruptedException {
    URI uri =
        adminUrl.resolve(
            "status.json"
                + (token == null
                    ? ""
                    : "?token=" + URLEncoder.encode(token, StandardCharsets.UTF_8)));
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw CliException.failed(
            uri + " answered " + response.statusCode() + ": " + response.body().strip(), null);
      }
      return json.readTree(response.body());
    } catch (IOException e) {
      throw CliException.failed("cannot read " + uri + ": " + e, e);
    }
  }
}
