package dev.tether.codec;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The operations of one service interface, by method and by name. Built once per interface and
 * cached; overloaded method names are rejected because the wire names operations only by name.
 */
public final class OperationTable {
  private static final Map<Class<?>, OperationTable> CACHE = new ConcurrentHashMap<>();

  private final Class<?> iface;
  private final Map<Method, Operation> byMethod = new HashMap<>();
  private final Map<String, Operation> byName = new HashMap<>();
  private final boolean hasStreams;

  /**
   * The Method instances callers actually pass (a dynamic proxy passes the same few on every call),
   * matched by identity: Method.equals compares parameter types on every lookup. Copied on write,
   * and bounded, since reflection can hand out ever-new copies of one method.
   */
  private volatile Map<Method, Operation> byInstance = new IdentityHashMap<>();

  /**
   * Serializes the copies; a lock, not a monitor, so typed callers on virtual threads keep their
   * carriers free.
   */
  private final ReentrantLock remembering = new ReentrantLock();

  private OperationTable(Class<?> iface) {
    if (!iface.isInterface()) {
      throw new IllegalArgumentException(iface.getName() + " is not an interface");
    }
    this.iface = iface;
    for (Method m : iface.getMethods()) {
      if (m.isDefault()
          || Modifier.isStatic(m.getModifiers())
          || m.getDeclaringClass() == Object.class) {
        continue;
      }
      Operation op = new Operation(m);
      if (byName.put(op.name(), op) != null) {
        throw new IllegalArgumentException(
            iface.getName() + " overloads " + op.name() + "; operations are named by method name");
      }
      byMethod.put(m, op);
    }
    this.hasStreams = byName.values().stream().anyMatch(Operation::isStream);
  }

  /** The table for an interface, built on first use. */
  public static OperationTable of(Class<?> iface) {
    return CACHE.computeIfAbsent(iface, OperationTable::new);
  }

  public Class<?> serviceInterface() {
    return iface;
  }

  /** The operation for a method, or null when the method is not remote (default or Object's). */
  public Operation forMethod(Method method) {
    Operation op = byInstance.get(method);
    if (op == null) {
      op = byMethod.get(method);
      if (op != null) {
        remember(method, op);
      }
    }
    return op;
  }

  private void remember(Method method, Operation op) {
    remembering.lock();
    try {
      if (byInstance.size() < 4 * byMethod.size()) {
        Map<Method, Operation> next = new IdentityHashMap<>(byInstance);
        next.put(method, op);
        byInstance = next;
      }
    } finally {
      remembering.unlock();
    }
  }

  /**
   * True when a method of the interface returns Flow.Publisher, so the service also serves streams.
   */
  public boolean hasStreams() {
    return hasStreams;
  }

  /** The operation of that name, or null. */
  public Operation forName(String name) {
    return byName.get(name);
  }
}
