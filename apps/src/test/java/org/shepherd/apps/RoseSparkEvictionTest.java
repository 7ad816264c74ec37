package org.shepherd.apps;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppMetrics;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * ROSE takes back a Spark executor it placed speculatively, on a real
 * cluster (issue 65, item 3): YARN reports the container PREEMPTED, Spark
 * counts the lost tasks as not the application's fault, re-runs them, and
 * the application succeeds.
 *
 * <p>Two NodeManagers of 4 GiB / 4 vcores that measure their containers'
 * use (each accounts for half of this machine's CPU, so one busy core is
 * its 4 vcores). Alice's SleepJob holds an AM of 768 MiB and two maps of
 * 3 GiB that sleep: one node keeps 256 MiB unallocated, the other 1 GiB,
 * which the Spark driver (the AM, 1 GiB) takes. That layout is fixed
 * twice over: ROSE places nothing speculatively while the free room
 * left can serve what is still asked (§III-A; here the other node's room
 * for the second map), and the memory bound below keeps a node's
 * speculative room under one map (before the first, one CI run in six put
 * alice's second map speculatively beside her first; Spark's executors
 * then found guaranteed room and were never evicted). Spark's two 1 GiB
 * executors then fit nowhere in the allocated view: only ROSE's
 * over-subscription places them, on measured room. Their tasks each keep a
 * core busy (BusyStage), the node's measured CPU crosses the eviction
 * bound (half the node's vcores), and once it has stayed over it for
 * {@code evict_after_ms} ROSE evicts the executor. Spark re-asks, ROSE
 * places again when the node's load has fallen, and so on, until the test
 * ends Alice's job and Spark's asks get guaranteed room.
 */
public class RoseSparkEvictionTest {
  static final String CONFIG = String.join("\n",
      "[scheduler]",
      "policy = \"rose\"",
      "",
      "[[queue]]",
      "name = \"default\"",
      "capacity = 1.0",
      "",
      "[rose]",
      "# Two nodes: excluding the K = 3 most penalised would exclude both.",
      "top_k = 0",
      "# One busy core is a node's 4 vcores here: place while the level",
      "# leaves room under half of them, evict when use stays over half.",
      "bound_vcores = 0.5",
      "evict_vcores = 0.5",
      "# Speculative room is at most 0.7 x 4 GiB = 2867 MiB, less than one of",
      "# alice's 3 GiB maps: her second map cannot be placed speculatively",
      "# beside her first on the node that heartbeats first (its measured",
      "# use is still zero), so it waits for guaranteed room on the other.",
      "bound_memory = 0.7",
      "# Long enough for an executor's JVM start-up and its first tasks.",
      "evict_after_ms = 12000",
      "# A node's level forgets an evicted executor's use within 10 s.",
      "window_ms = 10000",
      "");

  private static final String NAME = "spark-busy";
  private static final int TASKS = 4;
  private static final long TASK_MS = 20_000;

  private static ShepherdCluster cluster;
  private static File workDir;
  private static SparkOnYarn spark;
  private static ExecutorService background;

  @BeforeClass
  public static void startCluster() throws Exception {
    workDir = Files.createTempDirectory("shepherd-apps-rose").toFile();
    Configuration conf = ShepherdCluster.baseConf(CONFIG, workDir);
    ShepherdCluster.measureContainerUse(conf, ShepherdCluster.NODE_MANAGERS);
    cluster = ShepherdCluster.start("rose-spark", conf, ShepherdCluster.NODE_MANAGERS, workDir);
    SparkOnYarn.writeHadoopConfDir(cluster.conf);
    spark = new SparkOnYarn(cluster.conf, workDir, Map.of());
    background = Executors.newSingleThreadExecutor();
  }

  @AfterClass
  public static void stopCluster() {
    ClusterTeardown.stop(background, cluster, workDir);
  }

  @Test(timeout = 480_000)
  public void evictedExecutorsTasksAreRerunAndTheAppSucceeds() throws Exception {
    JobConf hogConf = cluster.jobConf();
    hogConf.setInt(MRJobConfig.MAP_MEMORY_MB, 3072);
    hogConf.set(MRJobConfig.MAP_JAVA_OPTS, "-Xmx256m "
        + System.getProperty("shepherd.jdk17.opens", ""));
    // Maps that would sleep 5 minutes: the test ends the job once ROSE has
    // evicted twice (or after 3 minutes), so the run does not wait on it.
    Job hog = Workloads.submitSleep(hogConf, "alice", "default", 2, 0, 300_000, 0);
    String hogId = hog.getJobID().toString().replace("job_", "application_");
    waitFor("alice's AM and two maps running", 120_000,
        () -> liveContainers(appById(hogId)) >= 3);
    assertEquals("alice's containers all have guaranteed room (the layout above): "
        + roseState(), 0, roseState().path("speculative_total").asInt());

    File events = new File(workDir, "spark-events");
    events.mkdirs();
    Map<String, String> conf = new HashMap<>();
    conf.put("spark.dynamicAllocation.enabled", "false");
    conf.put("spark.executor.instances", "2");
    conf.put("spark.eventLog.enabled", "true");
    conf.put("spark.eventLog.dir", events.toURI().toString());
    Future<?> app = background.submit(() -> {
      spark.submit(NAME, "default", "org.shepherd.apps.spark.BusyStage", conf,
          Integer.toString(TASKS), Long.toString(TASK_MS));
      return null;
    });

    // Evictions so far, every second, for the failure message and the log.
    List<String> trace = new ArrayList<>();
    long deadline = System.currentTimeMillis() + 180_000;
    while (System.currentTimeMillis() < deadline && !app.isDone()) {
      RMApp a = ClusterAssertions.app(cluster, NAME);
      int preempted = a == null ? 0 : a.getRMAppMetrics().getNumNonAMContainersPreempted();
      trace.add(preempted + "/" + liveContainers(a) + "/" + roseState().path("speculative_total").asInt());
      if (preempted >= 2) {
        break;
      }
      Thread.sleep(1000);
    }
    System.out.println("spark executors preempted / live containers / speculative placed, every second: "
        + trace);
    // Alice's job has done its part: end it so Spark's asks get guaranteed room.
    Workloads.as("alice", () -> {
      hog.killJob();
      return null;
    });
    try {
      app.get(300, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      fail(NAME + " failed: " + e.getCause() + "; evictions " + trace + "; ROSE " + roseState());
    }

    ClusterAssertions.assertSucceeded(cluster, NAME, "SPARK");
    RMAppMetrics m = ClusterAssertions.app(cluster, NAME).getRMAppMetrics();
    JsonNode rose = roseState();
    assertTrue("ROSE evicted Spark executors (the RM booked them PREEMPTED): " + trace
        + "; ROSE " + rose, m.getNumNonAMContainersPreempted() >= 1);
    assertEquals("the Spark driver (the AM) is never speculative", 0,
        m.getNumAMContainersPreempted());
    assertEquals("alice's guaranteed containers were never taken back", 0,
        appById(hogId).getRMAppMetrics().getNumNonAMContainersPreempted());
    assertTrue("ROSE counted its evictions: " + rose,
        rose.path("evictions_total").asInt() >= m.getNumNonAMContainersPreempted());

    // Spark's own record (its event log): tasks lost with an executor that
    // YARN preempted, not counted as the application's failure, and every
    // task's index then succeeded in a later attempt.
    Map<Integer, List<String>> attempts = taskEnds(events);
    System.out.println("task attempts by index: " + attempts);
    TreeSet<Integer> lost = new TreeSet<>();
    for (Map.Entry<Integer, List<String>> e : attempts.entrySet()) {
      List<String> ends = e.getValue();
      assertEquals("task " + e.getKey() + " succeeded once, last: " + ends, 1,
          ends.stream().filter("Success"::equals).count());
      assertEquals("task " + e.getKey() + "'s last attempt succeeded: " + ends, "Success",
          ends.get(ends.size() - 1));
      for (String end : ends) {
        if (!end.equals("Success")) {
          assertTrue("a task attempt ended only by a preempted executor: " + end,
              end.startsWith("ExecutorLostFailure") && end.contains("caused by app false")
                  && end.contains("preempted"));
          lost.add(e.getKey());
        }
      }
    }
    assertEquals("every task of the stage ran", TASKS, attempts.size());
    assertTrue("an evicted executor was running tasks, which Spark re-ran: " + attempts
        + "; evictions " + trace, !lost.isEmpty());
    ClusterAssertions.assertEverythingPlacedByTheEngine(cluster);
  }

  // ---- helpers ---------------------------------------------------------

  /**
   * Each task index's attempts in the order they ended, from the event
   * logs under {@code dir}: "Success", or the end reason with Spark's
   * executor-loss details.
   */
  private static Map<Integer, List<String>> taskEnds(File dir) throws Exception {
    ObjectMapper json = new ObjectMapper();
    Map<Integer, List<String>> byIndex = new TreeMap<>();
    File[] logs = dir.listFiles();
    assertNotNull("Spark's event log directory", logs);
    for (File log : logs) {
      for (String line : Files.readAllLines(log.toPath(), StandardCharsets.UTF_8)) {
        JsonNode e = json.readTree(line);
        if (!"SparkListenerTaskEnd".equals(e.path("Event").asText())) {
          continue;
        }
        JsonNode reason = e.path("Task End Reason");
        String end = reason.path("Reason").asText();
        if (end.equals("ExecutorLostFailure")) {
          end += " caused by app " + reason.path("Exit Caused By App").asBoolean()
              + ": " + reason.path("Loss Reason").asText();
        }
        byIndex.computeIfAbsent(e.path("Task Info").path("Index").asInt(),
            i -> new ArrayList<>()).add(end);
      }
    }
    return byIndex;
  }

  private static JsonNode roseState() throws Exception {
    JsonNode state = new ObjectMapper().readTree(cluster.scheduler().getEngineStateJson());
    return state.path("pipelines").path(0).path("plugins").path("oversubscribe").path("state");
  }

  private static RMApp appById(String id) {
    return ClusterAssertions.appById(cluster, id);
  }

  /** Live containers of the app's current attempt, its AM included. */
  private static int liveContainers(RMApp a) {
    return ClusterAssertions.liveContainers(cluster, a).size();
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private static void waitFor(String what, long ms, Check check) throws Exception {
    long deadline = System.currentTimeMillis() + ms;
    while (System.currentTimeMillis() < deadline) {
      if (check.holds()) {
        return;
      }
      Thread.sleep(250);
    }
    fail("timed out waiting for " + what);
  }
}
