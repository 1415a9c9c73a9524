/**
 * The wire format of docs/protocol.md: frame records, the encoder, the stream and datagram
 * decoders, write batching, compact names and body compression. It knows neither the client nor the
 * server; it imports only the face's exceptions.
 */
package dev.tether.protocol;
