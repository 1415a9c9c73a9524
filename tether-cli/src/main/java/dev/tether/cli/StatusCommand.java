package dev.tether.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
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
      description =
          "The page's access token, when it has one (visible to anyone who can list processes:"
              + " prefer --token-file or --token-env).")
  private String token;

  @Option(
      names = "--token-file",
      paramLabel = "<file>",
      description = "Read the page's access token from this file.")
  private Path tokenFile;

  @Option(
      names = "--token-env",
      paramLabel = "<variable>",
      description = "Read the page's access token from this environment variable.")
  private String tokenVariable;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();

  @Override
  public Integer call() throws InterruptedException {
    String resolved =
        AccessToken.resolve("--token", token, tokenFile, tokenVariable, System::getenv);
    PrintWriter out = spec.commandLine().getOut();
    if (!watch) {
      out.print(StatusTables.render(fetch(resolved)));
      out.flush();
      return ExitCode.OK;
    }
    for (int shown = 0; refreshes == 0 || shown < refreshes; shown++) {
      if (shown > 0) {
        Thread.sleep(interval.toMillis());
      }
      out.print(
          CLEAR
              + shown()
              + "  (every "
              + interval.toMillis()
              + " ms, Ctrl-C stops)\n\n"
              + StatusTables.render(fetch(resolved)));
      out.flush();
    }
    return ExitCode.OK;
  }

  /**
   * The token travels in a header, never in the address, so no message that names the address can
   * show it.
   */
  private JsonNode fetch(String accessToken) throws InterruptedException {
    URI uri = withoutQuery(adminUrl).resolve("status.json");
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
    if (accessToken != null) {
      request.header("Authorization", "Bearer " + accessToken);
    }
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw CliException.failed(
            uri
                + " answered "
                + response.statusCode()
                + ": "
                + PrintableText.of(response.body().strip()),
            null);
      }
      return json.readTree(response.body());
    } catch (IOException e) {
      throw CliException.failed("cannot read " + uri + ": " + PrintableText.of(e.toString()), e);
    }
  }

  /** The page's address as given, less any query (where a pasted URL may carry a token). */
  private String shown() {
    return withoutQuery(adminUrl).toString();
  }

  private static URI withoutQuery(URI uri) {
    if (uri.getRawQuery() == null) {
      return uri;
    }
    String text = uri.toString();
    return URI.create(text.substring(0, text.indexOf('?')));
  }
}
