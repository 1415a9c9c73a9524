package dev.tether.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.model.FrameworkModel;

/**
 * Apache Dubbo 3.3 with its default {@code dubbo} protocol (netty4 transport, hessian2
 * serialization, the server's default fixed thread pool), no registry: the client points at the
 * server with a direct URL and Dubbo shares one connection for all calls (its default). The server
 * binds and the client dials 127.0.0.1 through {@link LoopbackDubboTransporter}, Dubbo's netty4
 * transport kept on loopback.
 *
 * <p>Settings: {@code bytes} calls {@link DubboEcho#echo} with the payload; {@code typed} calls
 * {@link DubboEcho#echoMessage} with {@link DubboMessage}. Each server and client has a {@link
 * FrameworkModel} of its own, so that in one JVM they are as separate as in two, and Dubbo never
 * short-cuts a call in-JVM.
 */
final class DubboSystem {

  private static final String LOOPBACK = "127.0.0.1";

  /** Dubbo's default is 1 s; a shared two-CPU machine can stall a call longer than that. */
  private static final int CALL_TIMEOUT_MILLIS = 10_000;

  /**
   * Dubbo's graceful shutdown waits up to 10 s for calls in flight; a bench system closes only
   * after its last call was answered, so the wait only delays the next run (and each test).
   */
  private static final String SHUTDOWN_WAIT_MILLIS = "500";

  static {
    // Dubbo otherwise probes for logging frameworks and prints what it did not find.
    System.setProperty("dubbo.application.logger", "slf4j");
  }

  private DubboSystem() {}

  static List<SystemSpec> specs() {
    return List.of(
        new SystemSpec(SystemSpec.DUBBO, "bytes", Server::new, () -> new Client(false)),
        new SystemSpec(SystemSpec.DUBBO, "typed", Server::new, () -> new Client(true)));
  }

  private static ApplicationConfig application(String name) {
    ApplicationConfig application = new ApplicationConfig(name);
    application.setQosEnable(false); // no management port
    application.setShutwait(SHUTDOWN_WAIT_MILLIS);
    return application;
  }

  private static final class EchoService implements DubboEcho {
    @Override
    public CompletableFuture<byte[]> echo(byte[] payload) {
      return CompletableFuture.completedFuture(payload);
    }

    @Override
    public CompletableFuture<DubboMessage> echoMessage(DubboMessage message) {
      return CompletableFuture.completedFuture(message);
    }
  }

  private static final class Server implements BenchServer {
    private final FrameworkModel framework = new FrameworkModel();

    @Override
    public int start() throws IOException {
      int port = freePort();
      ProtocolConfig protocol = new ProtocolConfig("dubbo", port);
      protocol.setHost(LOOPBACK);
      protocol.setServer(LoopbackDubboTransporter.NAME);
      ServiceConfig<DubboEcho> service = new ServiceConfig<>();
      service.setInterface(DubboEcho.class);
      service.setRef(new EchoService());
      DubboBootstrap.newInstance(framework)
          .application(application("tether-bench-server"))
          .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE))
          .protocol(protocol)
          .service(service)
          .start();
      return service.getExportedUrls().get(0).getPort();
    }

    /** Dubbo binds the port it is given; ask the OS for one that is free now. */
    private static int freePort() throws IOException {
      try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
        return probe.getLocalPort();
      }
    }

    @Override
    public void close() {
      framework.destroy();
    }
  }

  private static final class Client implements BenchClient {
    private final boolean typed;
    private final FrameworkModel framework = new FrameworkModel();

    /** Non-null once {@link #connect} has run. */
    private DubboEcho echo;

    Client(boolean typed) {
      this.typed = typed;
    }

    @Override
    public void connect(int port) {
      ReferenceConfig<DubboEcho> reference = new ReferenceConfig<>();
      reference.setInterface(DubboEcho.class);
      reference.setUrl("dubbo://" + LOOPBACK + ":" + port);
      reference.setTimeout(CALL_TIMEOUT_MILLIS);
      reference.setClient(LoopbackDubboTransporter.NAME);
      DubboBootstrap.newInstance(framework)
          .application(application("tether-bench-client"))
          .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE))
          .reference(reference)
          .start();
      echo = reference.get();
      echo.echo(new byte[0]).join(); // connect now, not on the first measured call
    }

    @Override
    public void call(byte[] payload, ResponseHandler handler) {
      if (typed) {
        echo.echoMessage(new DubboMessage(TypedMessage.ID, TypedMessage.NAME, payload))
            .whenComplete(new MessageCompletion(handler));
      } else {
        echo.echo(payload).whenComplete(new BytesCompletion(handler));
      }
    }

    @Override
    public void close() {
      framework.destroy();
    }

    @Override
    public String toString() {
      return "dubbo " + (typed ? "typed" : "bytes");
    }
  }

  private record MessageCompletion(ResponseHandler handler)
      implements BiConsumer<DubboMessage, Throwable> {
    @Override
    public void accept(DubboMessage response, Throwable failure) {
      if (failure != null) {
        handler.onFailure(failure);
      } else if (!TypedMessage.isEcho(response.getId(), response.getName())) {
        handler.onFailure(TypedMessage.notTheEcho(response.getId(), response.getName()));
      } else {
        handler.onResponse(response.getData());
      }
    }
  }
}
