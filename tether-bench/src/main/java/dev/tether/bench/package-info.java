/**
 * The side-by-side load benchmark (Tether, gRPC-java, Apache Dubbo and raw Netty, with the server
 * in its own JVM or the same one) and the figure programs (clusters, hedging, compression,
 * idle-connection memory). Runs on the class path, not as a module, so it may measure tether-core's
 * internals; docs/performance.md says how to run each.
 */
package dev.tether.bench;
