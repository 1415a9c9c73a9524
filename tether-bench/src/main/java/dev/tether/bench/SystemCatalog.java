package dev.tether.bench;

import java.util.ArrayList;
import java.util.List;

/** Every system the benchmark knows, in the order the results table lists them. */
public final class SystemCatalog {

  private SystemCatalog() {}

  /** All registered systems; add a family by adding its {@code specs()} here. */
  public static List<SystemSpec> all() {
    List<SystemSpec> specs = new ArrayList<>();
    specs.addAll(RawNettySystem.specs());
    specs.addAll(GrpcSystem.specs());
    specs.addAll(DubboSystem.specs());
    specs.addAll(TetherSystems.specs());
    specs.addAll(TetherGrpcSystems.specs());
    specs.addAll(TetherChannelSystems.specs());
    return List.copyOf(specs);
  }

  /**
   * The systems selected by {@code --systems} tokens, in catalog order; every system when the list
   * is empty.
   *
   * @throws IllegalArgumentException when a token selects nothing
   */
  public static List<SystemSpec> select(List<SystemSpec> catalog, List<String> tokens) {
    if (tokens.isEmpty()) {
      return catalog;
    }
    for (String token : tokens) {
      if (catalog.stream().noneMatch(spec -> spec.matches(token))) {
        throw new IllegalArgumentException(
            "no system matches '" + token + "'; known: " + names(catalog));
      }
    }
    return catalog.stream().filter(spec -> tokens.stream().anyMatch(spec::matches)).toList();
  }

  /**
   * The system called {@code name} (as {@link SystemSpec#name()} prints it).
   *
   * @throws IllegalArgumentException when there is none
   */
  public static SystemSpec byName(String name) {
    return all().stream()
        .filter(spec -> spec.name().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "no system is called '" + name + "'; known: " + names(all())));
  }

  /** The names of {@code catalog}, comma-separated. */
  public static String names(List<SystemSpec> catalog) {
    return String.join(", ", catalog.stream().map(SystemSpec::name).toList());
  }
}
