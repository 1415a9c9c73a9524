/**
 * The public API, and the face of tether-core: the client runtime {@link dev.tether.Tether}, the
 * server {@link dev.tether.TetherServer}, {@link dev.tether.Proxy} and its grammar, endpoints, TLS
 * settings, options and every exception. Every package of the runtime may use its value types and
 * exceptions; only the entry points assemble the packages below, and nothing below calls back into
 * them. Exported by the module.
 */
package dev.tether;
