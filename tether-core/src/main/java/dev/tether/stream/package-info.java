/**
 * The two halves every stream is made of, on either side of a connection: the {@link
 * dev.tether.stream.StreamSender} that turns a local publisher into items on the wire under the
 * peer's credit, keeping what the peer has not acknowledged for a resume, and the {@link
 * dev.tether.stream.StreamReceiver} that hands items to a local subscriber as it asks and sends
 * credit back. Each stream's state lives in one {@link dev.tether.stream.StreamContext}; the client
 * and server packages own the stream state machines that use them. Imports only the public
 * packages, protocol and internal.
 */
package dev.tether.stream;
