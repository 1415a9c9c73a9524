/**
 * The client side of gRPC on Tether: {@link dev.tether.grpc.client.TetherChannel}, a grpc-java
 * {@code ManagedChannel} whose calls a Tether proxy places, and the HTTP/2 link that core's
 * connections speak through its {@code ClientWireProtocol}. Connections, their supervision,
 * balancing and the at-most-once rule stay core's; this package only frames calls and reads
 * answers.
 */
package dev.tether.grpc.client;
