/**
 * The client runtime: invocations and their futures, endpoint selection, the connection supervisors
 * and cache, the call path with its retries under the at-most-once rule, sessions, topology views,
 * and the client connections. A connection's state lives on its event loop; supervisors, sessions,
 * topology views and retry rounds on the runtime's control executor. Never imports the server or
 * cluster packages; see docs/architecture.md for the class map.
 */
package dev.tether.client;
