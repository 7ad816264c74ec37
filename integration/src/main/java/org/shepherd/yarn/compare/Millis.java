package org.shepherd.yarn.compare;

/** Durations the harness is given on its command line, in milliseconds. */
final class Millis {
  private Millis() {
  }

  /**
   * {@code text} as a positive number of milliseconds, or -1 when it is not
   * one (not a number, zero or negative); the caller names the option in
   * its error.
   */
  static long positive(String text) {
    try {
      long ms = Long.parseLong(text);
      return ms > 0 ? ms : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
