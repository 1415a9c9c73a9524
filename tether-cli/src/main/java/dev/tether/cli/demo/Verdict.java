package dev.tether.cli.demo;

import java.util.Objects;

/**
 * Whether a run showed what its scenario claims, with the figures that decided it, so a reader can
 * check the verdict instead of trusting it.
 *
 * @param met true when the run showed it
 * @param claim what the scenario expects, e.g. "no call fails"
 * @param evidence the figures behind the verdict, e.g. "0 of 41,234 calls failed"
 */
public record Verdict(boolean met, String claim, String evidence) {
  public Verdict {
    Objects.requireNonNull(claim);
    Objects.requireNonNull(evidence);
  }

  /** "PASS" or "FAIL", as the summary prints it. */
  public String label() {
    return met ? "PASS" : "FAIL";
  }
}
