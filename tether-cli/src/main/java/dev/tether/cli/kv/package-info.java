/**
 * The demo's key-value service and server: put and get are idempotent, increment is not, so the
 * demo can show that no increment runs more often than its callers can know of.
 */
package dev.tether.cli.kv;
