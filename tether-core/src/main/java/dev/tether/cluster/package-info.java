/**
 * Load balancing over nodes: node groups whose node health follows the connection supervisors,
 * ejection of nodes whose calls keep failing, and the strategies (round robin, random,
 * epsilon-greedy, least loaded). A group's state changes on the runtime's control executor; calls
 * pick from an immutable picker it publishes. Uses the client package only through the interfaces
 * the client defines for it ({@code NodeRouter}, {@code NodeHost}), so the client never imports
 * this package.
 */
package dev.tether.cluster;
