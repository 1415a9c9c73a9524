package dev.tether.grpc.client;

import io.netty.handler.codec.EmptyHeaders;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Request HEADERS as a plain list of entries, pseudo-headers first: the HPACK encoder only walks
 * them, so a call's headers need no hash table, and the entries that are the same for every call of
 * a method or connection are shared, not made again. Filled once, then read only: every setter of
 * {@link Http2Headers} is unsupported. Lookups scan the list, which holds a dozen entries.
 */
final class HeaderList extends EmptyHeaders<CharSequence, CharSequence, Http2Headers>
    implements Http2Headers {
  private Map.Entry<CharSequence, CharSequence>[] entries;
  private int size;

  @SuppressWarnings("unchecked")
  HeaderList(int expected) {
    entries = new Map.Entry[expected];
  }

  /** An entry to share between calls. */
  static Map.Entry<CharSequence, CharSequence> entry(CharSequence name, CharSequence value) {
    return new AbstractMap.SimpleImmutableEntry<>(name, value);
  }

  HeaderList append(Map.Entry<CharSequence, CharSequence> entry) {
    if (size == entries.length) {
      entries = Arrays.copyOf(entries, size * 2);
    }
    entries[size++] = entry;
    return this;
  }

  HeaderList append(CharSequence name, CharSequence value) {
    return append(entry(name, value));
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public boolean isEmpty() {
    return size == 0;
  }

  @Override
  public Iterator<Map.Entry<CharSequence, CharSequence>> iterator() {
    return new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < size;
      }

      @Override
      public Map.Entry<CharSequence, CharSequence> next() {
        if (next >= size) {
          throw new NoSuchElementException();
        }
        return entries[next++];
      }
    };
  }

  @Override
  public CharSequence get(CharSequence name) {
    for (int i = 0; i < size; i++) {
      if (AsciiString.contentEquals(name, entries[i].getKey())) {
        return entries[i].getValue();
      }
    }
    return null;
  }

  @Override
  public CharSequence get(CharSequence name, CharSequence defaultValue) {
    CharSequence value = get(name);
    return value == null ? defaultValue : value;
  }

  @Override
  public List<CharSequence> getAll(CharSequence name) {
    List<CharSequence> all = new ArrayList<>(1);
    for (int i = 0; i < size; i++) {
      if (AsciiString.contentEquals(name, entries[i].getKey())) {
        all.add(entries[i].getValue());
      }
    }
    return all;
  }

  @Override
  public Iterator<CharSequence> valueIterator(CharSequence name) {
    return getAll(name).iterator();
  }

  @Override
  public boolean contains(CharSequence name) {
    return get(name) != null;
  }

  @Override
  public boolean contains(CharSequence name, CharSequence value, boolean caseInsensitive) {
    for (int i = 0; i < size; i++) {
      if (AsciiString.contentEquals(name, entries[i].getKey())
          && (caseInsensitive
              ? AsciiString.contentEqualsIgnoreCase(value, entries[i].getValue())
              : AsciiString.contentEquals(value, entries[i].getValue()))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public CharSequence method() {
    return get(PseudoHeaderName.METHOD.value());
  }

  @Override
  public CharSequence scheme() {
    return get(PseudoHeaderName.SCHEME.value());
  }

  @Override
  public CharSequence authority() {
    return get(PseudoHeaderName.AUTHORITY.value());
  }

  @Override
  public CharSequence path() {
    return get(PseudoHeaderName.PATH.value());
  }

  @Override
  public CharSequence status() {
    return get(PseudoHeaderName.STATUS.value());
  }

  @Override
  public Http2Headers method(CharSequence value) {
    throw new UnsupportedOperationException("read only");
  }

  @Override
  public Http2Headers scheme(CharSequence value) {
    throw new UnsupportedOperationException("read only");
  }

  @Override
  public Http2Headers authority(CharSequence value) {
    throw new UnsupportedOperationException("read only");
  }

  @Override
  public Http2Headers path(CharSequence value) {
    throw new UnsupportedOperationException("read only");
  }

  @Override
  public Http2Headers status(CharSequence value) {
    throw new UnsupportedOperationException("read only");
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("HeaderList[");
    for (int i = 0; i < size; i++) {
      s.append(i == 0 ? "" : ", ").append(entries[i].getKey()).append(": ");
      s.append(entries[i].getValue());
    }
    return s.append(']').toString();
  }
}
