package dev.tether;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP relay on loopback in front of one server, for tests of a path that breaks while the server
 * stays up: {@link #cut()} stops it listening and resets every connection it carries, so a client
 * finds nothing at the address it dialled from that moment on, whatever the server does.
 */
public final class LoopbackRelay implements AutoCloseable {
  private final ServerSocket listener;
  private final int serverPort;
  private final List<Socket> carried = new ArrayList<>();

  /** Set by {@link #cut()}, under the lock of {@link #carried}. */
  private boolean cut;

  /** Listening on an ephemeral loopback port, relaying to {@code serverPort} on loopback. */
  public LoopbackRelay(int serverPort) throws IOException {
    this.serverPort = serverPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    daemon(this::acceptUntilCut, "relay-accept");
  }

  /** The port clients dial. */
  public int port() {
    return listener.getLocalPort();
  }

  /**
   * Resets (RST, not FIN) both sides of every connection and stops listening: from its return
   * nothing answers at {@link #port()}, and a connection the closing listener still takes is reset.
   */
  public void cut() throws IOException {
    synchronized (carried) {
      cut = true;
      for (Socket s : carried) {
        reset(s);
      }
    }
    listener.close();
  }

  @Override
  public void close() throws IOException {
    cut();
  }

  private void acceptUntilCut() {
    try {
      while (true) {
        Socket client = listener.accept();
        synchronized (carried) {
          // The listener's close takes effect once this thread leaves accept(): a connection it
          // still took after cut() is reset rather than relayed.
          if (cut) {
            reset(client);
            return;
          }
          Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
          carried.add(client);
          carried.add(server);
          daemon(() -> pump(client, server), "relay-to-server");
          daemon(() -> pump(server, client), "relay-to-client");
        }
      }
    } catch (IOException cutOff) {
      // cut() closed the listener (or the server refused): no more connections
    }
  }

  /** Closes {@code s} with RST, not FIN, unless its pump closed it first. */
  private static void reset(Socket s) {
    try {
      s.setSoLinger(true, 0);
      s.close();
    } catch (IOException closedMeanwhile) {
      // A pump closes its sockets when either side ends, which can happen between any check
      // here and the linger option: that socket is gone already, nothing is left to reset.
    }
  }

  /** Copies {@code from} to {@code to} until either ends; then both close. */
  private static void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        out.write(buffer, 0, n);
      }
    } catch (IOException broken) {
      // one side closed or cut() reset it
    }
    closeQuietly(from);
    closeQuietly(to);
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException alreadyGone) {
      // nothing left to close
    }
  }

  private static void daemon(Runnable task, String name) {
    Thread t = new Thread(task, name);
    t.setDaemon(true);
    t.start();
  }
}
