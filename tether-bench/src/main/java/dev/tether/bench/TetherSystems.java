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
 * <p>Settings: {@code direct} runs the service on the server's event loop
 * ({@link ExecutionMode#DIRECT}) and is compared with {@code grpc direct}; {@code default} keeps the
 * server's executor and is compared with {@code grpc default}. Both call
 * {@code proxy.invokeAsync("echo", payload)}. {@code typed} is {@code default} through a typed stub
 * ({@code proxy.as(Echo.class)}) whose message is a record, so it adds the codec's cost.
 */
public final class TetherSystems {

    static final String SERVICE = "bench";
    static final String OPERATION = "echo";

    private TetherSystems() {}

    /** The Tether settings, in the order the results table lists them. */
    static List<SystemSpec> specs() {
        return List.of(
                new SystemSpec(SystemSpec.TETHER, "direct", () -> new TetherSystem(ExecutionMode.DIRECT, false)),
                new SystemSpec(SystemSpec.TETHER, "default", () -> new TetherSystem(ExecutionMode.EXECUTOR, false)),
                new SystemSpec(SystemSpec.TETHER, "typed", () -> new TetherSystem(ExecutionMode.EXECUTOR, true)));
    }

    /** The typed face of the echo service. */
    public interface Echo {
        CompletableFuture<Message> echo(Message message);
    }

    /** The typed message: the benchmark's payload as a record field. */
    public record Message(byte[] body) {}

    private static final class EchoService implements Echo {
        @Override
        public CompletableFuture<Message> echo(Message message) {
            return CompletableFuture.completedFuture(message);
        }
    }

    private static byte[] echo(String operation, byte[] payload, CallContext context) {
        return payload;
    }

    private static final class TetherSystem implements BenchSystem {
        private final ExecutionMode executionMode;
        private final boolean typed;
        /** Non-null once {@link #start()} has run. */
        private TetherServer server;
        /** Non-null once {@link #start()} has run. */
        private Tether tether;
        /** Non-null once {@link #start()} has run. */
        private Proxy proxy;
        /** Non-null once {@link #start()} has run, when {@link #typed}. */
        private Echo typedEcho;

        TetherSystem(ExecutionMode executionMode, boolean typed) {
            this.executionMode = executionMode;
            this.typed = typed;
        }

        @Override
        public void start() {
            TetherServer.Builder builder = TetherServer.builder()
                    .endpoints("tcp -h 127.0.0.1 -p 0")
                    .executionMode(executionMode);
            builder = typed ? builder.service(SERVICE, Echo.class, new EchoService()) : builder.service(SERVICE, TetherSystems::echo);
            server = builder.build().start();
            tether = Tether.builder().build();
            proxy = tether.proxy(server.proxyString(SERVICE));
            typedEcho = typed ? proxy.as(Echo.class) : null;
            proxy.connectAsync().join(); // connect now, not on the first measured call
        }

        @Override
        public void call(byte[] payload, ResponseHandler handler) {
            if (typed) {
                typedEcho.echo(new Message(payload)).whenComplete(new TypedCompletion(handler));
            } else {
                proxy.invokeAsync(OPERATION, payload).whenComplete(new Completion(handler));
            }
        }

        @Override
        public void close() {
            if (tether != null) {
                tether.close();
            }
            if (server != null) {
                server.close();
            }
        }

        @Override
        public String toString() {
            return "tether " + executionMode + (typed ? " typed" : "");
        }
    }

    /** Hands an untyped call's outcome to the benchmark. */
    private record Completion(ResponseHandler handler) implements BiConsumer<byte[], Throwable> {
        @Override
        public void accept(byte[] response, Throwable failure) {
            if (failure != null) {
                handler.onFailure(failure);
            } else {
                handler.onResponse(response);
            }
        }
    }

    /** Hands a typed call's outcome to the benchmark. */
    private record TypedCompletion(ResponseHandler handler) implements BiConsumer<Message, Throwable> {
        @Override
        public void accept(Message response, Throwable failure) {
            if (failure != null) {
                handler.onFailure(failure);
            } else {
                handler.onResponse(response.body());
            }
        }
    }
}
