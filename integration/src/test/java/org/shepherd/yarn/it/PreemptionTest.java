package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * Queue-guarantee preemption on a real cluster ({@code [preemption]},
 * {@code docs/operations.md}): queue {@code a} fills the cluster with long
 * maps while {@code b}, guaranteed half of it and allowed to preempt, is
 * idle; then {@code b} submits. Checks that nothing is preempted while only
 * {@code a} runs; that {@code b}'s job then gets its room by preemption and
 * finishes while {@code a}'s is still running; that {@code a}'s
 * ApplicationMaster is spared (its job keeps its one attempt); and that both
 * jobs SUCCEED, {@code a}'s preempted maps re-run by its AM.
 *
 * <p>Two NodeManagers of 2.5 GiB and 4 vcores: {@code a}'s AM and seven maps
 * (a vcore each) fill them, so {@code b}'s AM and maps can only start on
 * room taken back from {@code a}.
 */
public class PreemptionTest {
  private static final String CONFIG = String.join("\n",
      "[scheduler]",
      "policy = \"drf\"",
      "[preemption]",
      "interval_ms = 1000",
      "wait_before_kill_ms = 4000",
      "max_per_round = 0.5",
      "[[queue]]",
      "name = \"a\"",
      "capacity = 0.5",
      "[[queue]]",
      "name = \"b\"",
      "capacity = 0.5",
      "preemption = true",
      "");
  private static final int NM_MB = 2560;
  private static final int NM_VCORES = 4;

  private static ShepherdCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = ShepherdCluster.start("preemption", CONFIG, conf -> {
      conf.setInt(YarnConfiguration.NM_PMEM_MB, NM_MB);
      conf.setInt(YarnConfiguration.YARN_MINICLUSTER_NM_PMEM_MB, NM_MB);
    });
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 600_000)
  public void aStarvedQueueTakesItsGuaranteeBackAndEveryJobSucceeds() throws Exception {
    ShepherdScheduler s = cluster.scheduler();
    Job a = Workloads.submitSleep(cluster.jobConf(), "alice", "a", 10, 0, 25_000, 0);
    // a alone fills the cluster; a few preemption rounds pass with no mark.
    waitFor("queue a fills the cluster", () -> queueVcores("a") >= 2 * NM_VCORES);
    Thread.sleep(3_000);
    assertEquals("nothing is marked while no queue is starved", 0.0,
        s.getEngineGauge("preemption_marked_containers_total"), 0.0);
    assertTrue("rounds ran", s.getEngineGauge("preemption_rounds_total") > 0);

    long submitted = System.currentTimeMillis();
    Job b = Workloads.submitSleep(cluster.jobConf(), "bob", "b", 2, 0, 1_000, 0);
    printTimeline(b, submitted);
    assertTrue("b's job succeeded", waitForJob(b));
    assertTrue("b finished while a's long maps still ran", !a.isComplete());
    assertTrue("a's containers were preempted for b",
        s.getEngineGauge("preemption_killed_containers_total") >= 1);
    assertTrue("a's job succeeded, its preempted maps re-run", waitForJob(a));

    RMApp appA = cluster.rm().getRMContext().getRMApps().get(appId(a));
    assertEquals("a's ApplicationMaster was spared: one attempt", 1,
        appA.getAppAttempts().size());
    JsonNode p = cluster.engineState().path("preemption");
    assertEquals("the state view shows the marks' reasons per queue", "b",
        p.path("queues").path(1).path("queue").asText());
    assertTrue(p.path("queues").path(1).path("reclaims").asBoolean());
    assertEquals("nothing fell back to the safe FIFO", 0, s.getFallbackAllocations());
    assertEquals("the engine never failed", 0, s.getEngineFailures());
  }

  /**
   * How long b waited, for the closing notes (printed, not asserted: tests
   * never assert on wall time): from submission to its AM's container, from
   * its AM's first map ask to the maps' containers.
   */
  private static void printTimeline(Job b, long submitted) throws Exception {
    long amAt = -1;
    long askedAt = -1;
    long mapsAt = -1;
    while (!b.isComplete() && mapsAt < 0) {
      JsonNode app = cluster.engineApp(appId(b));
      long now = System.currentTimeMillis();
      int running = app == null ? 0 : app.path("running_containers").asInt();
      int pending = app == null ? 0 : app.path("pending_containers").asInt();
      if (amAt < 0 && running >= 1) {
        amAt = now;
      }
      if (amAt >= 0 && askedAt < 0 && pending > 0) {
        askedAt = now;
      }
      if (askedAt >= 0 && running >= 3) {
        mapsAt = now;
      }
      Thread.sleep(100);
    }
    System.out.printf("PreemptionTest timeline: b's AM placed %.1f s after submission;"
        + " its maps %.1f s after they were asked for (rounds every 1 s, wait 4 s)%n",
        (amAt - submitted) / 1e3, askedAt < 0 || mapsAt < 0 ? Double.NaN : (mapsAt - askedAt) / 1e3);
  }

  private static ApplicationId appId(Job job) {
    return ApplicationId.fromString(job.getJobID().toString().replace("job_", "application_"));
  }

  private static long queueVcores(String queue) throws Exception {
    for (JsonNode q : cluster.engineState().path("queues")) {
      if (q.path("name").asText().equals(queue)) {
        return q.path("allocated").path(1).asLong();
      }
    }
    return 0;
  }

  private static boolean waitForJob(Job job) throws Exception {
    return Workloads.as(job.getUser(), () -> job.waitForCompletion(false));
  }

  private interface Check {
    boolean done() throws Exception;
  }

  private static void waitFor(String what, Check check) throws Exception {
    long deadline = System.nanoTime() + 180_000_000_000L;
    while (!check.done()) {
      assertTrue("timed out waiting: " + what, System.nanoTime() < deadline);
      Thread.sleep(200);
    }
  }
}
