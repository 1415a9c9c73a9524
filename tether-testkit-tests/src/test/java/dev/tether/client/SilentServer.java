package dev.tether.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A loopback server that accepts connections and never writes a byte (frozen, overloaded). */
final class SilentServer implements AutoCloseable {
  private final ServerSocket listener;
  private final List<Socket> accepted = new CopyOnWriteArrayList<>();

  SilentServer() throws IOException {
    listener = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (!listener.isClosed()) {
                try {
                  accepted.add(listener.accept());
                } catch (IOException closed) {
                  return;
                }
              }
            },
            "silent-server");
    t.setDaemon(true);
    t.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  @Override
  public void close() throws IOException {
    listener.close();
    for (Socket s : accepted) {
      s.close();
    }
  }
}
