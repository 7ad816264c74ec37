package org.shepherd.yarn.sls;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.sls.scheduler.SLSCapacityScheduler;

/**
 * The benchmark's baseline: SLS's own CapacityScheduler wrapper, unchanged,
 * plus the same whole-run call timing {@link ShepherdSlsScheduler} records,
 * taken at the same point (around the real scheduler's method, inside SLS's
 * timer). Naming this class as the RM's scheduler bypasses the swap RMRunner
 * makes for {@code CapacityScheduler}, so the benchmark runner sets the two
 * keys that swap would (the scheduling monitor with the proportional
 * preemption policy) itself.
 */
public class TimedSlsCapacityScheduler extends SLSCapacityScheduler implements MeasuredScheduler {
  private final CallTimes times = new CallTimes();

  @Override
  public void serviceInit(Configuration conf) throws Exception {
    super.serviceInit(conf);
    MeasuredScheduler.announce(this);
  }

  @Override
  public void handle(SchedulerEvent event) {
    times.event(event.getType(), true, () -> super.handle(event));
  }

  @Override
  public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> asks,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
      List<String> blacklistAdditions, List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    return times.allocate(true, () -> super.allocate(attemptId, asks, schedulingRequests,
        release, blacklistAdditions, blacklistRemovals, updateRequests));
  }

  @Override
  public void propagatedHandle(SchedulerEvent event) {
    times.event(event.getType(), false, () -> super.propagatedHandle(event));
  }

  @Override
  public Allocation allocatePropagated(ApplicationAttemptId attemptId,
      List<ResourceRequest> asks, List<SchedulingRequest> schedulingRequests,
      List<ContainerId> release, List<String> blacklistAdditions,
      List<String> blacklistRemovals, ContainerUpdates updateRequests) {
    return times.allocate(false, () -> super.allocatePropagated(attemptId, asks,
        schedulingRequests, release, blacklistAdditions, blacklistRemovals, updateRequests));
  }

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
    return Collections.emptyMap();
  }
}
