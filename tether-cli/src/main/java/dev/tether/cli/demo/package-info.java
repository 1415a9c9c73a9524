/**
 * The demo: scenarios (a showcase of kills, freezes, drains, rolling restarts and failover, or one
 * disruption at a time) run against servers on loopback behind fault proxies, a live table while
 * they run, and each phase's verdicts at the end, judged from what the clients saw.
 */
package dev.tether.cli.demo;
