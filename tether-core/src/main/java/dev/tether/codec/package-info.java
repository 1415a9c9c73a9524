/**
 * How typed calls become bytes: the default Jackson Smile codec with hand-written record encodings,
 * the operation tables of service interfaces, and typed stubs built on {@code
 * java.lang.reflect.Proxy}. Shared by client and server, so both sides agree on every operation;
 * imports only the face and the spi package.
 */
package dev.tether.codec;
