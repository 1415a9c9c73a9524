package dev.tether.bench;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * gRPC-java unary calls over plaintext HTTP/2 on one {@link ManagedChannel}, with a hand-written
 * method descriptor (no generated code) whose messages are {@code byte[]}.
 *
 * <p>Two settings: {@code direct} runs the service and the client callbacks on the transport's
 * event loops ({@code directExecutor()} on both builders); {@code default} keeps gRPC's default
 * executors, so each call hops to a pool thread on both sides. Everything else is left at gRPC's
 * defaults.
 */
final class GrpcSystem implements BenchSystem {

    static final String SERVICE_NAME = "tether.bench.Echo";
    static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "echo"))
            .setRequestMarshaller(ByteArrayMarshaller.INSTANCE)
            .setResponseMarshaller(ByteArrayMarshaller.INSTANCE)
            .build();

    private static final String LOOPBACK = "127.0.0.1";
    private static final long SHUTDOWN_SECONDS = 5;

    private final boolean direct;
    /** Non-null once {@link #start()} has run. */
    private Server server;
    /** Non-null once {@link #start()} has run. */
    private ManagedChannel channel;

    private GrpcSystem(boolean direct) {
        this.direct = direct;
    }

    static List<SystemSpec> specs() {
        return List.of(
                new SystemSpec(SystemSpec.GRPC, "direct", () -> new GrpcSystem(true)),
                new SystemSpec(SystemSpec.GRPC, "default", () -> new GrpcSystem(false)));
    }

    @Override
    public void start() throws Exception {
        NettyServerBuilder serverBuilder = NettyServerBuilder.forAddress(new InetSocketAddress(LOOPBACK, 0))
                .addService(echoService());
        if (direct) {
            serverBuilder.directExecutor();
        }
        server = serverBuilder.build().start();

        NettyChannelBuilder channelBuilder = NettyChannelBuilder.forAddress(new InetSocketAddress(LOOPBACK, server.getPort()))
                .usePlaintext();
        if (direct) {
            channelBuilder.directExecutor();
        }
        channel = channelBuilder.build();
        // Connect now, not on the first measured call.
        ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, new byte[0]);
    }

    private static ServerServiceDefinition echoService() {
        return ServerServiceDefinition.builder(SERVICE_NAME)
                .addMethod(ECHO, ServerCalls.asyncUnaryCall(GrpcSystem::echo))
                .build();
    }

    private static void echo(byte[] request, StreamObserver<byte[]> responses) {
        responses.onNext(request);
        responses.onCompleted();
    }

    @Override
    public void call(byte[] payload, ResponseHandler handler) {
        ClientCalls.asyncUnaryCall(channel.newCall(ECHO, CallOptions.DEFAULT), payload, new ResponseObserver(handler));
    }

    @Override
    public void close() {
        try {
            if (channel != null) {
                channel.shutdownNow().awaitTermination(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
            }
            if (server != null) {
                server.shutdownNow().awaitTermination(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "grpc " + (direct ? "direct" : "default");
    }

    /** Adapts one unary call's observer to the benchmark's handler. */
    private static final class ResponseObserver implements StreamObserver<byte[]> {
        private final ResponseHandler handler;
        /** Non-null once the response message arrived. */
        private byte[] response;

        ResponseObserver(ResponseHandler handler) {
            this.handler = handler;
        }

        @Override
        public void onNext(byte[] value) {
            response = value;
        }

        @Override
        public void onError(Throwable cause) {
            handler.onFailure(cause);
        }

        @Override
        public void onCompleted() {
            if (response == null) {
                handler.onFailure(new IllegalStateException("call completed without a response"));
            } else {
                handler.onResponse(response);
            }
        }
    }
}
