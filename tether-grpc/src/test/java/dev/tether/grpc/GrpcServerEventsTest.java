package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.CallContext;
import dev.tether.ExecutionMode;
import dev.tether.ServerCallObserver;
import dev.tether.observe.TetherEvent;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.spi.WireProtocol;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.stub.ServerCalls;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a gRPC call's listener events reach the server's executor, seen through an executor that only
 * collects what it is handed (the test thread runs it, as a service thread would) and a client that
 * writes raw HTTP/2 frames on an in-JVM channel whose event loop is a thread of its own.
 */
class GrpcServerEventsTest {
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());

  /** What the connection handed to the executor, in order. */
  private final Queue<Runnable> handedOff = new ConcurrentLinkedQueue<>();

  private final List<String> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger served = new AtomicInteger();
  private final Queue<ByteBuf> answers = new ConcurrentLinkedQueue<>();
  private Channel serverChannel;
  private Channel client;

  @AfterEach
  void close() {
    if (client != null) {
      client.close().syncUninterruptibly();
    }
    if (serverChannel != null) {
      serverChannel.close().syncUninterruptibly();
    }
    answers.forEach(ByteBuf::release);
    group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void aUnaryCallsStartMessageAndHalfCloseRunInOneExecutorTask() {
    connect();

    send(request(1, "hello"));

    await().atMost(Duration.ofSeconds(10)).until(() -> !handedOff.isEmpty());
    handedOff.poll().run();
    // The service heard the whole call, and answered, in that one task: no trip to the loop.
    assertThat(events).startsWith("onReady", "onMessage", "onHalfClose");
    assertThat(served).hasValue(1);

    // Once the answer left, the listener's last event follows: in that same task when the loop
    // sent the answer before the task was done (the task runs every event queued meanwhile, as a
    // loaded machine makes happen), else as the only other task.
    if (events.size() == 3) {
      await().atMost(Duration.ofSeconds(10)).until(() -> !handedOff.isEmpty());
      handedOff.poll().run();
    }
    assertThat(events).containsExactly("onReady", "onMessage", "onHalfClose", "onComplete");
    assertThat(handedOff).isEmpty();
  }

  @Test
  void callsReadTogetherReachTheExecutorOneTaskEachWhenTheReadEnds() {
    connect();

    ByteArrayOutputStream burst = new ByteArrayOutputStream();
    for (int stream = 1; stream <= 9; stream += 2) {
      burst.writeBytes(request(stream, "call " + stream));
    }
    send(burst.toByteArray());

    await().atMost(Duration.ofSeconds(10)).until(() -> handedOff.size() == 5);
    Runnable task;
    while ((task = handedOff.poll()) != null) {
      task.run();
    }
    // Each task held its whole call: every service ran without another hand-off.
    assertThat(served).hasValue(5);
    assertThat(events.stream().filter("onHalfClose"::equals)).hasSize(5);
  }

  /** Opens the connection: preface and SETTINGS, and the server's SETTINGS read back. */
  private void connect() {
    LocalAddress address = new LocalAddress(GrpcServerEventsTest.class);
    serverChannel =
        new ServerBootstrap()
            .group(group)
            .channel(LocalServerChannel.class)
            .childHandler(
                new ChannelInitializer<LocalChannel>() {
                  @Override
                  protected void initChannel(LocalChannel ch) {
                    ch.pipeline()
                        .addLast(
                            new GrpcConnection.Builder(methods(), 4 << 20, host(), hosted())
                                .build());
                  }
                })
            .bind(address)
            .syncUninterruptibly()
            .channel();
    client =
        new Bootstrap()
            .group(group)
            .channel(LocalChannel.class)
            .handler(
                new ChannelInboundHandlerAdapter() {
                  @Override
                  public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    answers.add((ByteBuf) msg);
                  }
                })
            .connect(address)
            .syncUninterruptibly()
            .channel();
    ByteArrayOutputStream open = new ByteArrayOutputStream();
    open.writeBytes(RawHttp2Socket.PREFACE);
    open.writeBytes(RawHttp2Socket.frame(RawHttp2Socket.SETTINGS, 0, 0, new byte[0]));
    send(open.toByteArray());
  }

  /** Writes {@code bytes} as one buffer: the server reads it in one burst. */
  private void send(byte[] bytes) {
    client.writeAndFlush(Unpooled.wrappedBuffer(bytes)).syncUninterruptibly();
  }

  /** A unary call on {@code stream}: HEADERS, then its message in a DATA that ends the stream. */
  private static byte[] request(int stream, String text) {
    ByteArrayOutputStream call = new ByteArrayOutputStream();
    call.writeBytes(
        RawHttp2Socket.frame(
            RawHttp2Socket.HEADERS,
            RawHttp2Socket.END_HEADERS,
            stream,
            RawHttp2Socket.encode(
                stream,
                RawHttp2Socket.request("x").path("/" + CountingService.CALL.getFullMethodName()))));
    call.writeBytes(
        RawHttp2Socket.frame(
            RawHttp2Socket.DATA,
            RawHttp2Socket.END_STREAM,
            stream,
            RawHttp2Socket.message(text.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    return call.toByteArray();
  }

  /** An echo whose listener events are recorded as they reach it. */
  private Map<String, ServerMethodDefinition<?, ?>> methods() {
    ServerCallHandler<byte[], byte[]> echo =
        ServerCalls.asyncUnaryCall(
            (request, answer) -> {
              served.incrementAndGet();
              answer.onNext(request);
              answer.onCompleted();
            });
    ServerCallHandler<byte[], byte[]> recorded =
        new ServerCallHandler<>() {
          @Override
          public ServerCall.Listener<byte[]> startCall(
              ServerCall<byte[], byte[]> call, Metadata headers) {
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                echo.startCall(call, headers)) {
              @Override
              public void onReady() {
                events.add("onReady");
                super.onReady();
              }

              @Override
              public void onMessage(byte[] message) {
                events.add("onMessage");
                super.onMessage(message);
              }

              @Override
              public void onHalfClose() {
                events.add("onHalfClose");
                super.onHalfClose();
              }

              @Override
              public void onComplete() {
                events.add("onComplete");
                super.onComplete();
              }
            };
          }
        };
    return Map.of(
        CountingService.CALL.getFullMethodName(),
        ServerMethodDefinition.create(CountingService.CALL, recorded));
  }

  private WireProtocol.HostedConnection hosted() {
    Executor collect = handedOff::add;
    return new WireProtocol.HostedConnection() {
      @Override
      public Executor executor() {
        return collect;
      }

      @Override
      public WireProtocol.HostedCall callStarted(CallContext call) {
        return new WireProtocol.HostedCall() {
          @Override
          public Throwable intercept() {
            return null;
          }

          @Override
          public ServerCallObserver.Scope enter() {
            return null;
          }

          @Override
          public void ended(String status, Throwable failure) {}
        };
      }

      @Override
      public void emit(TetherEvent.Kind kind, String detail, Throwable cause) {}
    };
  }

  private static WireProtocol.Host host() {
    return new WireProtocol.Host() {
      @Override
      public ExecutionMode executionMode() {
        return ExecutionMode.EXECUTOR;
      }

      @Override
      public Executor executor() {
        return Runnable::run;
      }

      @Override
      public int maxConcurrentRequests() {
        return 100;
      }

      @Override
      public Ticker ticker() {
        return Ticker.system();
      }

      @Override
      public Scheduler scheduler() {
        return (task, delayNanos) -> () -> {};
      }

      @Override
      public Duration handshakeTimeout() {
        return Duration.ZERO;
      }

      @Override
      public WireProtocol.HostedConnection admit(Channel channel) {
        throw new UnsupportedOperationException("the test builds its connection itself");
      }

      @Override
      public WireProtocol.TetherService tetherService(String name) {
        return null;
      }
    };
  }
}
