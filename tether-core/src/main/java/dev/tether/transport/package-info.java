/**
 * The ways frames travel between processes: the {@code Transport} interface and its tcp, ssl, udp
 * and local (in-JVM) implementations on Netty, with native epoll when present, the TLS contexts and
 * certificate watch behind ssl, and the default scheduler on the event loops' timers. No client or
 * server logic; imports only the face and the spi package.
 */
package dev.tether.transport;
