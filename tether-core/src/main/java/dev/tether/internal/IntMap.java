package dev.tether.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * An int-keyed open-addressing map for request ids, confined to one thread (a connection's event
 * loop). Slots come from Fibonacci hashing, so the consecutive ids of one connection spread over
 * the table instead of forming one long run; Netty's IntObjectHashMap puts key k at k & mask, and
 * with sequential ids its removals scan the whole run of outstanding calls.
 *
 * @param <V> the value; null is not allowed
 */
public final class IntMap<V> {
  /** 2^32 divided by the golden ratio, odd: multiplying by it scatters consecutive keys. */
  private static final int FIBONACCI = 0x9E3779B9;

  private static final int MIN_CAPACITY = 16;

  /**
   * Null until the first put: most connections of a large client sit idle and never hold an entry.
   */
  private int[] keys;

  /** A null value marks a free slot; null until the first put, like {@code keys}. */
  private Object[] values;

  private int indexBits;
  private int size;

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** Maps {@code key} to {@code value}, replacing any previous value. */
  public void put(int key, V value) {
    if (value == null) {
      throw new NullPointerException("value");
    }
    if (values == null) {
      allocate(MIN_CAPACITY);
    } else if (2 * (size + 1) > values.length) {
      resize(values.length * 2);
    }
    int slot = home(key);
    while (values[slot] != null) {
      if (keys[slot] == key) {
        values[slot] = value;
        return;
      }
      slot = next(slot);
    }
    keys[slot] = key;
    values[slot] = value;
    size++;
  }

  @SuppressWarnings("unchecked")
  public V get(int key) {
    if (size == 0) {
      return null;
    }
    for (int slot = home(key); values[slot] != null; slot = next(slot)) {
      if (keys[slot] == key) {
        return (V) values[slot];
      }
    }
    return null;
  }

  /** Removes and returns the value for {@code key}, or null when there is none. */
  @SuppressWarnings("unchecked")
  public V remove(int key) {
    if (size == 0) {
      return null;
    }
    for (int slot = home(key); values[slot] != null; slot = next(slot)) {
      if (keys[slot] == key) {
        V value = (V) values[slot];
        closeGap(slot);
        size--;
        return value;
      }
    }
    return null;
  }

  /** Removes every entry whose key matches, returning their values. */
  public List<V> removeKeys(IntPredicate matches) {
    List<V> removed = new ArrayList<>();
    for (int key : keysSnapshot()) {
      if (matches.test(key)) {
        removed.add(remove(key));
      }
    }
    return removed;
  }

  /** Every value, as a list the map's later changes do not touch. */
  @SuppressWarnings("unchecked")
  public List<V> values() {
    List<V> all = new ArrayList<>(size);
    if (size == 0) {
      return all;
    }
    for (Object v : values) {
      if (v != null) {
        all.add((V) v);
      }
    }
    return all;
  }

  /** Empties the map, returning every value. */
  public List<V> removeAll() {
    List<V> all = values();
    keys = null;
    values = null;
    size = 0;
    return all;
  }

  private int[] keysSnapshot() {
    int[] out = new int[size];
    int n = 0;
    for (int i = 0; size > 0 && i < values.length; i++) {
      if (values[i] != null) {
        out[n++] = keys[i];
      }
    }
    return out;
  }

  /**
   * Backward-shift deletion: pulls later entries of the run into the gap so lookups stay correct.
   */
  private void closeGap(int gap) {
    int slot = next(gap);
    while (values[slot] != null) {
      int home = home(keys[slot]);
      // The entry may move into the gap only if its home is not in the cyclic range (gap, slot].
      if (((slot - home) & mask()) >= ((slot - gap) & mask())) {
        keys[gap] = keys[slot];
        values[gap] = values[slot];
        gap = slot;
      }
      slot = next(slot);
    }
    values[gap] = null;
  }

  private void resize(int capacity) {
    int[] oldKeys = keys;
    Object[] oldValues = values;
    allocate(capacity);
    size = 0;
    for (int i = 0; i < oldValues.length; i++) {
      if (oldValues[i] != null) {
        @SuppressWarnings("unchecked")
        V v = (V) oldValues[i];
        put(oldKeys[i], v);
      }
    }
  }

  private void allocate(int capacity) {
    keys = new int[capacity];
    values = new Object[capacity];
    indexBits = Integer.numberOfTrailingZeros(capacity);
  }

  private int home(int key) {
    return (key * FIBONACCI) >>> (32 - indexBits);
  }

  private int next(int slot) {
    return (slot + 1) & mask();
  }

  private int mask() {
    return values.length - 1;
  }
}
