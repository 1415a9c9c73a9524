/**
 * JMH micro-benchmarks of the hot path's pieces: frame encoding and decoding, endpoint selection,
 * typed codecs and the call path against an in-process reflector. Each measures one piece, so a
 * change's cost shows before the load benchmark runs.
 */
package dev.tether.bench.jmh;
