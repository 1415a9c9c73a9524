package dev.tether.cli;

import dev.tether.admin.TetherAdmin;

/**
 * Reads the {@code --admin host:port} option of {@code serve} and {@code demo} into a page's
 * builder.
 */
final class StatusPageOption {
  private StatusPageOption() {}

  /** A builder bound to {@code hostPort}, e.g. "127.0.0.1:0"; {@code token} may be null. */
  static TetherAdmin.Builder builder(String hostPort, String token) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      throw CliException.badInput(
          "--admin wants host:port, e.g. 127.0.0.1:0; got \"" + hostPort + "\"", null);
    }
    try {
      int port = Integer.parseInt(hostPort.substring(colon + 1));
      return TetherAdmin.builder().bind(hostPort.substring(0, colon), port).accessToken(token);
    } catch (IllegalArgumentException e) {
      throw CliException.badInput("bad --admin " + hostPort + ": " + e.getMessage(), e);
    }
  }
}
