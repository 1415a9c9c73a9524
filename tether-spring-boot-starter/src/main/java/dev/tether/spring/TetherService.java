package dev.tether.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a Spring bean the auto-configured {@code TetherServer} serves under {@link #value()}, typed
 * by the one interface its class implements (or {@link #serviceInterface()} when it implements
 * several). The server exists only when {@code tether.server.endpoints} is set.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface TetherService {
  /**
   * The service name clients put before the endpoints, e.g. {@code "echo"} in {@code "echo:tcp -h
   * ..."}.
   */
  String value();

  /**
   * The interface served; {@code void.class} means the one interface the bean's class implements.
   */
  Class<?> serviceInterface() default void.class;
}
