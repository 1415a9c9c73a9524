package dev.tether.observe;

/**
 * A server as a status snapshot saw it.
 *
 * @param state "RUNNING", "DRAINING" or "CLOSED"
 * @param connections client connections open now
 * @param inFlight requests accepted and not answered yet
 * @param served requests answered since the server started
 */
public record ServerStatus(String state, int connections, int inFlight, long served) {}
