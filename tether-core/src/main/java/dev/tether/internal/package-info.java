/**
 * Small shared pieces with one job each: the backoff policy, the serial control executor, the event
 * bus, the int-keyed pending-call map, sliding counters, the retry budget, duration parsing,
 * settings, and Java 21's virtual threads reached through method handles. Nothing public leans on
 * it; it imports only the face, spi and observe.
 */
package dev.tether.internal;
