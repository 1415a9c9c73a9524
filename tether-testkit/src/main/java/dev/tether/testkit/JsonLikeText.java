package dev.tether.testkit;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Payloads that look like what services exchange as JSON: an array of order records with repeated
 * field names, ids, names and cities from small vocabularies, timestamps and prices. Deterministic
 * for a seed, so compression figures and tests see the same bytes every run.
 */
public final class JsonLikeText {
  private static final String[] NAMES = {
    "Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov",
    "Donald Knuth", "Leslie Lamport", "Frances Allen", "John Backus", "Margaret Hamilton",
    "Ken Thompson", "Dennis Ritchie", "Niklaus Wirth", "Tony Hoare", "Radia Perlman"
  };
  private static final String[] CITIES = {
    "Lisbon",
    "Osaka",
    "Toronto",
    "Nairobi",
    "Lyon",
    "Porto Alegre",
    "Tallinn",
    "Hanoi",
    "Melbourne",
    "Reykjavik",
    "Seville",
    "Gdansk"
  };
  private static final String[] STATES = {
    "NEW", "PAID", "PACKED", "SHIPPED", "DELIVERED", "RETURNED"
  };
  private static final String[] ITEMS = {
    "keyboard",
    "monitor",
    "usb-c cable",
    "desk lamp",
    "notebook",
    "headphones",
    "webcam",
    "router",
    "ssd 1TB",
    "chair",
    "mouse pad",
    "power strip"
  };

  private JsonLikeText() {}

  /** Exactly {@code bytes} bytes of UTF-8, JSON-shaped (the last record may be cut short). */
  public static byte[] generate(int bytes, long seed) {
    Random random = new Random(seed);
    StringBuilder out = new StringBuilder(bytes + 512).append('[');
    long orderId = 100_000 + random.nextInt(900_000);
    long epochMillis = 1_767_225_600_000L + random.nextInt(1_000_000);
    while (out.length() < bytes) {
      orderId += 1 + random.nextInt(7);
      epochMillis += random.nextInt(60_000);
      appendOrder(out, random, orderId, epochMillis);
    }
    out.setLength(bytes);
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void appendOrder(
      StringBuilder out, Random random, long orderId, long epochMillis) {
    if (out.length() > 1) {
      out.append(',');
    }
    out.append("{\"orderId\":")
        .append(orderId)
        .append(",\"customer\":{\"name\":\"")
        .append(pick(random, NAMES))
        .append("\",\"city\":\"")
        .append(pick(random, CITIES))
        .append("\",\"customerId\":\"c-")
        .append(Long.toHexString(random.nextLong() & 0xffffffL))
        .append("\"},\"state\":\"")
        .append(pick(random, STATES))
        .append("\",\"createdAt\":")
        .append(epochMillis)
        .append(",\"lines\":[");
    int lines = 1 + random.nextInt(3);
    for (int i = 0; i < lines; i++) {
      if (i > 0) {
        out.append(',');
      }
      out.append("{\"item\":\"")
          .append(pick(random, ITEMS))
          .append("\",\"quantity\":")
          .append(1 + random.nextInt(5))
          .append(",\"priceCents\":")
          .append(199 + random.nextInt(50_000))
          .append('}');
    }
    out.append("],\"express\":").append(random.nextInt(4) == 0).append('}');
  }

  private static String pick(Random random, String[] words) {
    return words[random.nextInt(words.length)];
  }
}
