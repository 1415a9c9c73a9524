/**
 * The two processes of the kernel-fault tests: a server and a client started inside Linux network
 * namespaces, where nftables rules partition them or drop a share of their packets. Run only as
 * root with nftables; the tests say why they skip otherwise.
 */
package dev.tether.chaos.netns;
