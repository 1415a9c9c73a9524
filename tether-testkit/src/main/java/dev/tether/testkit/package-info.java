/**
 * Test helpers users want too: a fake clock that is both ticker and scheduler, a fault-injecting
 * TCP proxy, an in-process cluster of servers, a stream service that holds its streams open until
 * told, and test certificates. Their sockets bind to loopback only, and they use only tether-core's
 * exported packages.
 */
package dev.tether.testkit;
