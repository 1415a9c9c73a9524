package dev.tether.spring;

/** A service bean: the starter serves it as "greeter" under {@link Greeter}. */
@TetherService("greeter")
public class GreeterBean implements Greeter {
  @Override
  public String greet(String name) {
    return "hello " + name;
  }
}
