package dev.tether;

/**
 * How long an on-demand fuzz run of one Jazzer target lasts ({@code JAZZER_FUZZ=1}, see
 * docs/reliability.md). Jazzer takes the limit from the annotation only, so it is one constant here
 * rather than a flag; the normal build runs the checked-in corpus and ignores it.
 */
public final class FuzzRun {
  /** The limit of one on-demand run, in Jazzer's duration syntax. */
  public static final String MAX_DURATION = "3m";

  private FuzzRun() {}
}
