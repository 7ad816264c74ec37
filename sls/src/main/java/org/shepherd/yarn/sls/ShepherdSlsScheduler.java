package org.shepherd.yarn.sls;

import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.scheduler.SLSSchedulerCommons;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerMetrics;
import org.apache.hadoop.yarn.sls.scheduler.SchedulerWrapper;
import org.apache.hadoop.yarn.sls.scheduler.Tracker;
import org.shepherd.yarn.ShepherdScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shepherd as a scheduler of Hadoop's Scheduler Load Simulator: set
 * {@code yarn.resourcemanager.scheduler.class} to this class in the SLS run's
 * configuration, with the usual {@code yarn.scheduler.shepherd.config-file}
 * and {@code yarn.scheduler.shepherd.native-library}.
 *
 * <p>SLS only knows how to wrap the CapacityScheduler and the FairScheduler
 * (RMRunner swaps them for SLSCapacityScheduler / SLSFairScheduler) and
 * refuses the FifoScheduler; any other class it runs as given, but then
 * expects it to be a {@link SchedulerWrapper}. This is that wrapper for
 * Shepherd: every {@code allocate} and every event goes through SLS's own
 * {@link SLSSchedulerCommons}, which times it into SLS's metrics (the
 * {@code sampler.scheduler.operation.*} CSVs), counts finished apps and ends
 * the simulation; then into {@link ShepherdScheduler} unchanged. The engine
 * decides; this class only measures and forwards.
 */
public class ShepherdSlsScheduler extends ShepherdScheduler
    implements SchedulerWrapper, MeasuredScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(ShepherdSlsScheduler.class);

  private final SLSSchedulerCommons commons = new SLSSchedulerCommons(this);
  private final CallTimes times = new CallTimes();
  private volatile SLSRunner runner;

  @Override
  public void serviceInit(Configuration conf) throws Exception {
    super.serviceInit(conf);
    // SLS picks a scheduler's SchedulerMetrics class by a config key named
    // after the scheduler class; for a class it does not know and that has
    // no such key it instantiates null, logs the NPE, and every later event
    // fails on the missing metrics. Name Shepherd's unless the run did.
    Configuration metricsConf = new Configuration(conf);
    metricsConf.setIfUnset(ShepherdScheduler.class.getName(),
        ShepherdSchedulerMetrics.class.getName());
    // After super.serviceInit: SLS's gauges read the root queue's metrics
    // from the moment they exist, and Shepherd builds its queues here.
    commons.initMetrics(ShepherdScheduler.class, metricsConf);
    MeasuredScheduler.announce(this);
  }

  @Override
  public void serviceStop() throws Exception {
    stopSlsMetrics();
    super.serviceStop();
  }

  // ------------------------------------------------ every call through SLS's timers

  @Override
  public void handle(SchedulerEvent event) {
    times.event(event.getType(), true, () -> {
      try {
        commons.handle(event);
      } catch (RuntimeException e) {
        LOG.error("Shepherd failed to handle scheduler event " + event.getType(), e);
        throw e;
      }
    });
  }

  @Override
  public void propagatedHandle(SchedulerEvent event) {
    times.event(event.getType(), false, () -> super.handle(event));
  }

  @Override
  public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> asks,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
      List<String> blacklistAdditions, List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    return times.allocate(true, () -> commons.allocate(attemptId, asks, schedulingRequests,
        release, blacklistAdditions, blacklistRemovals, updateRequests));
  }

  @Override
  public Allocation allocatePropagated(ApplicationAttemptId attemptId,
      List<ResourceRequest> asks, List<SchedulingRequest> schedulingRequests,
      List<ContainerId> release, List<String> blacklistAdditions,
      List<String> blacklistRemovals, ContainerUpdates updateRequests) {
    return times.allocate(false, () -> super.allocate(attemptId, asks, schedulingRequests,
        release, blacklistAdditions, blacklistRemovals, updateRequests));
  }

  // ------------------------------------------------ what SLS asks of a wrapper

  /** Shepherd's leaf queue name for a trace's {@code job.queue.name}. */
  @Override
  public String getRealQueueName(String queue) throws YarnException {
    QueueInfo info = queue == null ? null : getQueueInfo(queue, false, false);
    if (info == null) {
      throw new YarnException("Can't find the queue by the given name: " + queue
          + "! Shepherd's queues are the [[queue]] tables of its config ("
          + CONFIG_FILE + ").");
    }
    return info.getQueueName();
  }

  @Override
  public SchedulerMetrics getSchedulerMetrics() {
    return commons.getSchedulerMetrics();
  }

  @Override
  public Tracker getTracker() {
    return commons.getTracker();
  }

  @Override
  public void setSLSRunner(SLSRunner runner) {
    this.runner = runner;
  }

  @Override
  public SLSRunner getSLSRunner() {
    return runner;
  }

  // ------------------------------------------------ what the benchmark reads

  @Override
  public CallTimes callTimes() {
    return times;
  }

  @Override
  public RMContext rmContext() {
    return rmContext;
  }

  @Override
  public Map<String, Long> counters() {
    Map<String, Long> out = new LinkedHashMap<>();
    out.put("engine_allocations", getEngineAllocations());
    out.put("fallback_allocations", getFallbackAllocations());
    out.put("fallback_heartbeats", getFallbackHeartbeats());
    out.put("async_allocations", getAsyncAllocations());
    out.put("engine_failures", getEngineFailures());
    long[] c = getEngineCounters();
    String[] names = {"engine_events", "engine_passes", "engine_decided_allocations",
        "engine_preemptions", "engine_rejected_allocations", "engine_unknown_references"};
    for (int i = 0; i < names.length && i < c.length; i++) {
      out.put(names[i], c[i]);
    }
    return out;
  }

  /**
   * SLS's own wrappers stop their metrics (CSV reporter, realtimetrack.json
   * writer, web app) when the RM stops; the method that does it is
   * package-private in SLSSchedulerCommons, so it is called reflectively.
   * SLS also stops them itself once every app has finished; stopping twice
   * is harmless (SLS's wrappers do the same).
   */
  private void stopSlsMetrics() {
    try {
      Method stop = SLSSchedulerCommons.class.getDeclaredMethod("stopMetrics");
      stop.setAccessible(true);
      stop.invoke(commons);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn("Could not stop SLS's scheduler metrics: " + e);
    }
  }
}
