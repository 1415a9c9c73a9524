package dev.tether.spring;

import dev.tether.TetherServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Registers every bean whose class carries {@link TetherService} on a server builder, typed by the
 * interface it serves. A class that names no interface and implements none, or several, fails the
 * context with a message that says which.
 */
final class AnnotatedServices {
  private AnnotatedServices() {}

  /** Adds each annotated bean of {@code context} to {@code builder}; returns the names served. */
  static List<String> register(TetherServer.Builder builder, ApplicationContext context) {
    List<String> names = new ArrayList<>();
    for (Map.Entry<String, Object> e :
        context.getBeansWithAnnotation(TetherService.class).entrySet()) {
      Object bean = e.getValue();
      Class<?> type = AopUtils.getTargetClass(bean);
      TetherService annotation =
          AnnotatedElementUtils.findMergedAnnotation(type, TetherService.class);
      if (annotation == null) {
        continue; // the annotation sits on a factory method, not on the class: not ours to serve
      }
      add(builder, annotation.value(), servedInterface(e.getKey(), type, annotation), bean);
      names.add(annotation.value());
    }
    return names;
  }

  private static <T> void add(
      TetherServer.Builder builder, String name, Class<T> iface, Object bean) {
    if (!iface.isInstance(bean)) {
      throw new IllegalStateException(
          "@TetherService(\""
              + name
              + "\") bean "
              + bean.getClass().getName()
              + " does not implement "
              + iface.getName());
    }
    builder.service(name, iface, iface.cast(bean));
  }

  /** The interface named on the annotation, else the one the class declares. */
  static Class<?> servedInterface(String beanName, Class<?> type, TetherService annotation) {
    if (annotation.serviceInterface() != void.class) {
      return annotation.serviceInterface();
    }
    List<Class<?>> declared = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Class<?> i : c.getInterfaces()) {
        if (!isInfrastructure(i) && !declared.contains(i)) {
          declared.add(i);
        }
      }
    }
    if (declared.size() != 1) {
      throw new IllegalStateException(
          "@TetherService(\""
              + annotation.value()
              + "\") bean '"
              + beanName
              + "' ("
              + type.getName()
              + ") implements "
              + (declared.isEmpty() ? "no interface" : declared)
              + ": name the one to serve with serviceInterface");
    }
    return declared.get(0);
  }

  /** Interfaces a bean gets from Java or Spring, never a service contract. */
  private static boolean isInfrastructure(Class<?> i) {
    String n = i.getName();
    return n.startsWith("java.")
        || n.startsWith("javax.")
        || n.startsWith("jakarta.")
        || n.startsWith("org.springframework.");
  }
}
