package org.shepherd.yarn;

import org.apache.hadoop.metrics2.annotation.Metric;
import org.apache.hadoop.metrics2.annotation.Metrics;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.MutableCounterLong;
import org.apache.hadoop.metrics2.lib.MutableRate;

/**
 * The shim's own counters, published through Hadoop metrics2 (visible in the
 * RM's {@code /jmx} as {@code Hadoop:service=ResourceManager,name=ShepherdScheduler}).
 */
@Metrics(name = "ShepherdScheduler", about = "Shepherd scheduler shim", context = "yarn")
final class ShepherdMetrics {
  @Metric("Containers allocated by the Rust engine")
  MutableCounterLong engineAllocations;
  @Metric("Containers allocated by the safe built-in FIFO while the engine was unavailable")
  MutableCounterLong fallbackAllocations;
  @Metric("Engine calls that failed (exception or panic)")
  MutableCounterLong engineFailures;
  @Metric("NodeManager heartbeats scheduled by the safe built-in FIFO (engine failed or degraded)")
  MutableCounterLong fallbackHeartbeats;
  @Metric("Engine rebuilds after a failure")
  MutableCounterLong engineRebuilds;
  @Metric("Containers NodeManagers reported after a work-preserving RM restart, handed to the engine")
  MutableCounterLong recoveredContainers;
  @Metric("Engine decisions YARN could no longer carry out")
  MutableCounterLong rejectedDecisions;
  @Metric("Time of one heartbeat crossing into the engine, ns")
  MutableRate crossingNanos;
  @Metric("Scheduling rounds between heartbeats (asynchronous scheduling) that crossed into the engine")
  MutableCounterLong asyncRounds;
  @Metric("Containers allocated by rounds between heartbeats (asynchronous scheduling)")
  MutableCounterLong asyncAllocations;

  static ShepherdMetrics create() {
    ShepherdMetrics m = new ShepherdMetrics();
    try {
      return DefaultMetricsSystem.instance().register("ShepherdScheduler",
          "Shepherd scheduler shim", m);
    } catch (org.apache.hadoop.metrics2.MetricsException e) {
      // Already registered (a second scheduler instance in one JVM, as in
      // tests that restart the RM): use an unregistered instance.
      return DefaultMetricsSystem.instance().register("ShepherdScheduler-"
          + System.identityHashCode(m), "Shepherd scheduler shim", m);
    }
  }
}
