package dev.tether.observe;

import dev.tether.ConnectionState;
import java.time.Duration;

/**
 * One client connection as a status snapshot saw it.
 *
 * @param endpoint where it goes, in grammar form
 * @param connectionId the connection id it was opened for ("" by default)
 * @param state its state when the snapshot was taken
 * @param inFlight calls sent on it and not answered yet
 * @param age time since it started connecting
 * @param callsOk calls answered OK on it
 * @param callsFailed calls that failed on it (errors, lost, refused)
 * @param lastError why the latest call or the connection failed, or null
 * @param streams streams open on it now (accepted by the server and not ended); a stream whose
 *     connection broke is counted again on the connection it resumes on, not meanwhile
 * @param protocol what it speaks: {@code "tether"} ({@link ServerStatus#TETHER}), or the name of
 *     the proxy's other wire protocol, such as {@code "grpc"}
 */
public record ConnectionStatus(
    String endpoint,
    String connectionId,
    ConnectionState state,
    int inFlight,
    Duration age,
    long callsOk,
    long callsFailed,
    String lastError,
    int streams,
    String protocol) {

  /** A snapshot of a connection that speaks Tether's own protocol. */
  public ConnectionStatus(
      String endpoint,
      String connectionId,
      ConnectionState state,
      int inFlight,
      Duration age,
      long callsOk,
      long callsFailed,
      String lastError,
      int streams) {
    this(
        endpoint,
        connectionId,
        state,
        inFlight,
        age,
        callsOk,
        callsFailed,
        lastError,
        streams,
        ServerStatus.TETHER);
  }

  /** A snapshot of a connection that carries no stream. */
  public ConnectionStatus(
      String endpoint,
      String connectionId,
      ConnectionState state,
      int inFlight,
      Duration age,
      long callsOk,
      long callsFailed,
      String lastError) {
    this(endpoint, connectionId, state, inFlight, age, callsOk, callsFailed, lastError, 0);
  }
}
