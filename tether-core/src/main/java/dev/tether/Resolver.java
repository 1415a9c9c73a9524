package dev.tether;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;

/**
 * Turns a host name into addresses; a multi-homed name yields several, and each becomes its own
 * endpoint (the third step of endpoint selection). Replace it to fake DNS in tests.
 */
@FunctionalInterface
public interface Resolver {
  List<InetAddress> resolve(String host) throws UnknownHostException;

  /** The JDK's resolver ({@link InetAddress#getAllByName}). */
  static Resolver system() {
    return host -> Arrays.asList(InetAddress.getAllByName(host));
  }
}
