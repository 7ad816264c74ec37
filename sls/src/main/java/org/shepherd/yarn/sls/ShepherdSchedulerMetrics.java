package org.shepherd.yarn.sls;

import com.codahale.metrics.Gauge;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;
import org.shepherd.yarn.ShepherdScheduler;

/**
 * SLS's metrics for Shepherd. SLS chooses a {@link SchedulerMetrics} subclass
 * per scheduler class and has none for Shepherd (see
 * {@link ShepherdSlsScheduler#serviceInit}); everything SLS records for every
 * scheduler (call timers, cluster and queue resources, JVM memory) comes from
 * the base class. This adds what only Shepherd has, so it lands in SLS's
 * metrics CSVs next to the rest:
 *
 * <ul>
 *   <li>{@code variable.queue.<q>.currentcapacity} / {@code .maximumcapacity},
 *       as SLS's FifoSchedulerMetrics gives its one queue;</li>
 *   <li>{@code variable.shepherd.allocations.engine} / {@code .fallback}:
 *       containers placed by the Rust engine and by the shim's safe FIFO
 *       (which only runs while the engine has failed);</li>
 *   <li>{@code variable.shepherd.engine.failures}.</li>
 * </ul>
 */
public class ShepherdSchedulerMetrics extends SchedulerMetrics {

  @Override
  protected void registerQueueMetrics(String queueName) {
    super.registerQueueMetrics(queueName);
    ShepherdScheduler shepherd = (ShepherdScheduler) scheduler;
    gauge("variable.queue." + queueName + ".currentcapacity", () -> {
      QueueInfo q = shepherd.getQueueInfo(queueName, false, false);
      return q == null ? 0f : q.getCurrentCapacity();
    });
    gauge("variable.queue." + queueName + ".maximumcapacity", () -> {
      QueueInfo q = shepherd.getQueueInfo(queueName, false, false);
      return q == null ? 0f : q.getMaximumCapacity();
    });
    // Scheduler-wide; registered with the first queue SLS tracks, the first
    // moment this class holds the scheduler.
    gauge("variable.shepherd.allocations.engine", shepherd::getEngineAllocations);
    gauge("variable.shepherd.allocations.fallback", shepherd::getFallbackAllocations);
    gauge("variable.shepherd.engine.failures", shepherd::getEngineFailures);
  }

  private <T> void gauge(String name, Gauge<T> gauge) {
    if (!metrics.getGauges().containsKey(name)) {
      metrics.register(name, gauge);
    }
  }
}
