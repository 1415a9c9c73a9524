/**
 * Micrometer meters for client runtimes and servers, read from their status snapshots once a second
 * and, for streams, counted from their events by a listener, rather than inlined into the call
 * path. Uses only tether-core's exported packages.
 */
package dev.tether.micrometer;
