package dev.tether.client;

import java.net.SocketAddress;
import java.time.Duration;

/**
 * What makes two connections interchangeable (seed 000, 36.3.3): the same transport and remote
 * address, the same connection id and the same timeout. Compression is deliberately absent.
 */
public record ConnectionKey(String transport, SocketAddress address, String connectionId, Duration timeout) {}
