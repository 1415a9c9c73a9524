package dev.tether.spring;

/** The service contract the tests serve and call. */
public interface Greeter {
  String greet(String name);
}
