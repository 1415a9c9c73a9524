package dev.tether.chaos.netns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The two network namespaces of the kernel-fault tests and the veth pair between them, made with
 * {@code ip} and torn down by {@link #close()}: {@value #CLIENT} holds {@value #CLIENT_ADDRESS} on
 * {@value #CLIENT_LINK}, {@value #SERVER} holds {@value #SERVER_ADDRESS} on {@value #SERVER_LINK},
 * a /30 of their own. Nothing outside them is touched. Faults are nftables rules in the server's
 * namespace, in a table of ours ({@value #TABLE}).
 */
final class Netns implements AutoCloseable {
  static final String CLIENT = "tch-cli";
  static final String SERVER = "tch-srv";
  static final String CLIENT_LINK = "tch-c";
  static final String SERVER_LINK = "tch-s";
  static final String CLIENT_ADDRESS = "10.213.0.1";
  static final String SERVER_ADDRESS = "10.213.0.2";
  static final String TABLE = "tch";

  /** The result of one command. */
  record Result(int exit, String output) {
    boolean ok() {
      return exit == 0;
    }
  }

  private Netns() {}

  /**
   * Removes what a crashed earlier run left, then makes both namespaces, the link and the
   * addresses.
   *
   * @throws IllegalStateException with the command's own words when a step fails (e.g. no
   *     permission to add a namespace)
   */
  static Netns create() {
    removeStale();
    Netns n = new Netns();
    try {
      must("ip", "netns", "add", CLIENT);
      must("ip", "netns", "add", SERVER);
      must(
          "ip",
          "-n",
          CLIENT,
          "link",
          "add",
          CLIENT_LINK,
          "type",
          "veth",
          "peer",
          "name",
          SERVER_LINK,
          "netns",
          SERVER);
      must("ip", "-n", CLIENT, "addr", "add", CLIENT_ADDRESS + "/30", "dev", CLIENT_LINK);
      must("ip", "-n", SERVER, "addr", "add", SERVER_ADDRESS + "/30", "dev", SERVER_LINK);
      for (String[] up :
          new String[][] {
            {CLIENT, CLIENT_LINK}, {CLIENT, "lo"}, {SERVER, SERVER_LINK}, {SERVER, "lo"}
          }) {
        must("ip", "-n", up[0], "link", "set", up[1], "up");
      }
      must("ip", "netns", "exec", SERVER, "nft", "add", "table", "inet", TABLE);
      must(
          "ip",
          "netns",
          "exec",
          SERVER,
          "nft",
          "add chain inet "
              + TABLE
              + " in { type filter hook input priority 0 ; policy accept ; }");
      must(
          "ip",
          "netns",
          "exec",
          SERVER,
          "nft",
          "add chain inet "
              + TABLE
              + " out { type filter hook output priority 0 ; policy accept ; }");
    } catch (RuntimeException e) {
      n.close();
      throw e;
    }
    return n;
  }

  /**
   * Whether this machine lets us add a namespace at all (root, or the capability); with why not.
   */
  static Result probe() {
    String name = "tch-probe";
    run("ip", "netns", "del", name);
    Result added = run("ip", "netns", "add", name);
    if (added.ok()) {
      run("ip", "netns", "del", name);
    }
    return added;
  }

  /** Whether {@code nft} can run. */
  static Result nftAvailable() {
    return run("nft", "--version");
  }

  /**
   * Adds an nftables rule to chain {@code in} or {@code out} of our table in the server's
   * namespace.
   */
  void rule(String chain, String rule) {
    must("ip", "netns", "exec", SERVER, "nft", "add rule inet " + TABLE + " " + chain + " " + rule);
  }

  /** Removes every rule: the network heals. */
  void heal() {
    must("ip", "netns", "exec", SERVER, "nft", "flush chain inet " + TABLE + " in");
    must("ip", "netns", "exec", SERVER, "nft", "flush chain inet " + TABLE + " out");
  }

  /** The command prefix that runs a program inside {@code namespace}. */
  static List<String> exec(String namespace, List<String> command) {
    List<String> out = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
    out.addAll(command);
    return out;
  }

  /** Deletes both namespaces (the veth pair and the rules go with them). Idempotent. */
  @Override
  public void close() {
    removeStale();
  }

  /**
   * Deletes our namespaces if they exist, after stopping the processes still inside them: only ones
   * a run of this test started there (the namespaces' names are ours).
   */
  private static void removeStale() {
    for (String ns : List.of(CLIENT, SERVER)) {
      Result pids = run("ip", "netns", "pids", ns);
      if (pids.ok()) {
        for (String pid : pids.output().split("\\s+")) {
          if (!pid.isBlank()) {
            ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
          }
        }
        run("ip", "netns", "del", ns);
      }
    }
  }

  private static void must(String... command) {
    Result r = run(command);
    if (!r.ok()) {
      throw new IllegalStateException(
          String.join(" ", command) + " failed (" + r.exit() + "): " + r.output().trim());
    }
  }

  static Result run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Result(-1, "timed out: " + String.join(" ", command));
      }
      return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return new Result(-1, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, e.toString());
    }
  }
}
