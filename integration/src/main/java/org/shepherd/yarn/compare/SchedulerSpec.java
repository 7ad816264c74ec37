package org.shepherd.yarn.compare;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.shepherd.yarn.cluster.ShepherdCluster;

/**
 * A scheduler to compare, as named on the harness's command line:
 *
 * <ul>
 *   <li>{@code shepherd:<policy>} — {@code ShepherdScheduler} running one
 *       engine policy in a single leaf queue {@code default}; for a policy
 *       with a shipped config ({@code hadoop-conf/shepherd-<policy>.toml})
 *       that file is used. {@code shepherd:<policy>=<file.toml>} names a
 *       config explicitly.</li>
 *   <li>{@code capacity} — Hadoop's CapacityScheduler, one queue
 *       {@code root.default} with the whole cluster (FIFO inside the queue:
 *       the DRESS paper's baseline).</li>
 *   <li>{@code fair} — Hadoop's FairScheduler with DRF as the queue policy,
 *       one queue {@code root.default}.</li>
 * </ul>
 *
 * <p>A suffix {@code @async=<ms>} on {@code shepherd:...} or {@code capacity}
 * makes that scheduler also allocate between node heartbeats, a round every
 * {@code <ms>} milliseconds: Shepherd's scheduling rounds ({@code
 * yarn.scheduler.shepherd.async-scheduling.interval-ms}) or the
 * CapacityScheduler's asynchronous scheduling thread ({@code
 * schedule-asynchronously}); its label gains {@code -async<ms>}. The
 * CapacityScheduler's node heartbeats then only report (its {@code
 * nodeUpdate} allocates only without that thread); Shepherd's heartbeats
 * still allocate too, unless the suffix is {@code @async-only=<ms>}
 * ({@code async-scheduling.heartbeats-allocate = false}: heartbeats only
 * report and only rounds allocate, as the CapacityScheduler's; label
 * {@code -asynconly<ms>}). The FairScheduler's counterpart (continuous
 * scheduling) is deprecated in Hadoop 3 and not offered.
 *
 * <p>All three let ApplicationMasters use up to half of the cluster (the
 * FairScheduler's default {@code maxAMShare}; the CapacityScheduler's default
 * of 10 % would run one job at a time on a cluster this small) and place
 * several containers per node heartbeat (the FairScheduler's default is one),
 * and round container sizes to the minimum allocation.
 */
public final class SchedulerSpec {
  public final String spec;
  /** A file-name-safe label: {@code shepherd-dress}, {@code capacity}, {@code fair}. */
  public final String label;
  private final String policy;
  private final File toml;
  /** A round between heartbeats every this many ms; 0 = only on heartbeats. */
  private final long asyncIntervalMs;
  /** Shepherd only: with rounds, node heartbeats only report ({@code @async-only=}). */
  private final boolean roundsOnly;

  private static final String ASYNC = "@async=";
  private static final String ASYNC_ONLY = "@async-only=";

  private SchedulerSpec(String spec, String label, String policy, File toml, long asyncIntervalMs,
      boolean roundsOnly) {
    this.spec = spec;
    this.label = asyncIntervalMs == 0 ? label
        : label + (roundsOnly ? "-asynconly" : "-async") + asyncIntervalMs;
    this.policy = policy;
    this.toml = toml;
    this.asyncIntervalMs = asyncIntervalMs;
    this.roundsOnly = roundsOnly;
  }

  /** {@code baseDir}: what a relative config path is relative to. */
  public static SchedulerSpec parse(String spec, File hadoopConfDir, File baseDir) {
    String s = spec.trim();
    long async = 0;
    int atOnly = s.lastIndexOf(ASYNC_ONLY);
    boolean roundsOnly = atOnly >= 0;
    String suffix = roundsOnly ? ASYNC_ONLY : ASYNC;
    int at = roundsOnly ? atOnly : s.lastIndexOf(ASYNC);
    if (at >= 0) {
      String ms = s.substring(at + suffix.length());
      async = Millis.positive(ms);
      if (async <= 0) {
        throw new IllegalArgumentException("scheduler `" + spec + "`: " + suffix + " needs a positive "
            + "number of milliseconds, got `" + ms + "`");
      }
      s = s.substring(0, at);
    }
    if (s.equals("fair") && async > 0) {
      throw new IllegalArgumentException("scheduler `" + spec + "`: " + suffix + " is offered for "
          + "shepherd:<policy> and capacity; the FairScheduler's continuous scheduling is deprecated");
    }
    if (s.equals("capacity") && roundsOnly) {
      throw new IllegalArgumentException("scheduler `" + spec + "`: " + ASYNC_ONLY + " is Shepherd's; "
          + "the CapacityScheduler's heartbeats only report whenever it runs rounds, so write "
          + "capacity" + ASYNC + "<ms>");
    }
    if (s.equals("capacity") || s.equals("fair")) {
      return new SchedulerSpec(spec.trim(), s, null, null, async, false);
    }
    if (s.startsWith("shepherd:")) {
      String rest = s.substring("shepherd:".length());
      String policy = rest;
      File toml = null;
      int eq = rest.indexOf('=');
      if (eq >= 0) {
        policy = rest.substring(0, eq);
        toml = new File(rest.substring(eq + 1));
        if (!toml.isAbsolute()) {
          toml = new File(baseDir, toml.getPath());
        }
        if (!toml.isFile()) {
          throw new IllegalArgumentException("scheduler `" + spec + "`: no config file " + toml);
        }
      } else if (hadoopConfDir != null) {
        File shipped = new File(hadoopConfDir, "shepherd-" + policy + ".toml");
        toml = shipped.isFile() ? shipped : null;
      }
      if (policy.isEmpty()) {
        throw new IllegalArgumentException("scheduler `" + spec + "`: name a policy, e.g. shepherd:dress");
      }
      // A named config file gets its own label (shepherd-dress-reserve.toml →
      // shepherd-dress-reserve), so variants of one policy can run side by side.
      String label = "shepherd-" + policy;
      if (eq >= 0) {
        String stem = toml.getName().replaceFirst("\\.toml$", "").replaceFirst("^shepherd-", "");
        label = stem.startsWith(policy) ? "shepherd-" + stem : label + "-" + stem;
      }
      return new SchedulerSpec(spec.trim(), label, policy, toml, async, roundsOnly);
    }
    throw new IllegalArgumentException("unknown scheduler `" + spec
        + "`; expected shepherd:<policy>[=<file.toml>], capacity or fair, the first two "
        + "optionally with " + ASYNC + "<ms> (Shepherd also " + ASYNC_ONLY + "<ms>)");
  }

  /** Points {@code conf} at this scheduler; files it needs go to {@code workDir}. */
  public void configure(Configuration conf, File workDir) throws IOException {
    if (policy != null) {
      String text = toml != null
          ? new String(Files.readAllBytes(toml.toPath()), StandardCharsets.UTF_8)
          : String.join("\n", "[scheduler]", "policy = \"" + policy + "\"", "",
              "[[queue]]", "name = \"default\"", "capacity = 1.0", "");
      ShepherdCluster.useShepherd(conf, text, workDir);
      // Keep the engine's activity log for `shepherd calibrate`.
      conf.setInt(org.shepherd.yarn.ShepherdScheduler.ACTIVITY_LOG, 1_000_000);
      if (asyncIntervalMs > 0) {
        conf.setLong(org.shepherd.yarn.ShepherdScheduler.ASYNC_INTERVAL_MS, asyncIntervalMs);
        conf.setBoolean(org.shepherd.yarn.ShepherdScheduler.ASYNC_HEARTBEATS_ALLOCATE, !roundsOnly);
      }
    } else if (label.startsWith("capacity")) {
      conf.set(YarnConfiguration.RM_SCHEDULER,
          "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler");
      conf.set("yarn.scheduler.capacity.root.queues", "default");
      conf.set("yarn.scheduler.capacity.root.default.capacity", "100");
      conf.set("yarn.scheduler.capacity.root.default.maximum-capacity", "100");
      conf.set("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5");
      conf.set("yarn.scheduler.capacity.root.default.user-limit-factor", "1");
      if (asyncIntervalMs > 0) {
        conf.setBoolean("yarn.scheduler.capacity.schedule-asynchronously.enable", true);
        conf.setLong("yarn.scheduler.capacity.schedule-asynchronously.scheduling-interval-ms",
            asyncIntervalMs);
      }
    } else {
      File alloc = new File(workDir, "fair-scheduler.xml");
      Files.write(alloc.toPath(), String.join("\n", "<?xml version=\"1.0\"?>",
          "<allocations>",
          "  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>",
          "  <queueMaxAMShareDefault>0.5</queueMaxAMShareDefault>",
          "  <queue name=\"default\"><schedulingPolicy>drf</schedulingPolicy></queue>",
          "</allocations>", "").getBytes(StandardCharsets.UTF_8));
      conf.set(YarnConfiguration.RM_SCHEDULER,
          "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler");
      conf.set("yarn.scheduler.fair.allocation.file", alloc.getAbsolutePath());
      conf.setBoolean("yarn.scheduler.fair.user-as-default-queue", false);
      conf.setBoolean("yarn.scheduler.fair.assignmultiple", true);
      conf.setBoolean("yarn.scheduler.fair.preemption", false);
      // The FairScheduler rounds asks up to its increment (default 1024 MiB),
      // which would give every 512 MiB task a 1 GiB container; round to the
      // minimum allocation as the other schedulers do.
      conf.setInt("yarn.resource-types.memory-mb.increment-allocation",
          conf.getInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 256));
    }
  }

  public String description() {
    String rounds = asyncIntervalMs == 0 ? ""
        : roundsOnly || policy == null
            ? ", allocating in rounds every " + asyncIntervalMs + " ms, heartbeats only report"
            : ", allocating between heartbeats every " + asyncIntervalMs + " ms";
    if (policy != null) {
      return "ShepherdScheduler, policy " + policy + (toml != null ? " (" + toml + ")" : "") + rounds;
    }
    return (label.startsWith("capacity") ? "CapacityScheduler, one queue" : "FairScheduler, DRF, one queue")
        + rounds;
  }
}
