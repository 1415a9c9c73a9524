package dev.tether.server;

import dev.tether.observe.TetherEvent;
import dev.tether.protocol.Welcome;
import io.netty.channel.Channel;

/**
 * What a {@link ServerConnection} needs from the server around it: dispatch, the WELCOME to send,
 * the clock, the limits, and where its events and its end are reported.
 */
interface ConnectionHost {
  Dispatcher dispatcher();

  /** The server's stream services and the streams it keeps. */
  StreamRegistry streams();

  Welcome welcome();

  ServerClock clock();

  /** Close a connection that has read nothing for this long; 0 never does. */
  long readerIdleNanos();

  /** Close a connection that has not sent HELLO this long after it opened (TLS included). */
  long handshakeTimeoutNanos();

  /** When connections are told to move to a new one (GOAWAY(MAX_AGE)), and the grace after. */
  ConnectionAge connectionAge();

  /** A connection reached its age and told its client so; called on the loop. */
  void connectionAged();

  /** Reports a server event about {@code channel}; called on the loop. */
  void emit(TetherEvent.Kind kind, Channel channel, String detail, Throwable cause);

  /** The connection closed after finishing {@code served} requests; called on the loop once. */
  void connectionClosed(ServerConnection connection, long served);
}
