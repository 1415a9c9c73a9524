package dev.tether.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The practical limit: length-prefixed frames over one Netty connection with nothing else, no
 * service lookup, no codec and no executor hop. One event loop serves, another calls.
 */
final class RawNettySystem implements BenchSystem {

    private static final String LOOPBACK = "127.0.0.1";

    private final NettyTransport transport = NettyTransport.best();
    /** These four are non-null once {@link #start()} has run; each is freed by {@link #close()}. */
    private EventLoopGroup serverGroup;
    private EventLoopGroup clientGroup;
    private Channel serverChannel;
    private Channel clientChannel;
    private final RawClientHandler client = new RawClientHandler();

    static List<SystemSpec> specs() {
        return List.of(new SystemSpec(SystemSpec.RAW_NETTY, "", RawNettySystem::new));
    }

    @Override
    public void start() throws InterruptedException {
        serverGroup = transport.newGroup(1, "raw-netty-server");
        clientGroup = transport.newGroup(1, "raw-netty-client");
        serverChannel = new ServerBootstrap()
                .group(serverGroup)
                .channel(transport.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new EchoServerInitializer())
                .bind(LOOPBACK, 0)
                .sync()
                .channel();
        clientChannel = new Bootstrap()
                .group(clientGroup)
                .channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(client)
                .connect(serverChannel.localAddress())
                .sync()
                .channel();
    }

    @Override
    public void call(byte[] payload, ResponseHandler handler) {
        client.call(payload, handler);
    }

    @Override
    public void close() {
        if (clientChannel != null) {
            clientChannel.close().awaitUninterruptibly();
        }
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly();
        }
        shutDown(clientGroup);
        shutDown(serverGroup);
    }

    private static void shutDown(EventLoopGroup group) {
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    @Override
    public String toString() {
        return "raw-netty over " + transport;
    }

    private static final class EchoServerInitializer extends ChannelInitializer<Channel> {
        @Override
        protected void initChannel(Channel channel) {
            channel.pipeline().addLast(new RawEchoServerHandler());
        }
    }
}
