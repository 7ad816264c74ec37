package org.shepherd.yarn.sls;

import java.util.Map;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;

/**
 * A scheduler SLS hosts for the benchmark, as the benchmark runner sees it:
 * its call times and the figures only it knows. SLSRunner keeps its
 * ResourceManager to itself, so the scheduler announces itself here when the
 * RM initialises it (one simulated RM per JVM, as SLS itself assumes).
 */
public interface MeasuredScheduler {
  CallTimes callTimes();

  /** The scheduler itself (every implementation is one). */
  default ResourceScheduler scheduler() {
    return (ResourceScheduler) this;
  }

  /** The RM's context (its applications), which the scheduler holds. */
  RMContext rmContext();

  /**
   * Scheduler-specific counters for the report, e.g. Shepherd's allocations
   * by the Rust engine and by its fallback FIFO; empty when there are none.
   */
  Map<String, Long> counters();

  /** The one in this JVM, or null before the RM initialised its scheduler. */
  static MeasuredScheduler current() {
    return Holder.current;
  }

  /** Called by the scheduler when the RM initialises it. */
  static void announce(MeasuredScheduler s) {
    Holder.current = s;
  }

  /** Interfaces cannot hold mutable state themselves. */
  final class Holder {
    private static volatile MeasuredScheduler current;

    private Holder() {}
  }
}
