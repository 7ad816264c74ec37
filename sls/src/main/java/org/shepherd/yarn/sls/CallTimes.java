package org.shepherd.yarn.sls;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;

/**
 * How long each scheduler call took, per kind: {@code allocate} (an AM's
 * heartbeat) and {@code handle} per event type (NODE_UPDATE is a NodeManager
 * heartbeat). Both SLS schedulers of the benchmark record here at the same
 * points — around the real scheduler's method, inside SLS's own timer, and
 * around SLS's wrapper — so Shepherd and the CapacityScheduler are measured
 * alike.
 */
public final class CallTimes {
  private final LatencyHistogram allocate = new LatencyHistogram();
  private final Map<SchedulerEventType, LatencyHistogram> events = perType();
  /**
   * The same calls timed from outside SLS's wrapper: SLS's own bookkeeping
   * (its queue metrics, which for NODE_UPDATE walk every completed
   * container's application) runs on the same thread before the scheduler's
   * method, so outer minus inner is what hosting in SLS costs.
   */
  private final LatencyHistogram allocateWithSls = new LatencyHistogram();
  private final Map<SchedulerEventType, LatencyHistogram> eventsWithSls = perType();

  private static Map<SchedulerEventType, LatencyHistogram> perType() {
    Map<SchedulerEventType, LatencyHistogram> m = new EnumMap<>(SchedulerEventType.class);
    for (SchedulerEventType t : SchedulerEventType.values()) {
      m.put(t, new LatencyHistogram());
    }
    // Filled once, read by many threads: never modified after this.
    return Collections.unmodifiableMap(m);
  }

  /**
   * Runs one {@code allocate} and records how long it took: {@code withSls}
   * when timed around SLS's wrapper, else around the scheduler's own method.
   */
  public <T> T allocate(boolean withSls, Supplier<T> call) {
    long started = System.nanoTime();
    try {
      return call.get();
    } finally {
      (withSls ? allocateWithSls : allocate).record(System.nanoTime() - started);
    }
  }

  /** Runs the handling of one event of {@code type} and records how long it took. */
  public void event(SchedulerEventType type, boolean withSls, Runnable call) {
    long started = System.nanoTime();
    try {
      call.run();
    } finally {
      (withSls ? eventsWithSls : events).get(type).record(System.nanoTime() - started);
    }
  }

  public LatencyHistogram allocateWithSls() {
    return allocateWithSls;
  }

  public LatencyHistogram eventWithSls(SchedulerEventType type) {
    return eventsWithSls.get(type);
  }

  /** The scheduler event thread's busy time including SLS's wrapper, ns. */
  public long eventNanosWithSls() {
    long sum = 0;
    for (LatencyHistogram h : eventsWithSls.values()) {
      sum += h.sumNanos();
    }
    return sum;
  }

  public LatencyHistogram allocate() {
    return allocate;
  }

  public LatencyHistogram event(SchedulerEventType type) {
    return events.get(type);
  }

  /** Time spent handling events of every type (the scheduler event thread's busy time), ns. */
  public long eventNanos() {
    long sum = 0;
    for (LatencyHistogram h : events.values()) {
      sum += h.sumNanos();
    }
    return sum;
  }

  public long eventCount() {
    long n = 0;
    for (LatencyHistogram h : events.values()) {
      n += h.count();
    }
    return n;
  }
}
