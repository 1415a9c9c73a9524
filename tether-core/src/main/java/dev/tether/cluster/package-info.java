/**
 * Load balancing over nodes: node groups whose node health follows the connection supervisors,
 * ejection of nodes whose calls keep failing, and the strategies (round robin, random,
 * epsilon-greedy, least loaded). A node's health moves only through {@code Node.moveTo}, which
 * emits its events; a group's state changes on the runtime's control executor, and calls pick from
 * an immutable picker it publishes. Uses the client package only through the interfaces the client
 * defines for it ({@code NodeRouter}, {@code NodeHost}), so the client never imports this package.
 */
package dev.tether.cluster;
