/**
 * Small shared pieces with one job each: the backoff policy, the serial control executor, the event
 * bus, the int-keyed pending-call map, sliding counters, the retry budget, duration parsing,
 * settings, listening ports below the ephemeral range, and Java 21's virtual threads reached
 * through method handles. Nothing public leans on it; it imports only the spi and observe packages.
 */
package dev.tether.internal;
