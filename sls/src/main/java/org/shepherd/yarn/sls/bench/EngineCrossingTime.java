package org.shepherd.yarn.sls.bench;

import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Total time Shepherd's heartbeats spent in the JNI crossing into the Rust
 * engine (apply the batched events, run the pass, return the decisions), as
 * the shim itself measures it: its {@code CrossingNanos} rate in the RM's
 * {@code ShepherdScheduler} metrics bean. Hadoop publishes a rate as a
 * running count plus the mean over the interval since the bean was last
 * refreshed (at most every 10 s), so polling it and adding up
 * {@code new ops × interval mean} recovers the total. Only the last partial
 * interval before the run ends is missed.
 */
final class EngineCrossingTime {
  private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  /** Found on the first poll after the RM registered it; its service part varies. */
  private ObjectName bean;
  private long lastOps;
  private double totalNanos;
  private boolean available = true;

  /** Call about once a second. */
  synchronized void poll() {
    if (!available) {
      return;
    }
    try {
      if (bean == null) {
        for (ObjectName n : server.queryNames(new ObjectName("Hadoop:name=ShepherdScheduler,*"),
            null)) {
          bean = n;
        }
        if (bean == null) {
          return;
        }
      }
      long ops = ((Number) server.getAttribute(bean, "CrossingNanosNumOps")).longValue();
      double mean = ((Number) server.getAttribute(bean, "CrossingNanosAvgTime")).doubleValue();
      if (ops > lastOps) {
        totalNanos += (ops - lastOps) * mean;
        lastOps = ops;
      }
    } catch (Exception e) {
      available = false;
    }
  }

  /** Crossings counted so far, or -1 when the bean is not there (not Shepherd). */
  synchronized long crossings() {
    return available && lastOps > 0 ? lastOps : -1;
  }

  synchronized double totalSeconds() {
    return totalNanos / 1e9;
  }
}
