/**
 * The live status page: HTML, {@code /status.json}, server-sent {@code /events} and Prometheus
 * {@code /metrics} over Netty's HTTP codec, fed by the status snapshots and a listener. Bounded in
 * events kept, pages open and bytes queued per page; binds to loopback by default. Uses only
 * tether-core's exported packages.
 */
package dev.tether.admin;
