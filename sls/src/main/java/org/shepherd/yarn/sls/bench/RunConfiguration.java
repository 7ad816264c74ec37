package org.shepherd.yarn.sls.bench;

import java.io.File;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacitySchedulerConfiguration;
import org.apache.hadoop.yarn.sls.conf.SLSConfiguration;
import org.apache.hadoop.yarn.sls.scheduler.CapacitySchedulerMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.sls.scheduler.FairSchedulerMetrics;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.sls.ShepherdSlsScheduler;
import org.shepherd.yarn.sls.TimedSlsCapacityScheduler;
import org.shepherd.yarn.sls.TimedSlsFairScheduler;
import org.shepherd.yarn.sls.UnregisterFirstMRAMSimulator;
import org.shepherd.yarn.sls.compare.QueueSetup;

/**
 * The Hadoop configuration of one SLS run: what SLS's sample
 * {@code sls-runner.xml} would hold (it is not in the hadoop-sls jar), the
 * RM's ports, and the scheduler under test with its queues.
 *
 * <p>Every scheduler gets the same cluster view and the same queues
 * ({@link QueueSetup}): for the overhead benchmark's synthetic trace the
 * set-up the comparison harness ({@code scripts/compare-yarn.sh}) gives them,
 * one queue {@code default} with the whole cluster, ApplicationMasters may
 * take up to half of it, several containers per heartbeat (the
 * CapacityScheduler's default multiple assignments; Shepherd's {@code
 * max_assignments_per_heartbeat = 0}); for an SLS trace its queues, each
 * guaranteed an equal share. Everything else is each scheduler's default.
 */
final class RunConfiguration {
  private RunConfiguration() {}

  static Configuration of(RunOptions o, QueueSetup queues) throws IOException {
    Configuration conf = new Configuration();
    // SLS's runner: simulated NMs and AMs.
    conf.setInt(SLSConfiguration.RUNNER_POOL_SIZE, o.runnerThreads);
    conf.setInt(SLSConfiguration.NM_MEMORY_MB, o.nmMemoryMb);
    conf.setInt(SLSConfiguration.NM_VCORES, o.nmVcores);
    conf.setInt(SLSConfiguration.NM_HEARTBEAT_INTERVAL_MS, o.nmHeartbeatMs);
    conf.setInt(SLSConfiguration.AM_HEARTBEAT_INTERVAL_MS, o.amHeartbeatMs);
    // SLS's MapReduce AM, unregistering before its AM container ends (SLS's
    // own releases the container first and can fail every attempt; see the
    // class), for every scheduler alike.
    conf.set(SLSConfiguration.AM_TYPE_PREFIX + "mapreduce",
        UnregisterFirstMRAMSimulator.class.getName());
    conf.setInt(SLSConfiguration.CONTAINER_MEMORY_MB, o.containerMb);
    conf.setInt(SLSConfiguration.CONTAINER_VCORES, o.containerVcores);
    conf.setInt(SLSConfiguration.AM_CONTAINER_MEMORY, o.containerMb);
    conf.setInt(SLSConfiguration.AM_CONTAINER_VCORES, o.containerVcores);
    // SLS's metrics: on (its timers and CSVs are part of what is compared),
    // its web app on a port the kernel picks.
    conf.setBoolean(SLSConfiguration.METRICS_SWITCH, true);
    conf.setInt(SLSConfiguration.METRICS_WEB_ADDRESS_PORT, 0);

    // The in-process RM binds real RPC and web ports: port 0 lets the kernel
    // pick each (as MiniYARNCluster does), so runs and tests never collide
    // with each other or a local YARN. (Picking "free" ports in advance
    // raced: one run lost a port to another listener between pick and bind.)
    conf.set(YarnConfiguration.RM_ADDRESS, "localhost:0");
    conf.set(YarnConfiguration.RM_SCHEDULER_ADDRESS, "localhost:0");
    conf.set(YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS, "localhost:0");
    conf.set(YarnConfiguration.RM_ADMIN_ADDRESS, "localhost:0");
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "localhost:0");
    conf.setBoolean("hadoop.security.token.service.use_ip", false);
    // The RM's node-attribute store (empty here) goes with the run's output:
    // its default is /tmp/hadoop-yarn-${user.name}, which nothing deletes.
    conf.set(YarnConfiguration.FS_NODE_ATTRIBUTE_STORE_ROOT_DIR,
        new File(o.out, "node-attribute").toURI().toString());
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, o.containerMb);
    // The RM forgets completed apps beyond its default 1 000; the run reads
    // every app's record at the end (JobRecorder), so it keeps them all.
    conf.setInt(YarnConfiguration.RM_MAX_COMPLETED_APPLICATIONS, 1_000_000);

    if (o.scheduler.equals("shepherd")) {
      conf.set(YarnConfiguration.RM_SCHEDULER, ShepherdSlsScheduler.class.getName());
      conf.set(ShepherdScheduler.NATIVE_LIBRARY, o.nativeLibrary.getAbsolutePath());
      conf.set(ShepherdScheduler.CONFIG_FILE, shepherdConfig(o, queues).getAbsolutePath());
      if (o.asyncIntervalMs > 0) {
        // Shepherd's rounds between heartbeats, at most
        // async-scheduling.max-nodes (default 100) nodes each.
        conf.setLong(ShepherdScheduler.ASYNC_INTERVAL_MS, o.asyncIntervalMs);
        conf.setBoolean(ShepherdScheduler.ASYNC_HEARTBEATS_ALLOCATE, !o.roundsOnly);
      }
    } else if (o.scheduler.equals("fair")) {
      conf.set(YarnConfiguration.RM_SCHEDULER, TimedSlsFairScheduler.class.getName());
      conf.set(FairScheduler.class.getName(), FairSchedulerMetrics.class.getName());
      queues.fair(conf, new File(o.out, "work"));
      // The FairScheduler rounds asks up to its increment (default 1024
      // MiB); round to the minimum allocation as the other schedulers do.
      conf.setInt("yarn.resource-types.memory-mb.increment-allocation", o.containerMb);
    } else {
      conf.set(YarnConfiguration.RM_SCHEDULER, TimedSlsCapacityScheduler.class.getName());
      conf.set(CapacityScheduler.class.getName(), CapacitySchedulerMetrics.class.getName());
      queues.capacity(conf);
      // Off by default: the CapacityScheduler places at most one off-switch
      // container per node heartbeat and waits node-locality-delay missed
      // opportunities before leaving a preferred node; the benchmark's
      // "multi" variant lifts both, to place as many containers per
      // heartbeat as fit, as Shepherd does.
      if (o.capacityOffswitchPerHeartbeat > 0) {
        conf.setInt("yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments",
            o.capacityOffswitchPerHeartbeat);
      }
      if (o.capacityNodeLocalityDelay != null) {
        conf.setInt("yarn.scheduler.capacity.node-locality-delay", o.capacityNodeLocalityDelay);
      }
      if (o.asyncIntervalMs > 0) {
        // The CapacityScheduler's own allocation between heartbeats: one
        // thread (its default) proposes over every node, its committer
        // thread commits; node heartbeats then only report.
        conf.setBoolean(CapacitySchedulerConfiguration.SCHEDULE_ASYNCHRONOUSLY_ENABLE, true);
        conf.setLong(CapacitySchedulerConfiguration.SCHEDULE_ASYNCHRONOUSLY_INTERVAL,
            o.asyncIntervalMs);
      }
      // What RMRunner sets when it swaps in SLSCapacityScheduler itself, for
      // the overhead benchmark (one queue: nothing to preempt). The
      // scheduler comparison keeps YARN's default, no preemption monitor, as
      // neither the FairScheduler nor Shepherd preempts there, unless the
      // run asks for it (--preemption, as Shepherd's queues then do): the
      // monitor with every one of its defaults
      // (monitoring_interval 3000, max_wait_before_kill 15000,
      // total_preemption_per_round 0.1, max_ignored_over_capacity 0.1,
      // natural_termination_factor 0.2).
      if (o.traceType.equals("synth") || o.preemption) {
        conf.setBoolean(YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS, true);
        conf.set(YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES,
            ProportionalCapacityPreemptionPolicy.class.getName());
      }
    }
    return conf;
  }

  /**
   * The given config, or {@code policy} on the run's queues (with the
   * {@code --pipelines} file's pipelines after them) written to {@code
   * work/shepherd.toml} in the run's directory (where {@code shepherd
   * calibrate} reads a Shepherd run's configuration).
   */
  private static File shepherdConfig(RunOptions o, QueueSetup queues) throws IOException {
    if (o.shepherdConfig != null) {
      return o.shepherdConfig;
    }
    String toml = queues.shepherdToml(o.policy, 0, o.preemption);
    if (o.pipelines != null) {
      toml += "\n# The pipelines of " + o.pipelines.getName() + " (--pipelines):\n"
          + new String(java.nio.file.Files.readAllBytes(o.pipelines.toPath()), java.nio.charset.StandardCharsets.UTF_8);
    }
    return QueueSetup.write(new File(o.out, "work/shepherd.toml"), toml);
  }
}
