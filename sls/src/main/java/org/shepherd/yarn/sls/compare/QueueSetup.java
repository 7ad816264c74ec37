package org.shepherd.yarn.sls.compare;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * The same queues for every scheduler of a comparison, set up as an operator
 * would: each of the trace's N queues is guaranteed 1/N of the cluster and
 * may grow to all of it when the others leave room; ApplicationMasters may
 * take up to half of a queue.
 *
 * <ul>
 *   <li>CapacityScheduler: {@code capacity} 100/N, {@code maximum-capacity}
 *       100, {@code maximum-am-resource-percent} 0.5, the default
 *       {@code minimum-user-limit-percent} (100) and a {@code
 *       user-limit-factor} of N, so a queue's one user may use what the
 *       queue may (with YARN's default factor of 1 a lone user stops at the
 *       queue's guarantee and the cluster idles next to pending work); its
 *       default resource calculator (memory) and its default of one
 *       off-switch container per node heartbeat.
 *   <li>FairScheduler: every queue weight 1 under DRF, {@code
 *       queueMaxAMShareDefault} 0.5, several containers per heartbeat
 *       ({@code assignmultiple}, as the real-cluster harness sets it), no
 *       preemption (none of the three preempts here, unless a run asks
 *       for the CapacityScheduler's monitor or Shepherd's queue-guarantee
 *       preemption: {@code SlsBenchRun --preemption}).
 *   <li>Shepherd: {@code [[queue]]} tables with {@code capacity} 1/N,
 *       {@code max_capacity} 1, weight 1 ({@code max_am_share} defaults to
 *       0.5).
 * </ul>
 *
 * <p>With one queue {@code default} (the overhead benchmark's synthetic
 * trace) this is the benchmark's long-standing set-up: the whole cluster in
 * one queue, user-limit-factor 1.
 *
 * <p>Each run also gets {@code counterpart.toml}: the Shepherd configuration
 * whose policy stands in for the CapacityScheduler ({@code capacity}, at most
 * one container per heartbeat) or the FairScheduler ({@code drf}) in
 * Shepherd's simulator ({@code shepherd calibrate --cluster-model sls}).
 */
public final class QueueSetup {
  private final List<String> queues;

  public QueueSetup(List<String> queues) {
    if (queues.isEmpty()) {
      throw new IllegalArgumentException("no queues");
    }
    this.queues = new ArrayList<>(queues);
  }

  public List<String> queues() {
    return queues;
  }

  /** Guaranteed share of each queue, in percent; the shares add up to exactly 100. */
  private String capacityPercent(int i) {
    int n = queues.size();
    double each = Math.floor(10000.0 / n) / 100.0;
    double last = 100.0 - each * (n - 1);
    return String.format(Locale.ROOT, "%.2f", i == n - 1 ? last : each);
  }

  public void capacity(Configuration conf) {
    String p = "yarn.scheduler.capacity.root.";
    conf.set(p + "queues", String.join(",", queues));
    for (int i = 0; i < queues.size(); i++) {
      String q = p + queues.get(i) + ".";
      conf.set(q + "capacity", capacityPercent(i));
      conf.set(q + "maximum-capacity", "100");
      conf.set(q + "user-limit-factor", Integer.toString(queues.size()));
    }
    conf.set("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5");
  }

  /** Writes {@code fair-scheduler.xml} into {@code dir} and points {@code conf} at it. */
  public void fair(Configuration conf, File dir) throws IOException {
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<allocations>\n")
        .append("  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>\n")
        .append("  <queueMaxAMShareDefault>0.5</queueMaxAMShareDefault>\n");
    for (String q : queues) {
      xml.append("  <queue name=\"").append(q).append("\"><weight>1.0</weight>")
          .append("<schedulingPolicy>drf</schedulingPolicy></queue>\n");
    }
    xml.append("</allocations>\n");
    File alloc = write(new File(dir, "fair-scheduler.xml"), xml.toString());
    conf.set("yarn.scheduler.fair.allocation.file", alloc.getAbsolutePath());
    conf.setBoolean("yarn.scheduler.fair.user-as-default-queue", false);
    conf.setBoolean("yarn.scheduler.fair.allow-undeclared-pools", false);
    conf.setBoolean("yarn.scheduler.fair.assignmultiple", true);
    conf.setBoolean("yarn.scheduler.fair.preemption", false);
  }

  /** Shepherd's config for {@code policy} on these queues. */
  public String shepherdToml(String policy, int maxAssignmentsPerHeartbeat) {
    return shepherdToml(policy, maxAssignmentsPerHeartbeat, false);
  }

  /**
   * Shepherd's config for {@code policy} on these queues; with {@code
   * preemption} every queue takes its guarantee back ({@code preemption =
   * true}, the {@code [preemption]} defaults), as the CapacityScheduler's
   * preemption monitor protects every queue's guarantee.
   */
  public String shepherdToml(String policy, int maxAssignmentsPerHeartbeat, boolean preemption) {
    StringBuilder t = new StringBuilder("# Written by Shepherd's SLS runner (QueueSetup): the\n")
        .append("# comparison's queues, every other key Shepherd's default.\n")
        .append("[scheduler]\npolicy = \"").append(policy).append("\"\n");
    if (maxAssignmentsPerHeartbeat > 0) {
      t.append("max_assignments_per_heartbeat = ").append(maxAssignmentsPerHeartbeat).append('\n');
    }
    double share = 1.0 / queues.size();
    for (String q : queues) {
      t.append("\n[[queue]]\nname = \"").append(q).append("\"\n")
          .append(String.format(Locale.ROOT, "capacity = %.6f%n", share))
          .append("max_capacity = 1.0\nweight = 1.0\n");
      if (preemption) {
        t.append("preemption = true\n");
      }
    }
    return t.toString();
  }

  /** The engine policy standing in for {@code scheduler} in Shepherd's simulator. */
  public String counterpartToml(String scheduler) {
    // The CapacityScheduler places at most one off-switch container per node
    // heartbeat by default, and SLS's AMs ask for any host (off-switch).
    return scheduler.equals("capacity") ? shepherdToml("capacity", 1) : shepherdToml("drf", 0);
  }

  public static File write(File f, String text) throws IOException {
    File parent = f.getParentFile();
    if (parent != null && !parent.isDirectory() && !parent.mkdirs()) {
      throw new IOException("cannot create " + parent);
    }
    Files.write(f.toPath(), text.getBytes(StandardCharsets.UTF_8));
    return f;
  }
}
