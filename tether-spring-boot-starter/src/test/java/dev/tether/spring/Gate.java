package dev.tether.spring;

/** A service whose calls wait until the test lets them through. */
public interface Gate {
  String pass(String who);
}
