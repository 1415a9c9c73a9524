package dev.tether.cli;

import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.admin.TetherAdmin;
import dev.tether.cli.demo.DemoRun;
import dev.tether.observe.TetherListener;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;

/**
 * The status page of {@code tether demo --admin}: it shows the demo's client (connections, node
 * group, calls, events of the client and of every server) and its servers, restarted ones included
 * and, with {@code --hold}, stays up after the callers stopped until Enter is pressed, so a person
 * can look before everything closes.
 */
final class DemoStatusPage implements DemoRun.Watcher, AutoCloseable {
  private final TetherAdmin.Builder page;
  private final PrintWriter out;
  private final boolean hold;
  private final InputStream stdin;

  /** Set once the client runs; null before. */
  private TetherAdmin admin;

  DemoStatusPage(TetherAdmin.Builder page, PrintWriter out, boolean hold, InputStream stdin) {
    this.page = page;
    this.out = out;
    this.hold = hold;
    this.stdin = stdin;
  }

  @Override
  public TetherListener listener() {
    return page.listener();
  }

  @Override
  public void clientStarted(Tether tether, Supplier<List<TetherServer>> servers) {
    admin = page.observe(tether).observeServers(servers).build().start();
    out.println("status page: " + admin.url());
    out.flush();
  }

  @Override
  public void holding() {
    if (!hold) {
      return;
    }
    out.println(
        "the callers stopped; the servers and the status page stay up: press Enter to end the demo");
    out.flush();
    try {
      new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8)).readLine();
    } catch (IOException noInput) {
      // No terminal to wait on: end as without --hold.
    }
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.close();
    }
  }
}
