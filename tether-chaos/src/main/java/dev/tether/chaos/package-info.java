/**
 * The chaos run and the soak: a seeded fault plan (kills, freezes, resets, latency, drains, rolling
 * restarts, failovers) played against an in-process cluster under mixed load, with a ledger of
 * every call checked against the at-most-once rule and a leak check at the end. The same seed
 * replays the same plan.
 */
package dev.tether.chaos;
