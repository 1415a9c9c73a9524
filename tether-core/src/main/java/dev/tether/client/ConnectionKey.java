package dev.tether.client;

import java.net.SocketAddress;
import java.time.Duration;

/**
 * What makes two connections interchangeable (the connection-reuse rule Ice's manual gives): the
 * same transport and remote address, the same connection id and the same timeout. Compression is
 * deliberately absent.
 */
public record ConnectionKey(
    String transport, SocketAddress address, String connectionId, Duration timeout) {}
