package dev.tether.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A terminal table: a header row and data rows, each column as wide as its widest cell, numbers
 * right-aligned. Cells are plain strings; the table adds two spaces between columns.
 */
final class TextTable {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  TextTable(String... header) {
    this.header = List.of(header);
  }

  TextTable row(Object... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException(cells.length + " cells for " + header.size() + " columns");
    }
    List<String> row = new ArrayList<>(cells.length);
    for (Object c : cells) {
      row.add(c == null ? "" : PrintableText.of(String.valueOf(c)));
    }
    rows.add(row);
    return this;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  /** The table as lines, each starting with {@code indent}. */
  String render(String indent) {
    int[] widths = new int[header.size()];
    boolean[] numeric = new boolean[header.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = header.get(i).length();
      numeric[i] = !rows.isEmpty();
      for (List<String> r : rows) {
        widths[i] = Math.max(widths[i], r.get(i).length());
        numeric[i] &= r.get(i).matches("-?[0-9][0-9,.]*( [a-zµ]+)?");
      }
    }
    StringBuilder out = new StringBuilder();
    appendLine(out, indent, header, widths, numeric);
    for (List<String> r : rows) {
      appendLine(out, indent, r, widths, numeric);
    }
    return out.toString();
  }

  private static void appendLine(
      StringBuilder out, String indent, List<String> cells, int[] widths, boolean[] numeric) {
    StringBuilder line = new StringBuilder(indent);
    for (int i = 0; i < cells.size(); i++) {
      String c = cells.get(i);
      String pad = " ".repeat(widths[i] - c.length());
      line.append(numeric[i] ? pad + c : c + pad);
      if (i < cells.size() - 1) {
        line.append("  ");
      }
    }
    out.append(line.toString().stripTrailing()).append('\n');
  }
}
