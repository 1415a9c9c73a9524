package dev.tether.bench;

import dev.tether.CallContext;
import dev.tether.ExecutionMode;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Tether over its public API only: a {@link TetherServer} on {@code tcp -h 127.0.0.1 -p 0}, a
 * {@link Tether} runtime and one proxy, whose calls share one cached connection.
 *
 * <p>Settings: {@code direct} runs the service on the server's event loop ({@link
 * ExecutionMode#DIRECT}) and is compared with {@code grpc direct}; {@code default} keeps the
 * server's executor and is compared with {@code grpc default}. Both call {@code
 * proxy.invokeAsync("echo", payload)}. {@code typed} is {@code default} through a typed stub
 * ({@code proxy.as(Echo.class)}) whose message is a record ({@link TypedMessage}), so it adds the
 * codec's cost. {@code limit8} is {@code default} against a server that takes 8 calls at once per
 * connection, so the client opens extra connections (multiplexing under load: at most 4 by
 * default); {@code limit8 noextra} forbids them, so calls wait for a slot on the one connection.
 * Both print how many connections the client opened.
 */
public final class TetherSystems {

  static final String SERVICE = "bench";
  static final String TYPED_SERVICE = "typed-bench";
  static final String OPERATION = "echo";

  private TetherSystems() {}

  /** The Tether settings, in the order the results table lists them. */
  static List<SystemSpec> specs() {
    return List.of(
        new SystemSpec(
            SystemSpec.TETHER,
            "direct",
            () -> new Server(ExecutionMode.DIRECT),
            () -> new Client(false)),
        new SystemSpec(
            SystemSpec.TETHER,
            "default",
            () -> new Server(ExecutionMode.EXECUTOR),
            () -> new Client(false)),
        new SystemSpec(
            SystemSpec.TETHER,
            "typed",
            () -> new Server(ExecutionMode.EXECUTOR),
            () -> new Client(true)),
        new SystemSpec(
            SystemSpec.TETHER,
            "limit8",
            () -> new Server(ExecutionMode.EXECUTOR, 8),
            () -> new Client(false, "4")),
        new SystemSpec(
            SystemSpec.TETHER,
            "limit8 noextra",
            () -> new Server(ExecutionMode.EXECUTOR, 8),
            () -> new Client(false, "0")));
  }

  /** The typed face of the echo service. */
  public interface Echo {
    CompletableFuture<Message> echo(Message message);
  }

  /** The typed message, {@link TypedMessage}'s fields as a record. */
  public record Message(long id, String name, byte[] data) {}

  private static final class EchoService implements Echo {
    @Override
    public CompletableFuture<Message> echo(Message message) {
      return CompletableFuture.completedFuture(message);
    }
  }

  private static byte[] echo(String operation, byte[] payload, CallContext context) {
    return payload;
  }

  /**
   * Serves the untyped echo and, under other names, the typed one and the streams of {@link
   * TetherStreams}, so one server fits every client.
   */
  private static final class Server implements BenchServer {
    private final ExecutionMode executionMode;

    /** Calls one connection may carry at once; the server's default unless set. */
    private final int maxConcurrentRequests;

    /** Non-null once {@link #start()} has run. */
    private TetherServer server;

    Server(ExecutionMode executionMode) {
      this(executionMode, 10_000);
    }

    Server(ExecutionMode executionMode, int maxConcurrentRequests) {
      this.executionMode = executionMode;
      this.maxConcurrentRequests = maxConcurrentRequests;
    }

    @Override
    public int start() {
      server =
          TetherServer.builder()
              .endpoints("tcp -h 127.0.0.1 -p 0")
              .executionMode(executionMode)
              .maxConcurrentRequests(maxConcurrentRequests)
              .service(SERVICE, TetherSystems::echo)
              .service(TYPED_SERVICE, Echo.class, new EchoService())
              .streamService(TetherStreams.SERVICE, TetherStreams::open)
              .build()
              .start();
      return server.endpoints().get(0).port();
    }

    @Override
    public void close() {
      if (server != null) {
        server.close();
      }
    }
  }

  private static final class Client implements BenchClient {
    private final boolean typed;

    /** {@code tether.connection.maxExtra}, or null for the default and no report of connections. */
    private final String maxExtra;

    private final java.util.concurrent.atomic.AtomicInteger connectionsOpened =
        new java.util.concurrent.atomic.AtomicInteger();

    /** Non-null once {@link #connect} has run. */
    private Tether tether;

    /** Non-null once {@link #connect} has run. */
    private Proxy proxy;

    /** Non-null once {@link #connect} has run, when {@link #typed}. */
    private Echo typedEcho;

    Client(boolean typed) {
      this(typed, null);
    }

    Client(boolean typed, String maxExtra) {
      this.typed = typed;
      this.maxExtra = maxExtra;
    }

    @Override
    public void connect(int port) {
      Tether.Builder builder = Tether.builder();
      if (maxExtra != null) {
        builder
            .property("tether.connection.maxExtra", maxExtra)
            .listener(
                e -> {
                  if (e.kind() == dev.tether.observe.TetherEvent.Kind.CONNECTED) {
                    connectionsOpened.incrementAndGet();
                  }
                });
      }
      tether = builder.build();
      proxy = tether.proxy((typed ? TYPED_SERVICE : SERVICE) + ":tcp -h 127.0.0.1 -p " + port);
      typedEcho = typed ? proxy.as(Echo.class) : null;
      proxy.connectAsync().join(); // connect now, not on the first measured call
    }

    @Override
    public void call(byte[] payload, ResponseHandler handler) {
      if (typed) {
        typedEcho
            .echo(new Message(TypedMessage.ID, TypedMessage.NAME, payload))
            .whenComplete(new TypedCompletion(handler));
      } else {
        proxy.invokeAsync(OPERATION, payload).whenComplete(new BytesCompletion(handler));
      }
    }

    @Override
    public void close() {
      if (tether != null) {
        tether.close();
        if (maxExtra != null) {
          System.err.println(
              "[tether, maxExtra " + maxExtra + "] connections opened: " + connectionsOpened.get());
        }
      }
    }

    @Override
    public String toString() {
      return "tether" + (typed ? " typed" : "");
    }
  }

  /** Hands a typed call's outcome to the benchmark. */
  private record TypedCompletion(ResponseHandler handler)
      implements BiConsumer<Message, Throwable> {
    @Override
    public void accept(Message response, Throwable failure) {
      if (failure != null) {
        handler.onFailure(failure);
      } else if (!TypedMessage.isEcho(response.id(), response.name())) {
        handler.onFailure(TypedMessage.notTheEcho(response.id(), response.name()));
      } else {
        handler.onResponse(response.data());
      }
    }
  }
}
