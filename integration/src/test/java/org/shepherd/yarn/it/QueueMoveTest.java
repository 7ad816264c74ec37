package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * {@code yarn application -movetoqueue} on a running MapReduce job, through
 * the RPC the command sends (YarnClient#moveApplicationAcrossQueues): a move
 * to a queue Shepherd does not have is refused naming it; the real move
 * hands the job from alpha's DRESS pipeline to beta's Carbyne pipeline; the
 * RM, YARN's queue metrics and Shepherd's queue usage all follow it; the job
 * finishes in beta and both queues end with nothing held.
 */
public class QueueMoveTest {
  private static final String CONFIG = String.join("\n",
      "[scheduler]",
      "queue_order = \"drf\"",
      "[[queue]]",
      "name = \"alpha\"",
      "capacity = 0.5",
      "policy = \"dress\"",
      "[[queue]]",
      "name = \"beta\"",
      "capacity = 0.5",
      "policy = \"carbyne\"",
      "");

  private static ShepherdCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = ShepherdCluster.start("queuemove", CONFIG,
        conf -> conf.setBoolean("hadoop.prometheus.endpoint.enabled", true));
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 600_000)
  public void aRunningJobMovesToAnotherQueueAndFinishesThere() throws Exception {
    ShepherdScheduler s = cluster.scheduler();
    Job job = Workloads.submitSleep(cluster.jobConf(), "alice", "alpha", 6, 1, 8_000, 1_000);
    ApplicationId app = ApplicationId.fromString(
        job.getJobID().toString().replace("job_", "application_"));
    waitFor("the job runs tasks in alpha", () -> engineApp(app).path("running_containers").asInt() >= 2);
    assertEquals("alpha", engineApp(app).path("queue").asText());
    assertTrue("DRESS tracks it: " + dressApps(), dressApps().toString().contains("\"app\""));
    QueueMetrics alpha = s.getSchedulerApplications().get(app).getQueue().getMetrics();

    assertEquals("root.alpha", cluster.rest("/ws/v1/cluster/apps/" + app).path("app").path("queue").asText());
    try (YarnClient client = cluster.yarnClient()) {
      try {
        client.moveApplicationAcrossQueues(app, "nope");
        fail("a move to an unknown queue must be refused");
      } catch (YarnException expected) {
        // The RM's ClientRMService refuses first (it asks the scheduler's
        // checkAccess for the target queue, false for a queue it lacks).
        assertTrue(expected.getMessage(), expected.getMessage().contains("target queue doesn't exist: nope"));
      }
      assertEquals("the refused move left it in alpha", "alpha", engineApp(app).path("queue").asText());
      client.moveApplicationAcrossQueues(app, "beta");
    }

    // The RM's record, Shepherd's queue usage and YARN's queue metrics.
    assertEquals("root.beta", cluster.rest("/ws/v1/cluster/apps/" + app).path("app").path("queue").asText());
    assertEquals(0f, usedShare(s, "alpha"), 0f);
    assertTrue(usedShare(s, "beta") > 0f);
    assertEquals("beta", s.getSchedulerApplications().get(app).getQueue().getQueueName());
    QueueMetrics beta = s.getSchedulerApplications().get(app).getQueue().getMetrics();
    assertEquals(0, alpha.getAllocatedMB());
    assertEquals(0, alpha.getAppsRunning());
    assertTrue(beta.getAllocatedMB() > 0);
    assertEquals(1, beta.getAppsRunning());

    // The engine learns of the move with the next heartbeat's batch: the
    // app is then beta's, Carbyne plans for it and DRESS let go of it.
    waitFor("the engine moves the app to beta", () -> engineApp(app).path("queue").asText().equals("beta"));
    JsonNode pipeline = engineApp(app).path("pipeline");
    assertEquals(pipeline.toString(), "carbyne", pipeline.path("policy").asText());
    assertTrue(pipeline.toString(), pipeline.has("classify.carbyne"));
    assertEquals("DRESS in alpha holds nothing for it", 0, dressApps().size());

    assertTrue("the job succeeded in beta", job.waitForCompletion(false));
    // Its AM container ends a moment after the job reports success.
    waitFor("beta's metrics count the finished app", () -> beta.getAppsCompleted() == 1);
    waitFor("beta holds nothing", () -> usedShare(s, "beta") == 0f);
    assertEquals("alpha holds nothing (not less)", 0f, usedShare(s, "alpha"), 0f);
    assertEquals(0, beta.getAllocatedMB());
    assertEquals(0, alpha.getAllocatedMB());
    assertEquals(0, alpha.getAppsCompleted());
    JsonNode counters = cluster.engineState().path("counters");
    assertEquals(counters.toString(), 0, counters.path("unknown_references").asInt());
    assertEquals(counters.toString(), 1, counters.path("app_moves").asInt());
    // What SREs see at the RM's /prom (metrics2 publishes a snapshot each
    // period, so it may lag the counter).
    waitFor("/prom counts the move", () -> promAppMoves() == 1.0);
    assertEquals("no engine failures", 0, s.getEngineFailures());
    assertEquals("no fallback allocations", 0, s.getFallbackAllocations());
  }

  /** {@code shepherd_engine_app_moves_total} at the RM's /prom (0 before its first snapshot). */
  private static double promAppMoves() {
    try {
      Double v = DressMetricsTest.value(DressMetricsTest.parse(cluster.page("/prom")),
          "shepherd_engine_app_moves_total", null);
      return v == null ? 0 : v;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Shepherd's queue usage, as {@code yarn queue -status} reports it. */
  private static float usedShare(ShepherdScheduler s, String queue) {
    try {
      return s.getQueueInfo(queue, false, false).getCurrentCapacity();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** The engine's view of {@code app} ({@code MissingNode} until it knows it). */
  private static JsonNode engineApp(ApplicationId app) {
    try {
      JsonNode a = cluster.engineApp(app);
      return a == null ? new ObjectMapper().missingNode() : a;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** The apps DRESS in alpha tracks (its reserve's state). */
  private static JsonNode dressApps() throws Exception {
    for (JsonNode p : cluster.engineState().path("pipelines")) {
      if (p.path("queue").asText().equals("alpha")) {
        return p.path("plugins").path("reserve").path("state").path("apps");
      }
    }
    throw new AssertionError("no pipeline for alpha");
  }

  private static void waitFor(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 120_000;
    while (!done.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        fail("timed out waiting: " + what);
      }
      Thread.sleep(200);
    }
  }
}
