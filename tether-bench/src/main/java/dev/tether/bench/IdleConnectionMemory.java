package dev.tether.bench;

import dev.tether.ConnectionState;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.internal.PlatformDependent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Memory one idle Tether connection costs, on the client and on the server: the server runs in a
 * JVM of its own (started from this one's class path, stopped when its standard input closes),
 * so each process's heap and direct memory are its own and each needs one file descriptor per
 * connection, not two. The client opens N connections to it over loopback (one connection id
 * each, so none is shared), lets them sit idle (heartbeats only), and both sides report heap used
 * after a full GC and Netty's direct memory at 0, N/2 and N connections. Printed per connection:
 * the total growth over N, and the slope between N/2 and N, which leaves out one-time costs.
 *
 * <p>Usage: {@code IdleConnectionMemory [connections]} (default 10000); bounded: connects in waves
 * with a timeout each, then closes everything.
 */
public final class IdleConnectionMemory {
    private static final int DEFAULT_CONNECTIONS = 10_000;
    private static final int WAVE = 500;
    private static final long WAVE_TIMEOUT_SECONDS = 60;
    private static final String SERVER_FLAG = "--server";
    private static final String PORT_PREFIX = "idle-memory server port ";

    private IdleConnectionMemory() {}

    /** One process's memory after a full GC. */
    record Memory(long heapUsed, long nettyDirect, long allocatorDirect, long jdkDirect) {
        static Memory measure() {
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            long allocator = ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p
                ? p.metric().usedDirectMemory() : -1;
            long jdk = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct"))
                .mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
            return new Memory(heap, PlatformDependent.usedDirectMemory(), allocator, jdk);
        }

        String line() {
            return heapUsed + " " + nettyDirect + " " + allocatorDirect + " " + jdkDirect;
        }

        static Memory parse(String line) {
            String[] f = line.trim().split(" ");
            return new Memory(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals(SERVER_FLAG)) {
            serve();
            return;
        }
        int connections = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_CONNECTIONS;
        try (ServerSide server = ServerSide.start(); Tether tether = Tether.create()) {
            String proxyString = "idle:tcp -h 127.0.0.1 -p " + server.port;
            Memory[] client = new Memory[3];
            Memory[] serverMemory = new Memory[3];
            client[0] = Memory.measure();
            serverMemory[0] = server.measure();
            List<Proxy> open = new ArrayList<>(connections);
            connect(tether, proxyString, open, connections / 2);
            server.awaitConnections(open.size());
            client[1] = Memory.measure();
            serverMemory[1] = server.measure();
            connect(tether, proxyString, open, connections);
            server.awaitConnections(open.size());
            client[2] = Memory.measure();
            serverMemory[2] = server.measure();
            long active = tether.status().connections().stream()
                .filter(c -> c.state() == ConnectionState.ACTIVE).count();
            System.out.printf(Locale.ROOT, "idle connections: %d (client sees %d active, server %d)%n",
                connections, active, server.connections());
            report("client", client, connections);
            report("server", serverMemory, connections);
        }
        System.exit(0); // the runtime's and the server reader's threads are done; do not wait for stragglers
    }

    private static void connect(Tether tether, String proxyString, List<Proxy> open, int upTo) throws Exception {
        while (open.size() < upTo) {
            List<CompletableFuture<Void>> wave = new ArrayList<>();
            for (int i = 0; i < WAVE && open.size() < upTo; i++) {
                Proxy proxy = tether.proxy(proxyString).withConnectionId("idle-" + open.size());
                open.add(proxy);
                wave.add(proxy.connectAsync());
            }
            CompletableFuture.allOf(wave.toArray(new CompletableFuture<?>[0])).get(WAVE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
    }

    private static void report(String side, Memory[] m, int connections) {
        int half = connections / 2;
        System.out.printf(Locale.ROOT, "%s: heap used %s -> %s -> %s; Netty direct counter %s -> %s -> %s;"
                + " allocator direct %s -> %s -> %s; JDK direct buffers %s -> %s -> %s%n", side,
            mib(m[0].heapUsed()), mib(m[1].heapUsed()), mib(m[2].heapUsed()),
            mib(m[0].nettyDirect()), mib(m[1].nettyDirect()), mib(m[2].nettyDirect()),
            mib(m[0].allocatorDirect()), mib(m[1].allocatorDirect()), mib(m[2].allocatorDirect()),
            mib(m[0].jdkDirect()), mib(m[1].jdkDirect()), mib(m[2].jdkDirect()));
        System.out.printf(Locale.ROOT, "%s per connection: heap %d B (slope N/2..N: %d B), direct %d B"
                + " (slope: %d B)%n", side,
            (m[2].heapUsed() - m[0].heapUsed()) / connections,
            (m[2].heapUsed() - m[1].heapUsed()) / (connections - half),
            (direct(m[2]) - direct(m[0])) / connections,
            (direct(m[2]) - direct(m[1])) / (connections - half));
    }

    /**
     * Netty's counter and the JDK's direct pool see the same buffers when Netty allocates them
     * through the JDK, and only Netty's sees those it allocates itself: the larger is the total.
     */
    private static long direct(Memory m) {
        return Math.max(m.nettyDirect(), m.jdkDirect());
    }

    private static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    // ---- the server process

    /** Serves until standard input ends; answers "measure" and "count" lines on standard output. */
    private static void serve() throws IOException {
        PrintStream out = System.out;
        try (TetherServer server = TetherServer.builder()
                .endpoints("tcp -h 127.0.0.1 -p 0")
                .service("idle", (operation, payload, context) -> payload)
                .build()
                .start();
             BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            out.println(PORT_PREFIX + server.endpoints().get(0).port());
            out.flush();
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                out.println(line.equals("measure") ? Memory.measure().line() : String.valueOf(server.status().connections()));
                out.flush();
            }
        }
        System.exit(0);
    }

    /** The client's handle on the server process: one request line, one answer line. */
    private static final class ServerSide implements AutoCloseable {
        private final Process process;
        private final BufferedReader answers;
        private final PrintWriter requests;
        final int port;

        private ServerSide(Process process) throws IOException {
            this.process = process;
            this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.requests = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            String first = answers.readLine();
            if (first == null || !first.startsWith(PORT_PREFIX)) {
                throw new IOException("the server process did not report its port: " + first);
            }
            this.port = Integer.parseInt(first.substring(PORT_PREFIX.length()));
        }

        static ServerSide start() throws IOException {
            String java = ProcessHandle.current().info().command().orElse("java");
            Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    IdleConnectionMemory.class.getName(), SERVER_FLAG)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
            try {
                return new ServerSide(process);
            } catch (IOException | RuntimeException e) {
                process.destroyForcibly();
                throw e;
            }
        }

        Memory measure() throws IOException {
            return Memory.parse(ask("measure"));
        }

        int connections() throws IOException {
            return Integer.parseInt(ask("count").trim());
        }

        /** Waits, bounded, until the server counts {@code expected} connections. */
        void awaitConnections(int expected) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAVE_TIMEOUT_SECONDS);
            while (connections() < expected) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("the server counts " + connections() + " of " + expected + " connections");
                }
                Thread.sleep(100); // a benchmark's polling of another process, not a test's wait
            }
        }

        private String ask(String request) throws IOException {
            requests.println(request);
            String answer = answers.readLine();
            if (answer == null) {
                throw new IOException("the server process ended");
            }
            return answer;
        }

        @Override
        public void close() {
            requests.close();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
