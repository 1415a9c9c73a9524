/**
 * Registration, discovery and primary election on Apache ZooKeeper through Curator: servers
 * register ephemeral nodes, proxies discover them through a {@link dev.tether.spi.Discovery}, and a
 * leader latch chooses the primary of the announced topology. A discovery keeps its last list while
 * ZooKeeper is unreachable. Uses only tether-core's exported packages.
 */
package dev.tether.zookeeper;
