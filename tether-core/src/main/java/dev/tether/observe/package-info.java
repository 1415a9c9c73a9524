/**
 * Public observability: the events every transition emits ({@link dev.tether.observe.TetherEvent})
 * to any number of {@link dev.tether.observe.TetherListener}s, off the event loops and in order,
 * and the immutable status snapshots of runtimes and servers. Imports only the face and spi;
 * exported by the module.
 */
package dev.tether.observe;
