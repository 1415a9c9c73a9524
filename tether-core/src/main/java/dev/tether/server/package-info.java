/**
 * The server runtime: listeners, server connections, dispatch to services in the four execution
 * modes (executor, direct, serialized per connection, a virtual thread per call), limits and
 * graceful shutdown. A connection's state lives on its event loop; the server's lifecycle and its
 * set of connections on its control executor. Never imports the client or cluster packages.
 */
package dev.tether.server;
