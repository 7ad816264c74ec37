package org.shepherd.apps;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * Unmodified Spark applications, submitted in cluster mode with Spark's own
 * YARN client, run to completion on a real YARN cluster whose scheduler is
 * Shepherd, with dynamic allocation on and Spark's external shuffle service
 * running in the NodeManagers; every container was placed by the Rust
 * engine. One cluster for the class (two NodeManagers of 4 GiB / 4 vcores):
 * SparkPi, the word count and the SQL query are submitted together when it
 * starts and share it; the dynamic-allocation test runs alone after them.
 */
public class SparkOnShepherdTest {
  static final String CONFIG = String.join("\n",
      "[scheduler]",
      "policy = \"drf\"",
      "[[queue]]",
      "name = \"spark\"",
      "capacity = 0.5",
      "[[queue]]",
      "name = \"batch\"",
      "capacity = 0.5",
      "");

  private static ShepherdCluster cluster;
  private static File workDir;
  private static SparkOnYarn spark;
  /** SparkPi, word count and the SQL query run at once, submitted from here. */
  private static ExecutorService background;
  private static Future<?> pi;
  private static Future<?> wordCount;
  private static Future<?> sql;
  private static final int LINES = 20_000;

  @BeforeClass
  public static void startCluster() throws Exception {
    workDir = Files.createTempDirectory("shepherd-apps-spark").toFile();
    int shufflePort = ShepherdCluster.freePort();
    SparkShuffleConf conf =
        new SparkShuffleConf(ShepherdCluster.baseConf(CONFIG, workDir), shufflePort);
    cluster = ShepherdCluster.start("spark", conf, ShepherdCluster.NODE_MANAGERS, workDir);
    Map<String, String> common = new HashMap<>();
    common.put("spark.dynamicAllocation.enabled", "true");
    common.put("spark.shuffle.service.enabled", "true");
    common.put("spark.shuffle.service.port", Integer.toString(shufflePort));
    common.put("spark.dynamicAllocation.minExecutors", "0");
    common.put("spark.dynamicAllocation.initialExecutors", "1");
    common.put("spark.dynamicAllocation.maxExecutors", "2");
    common.put("spark.dynamicAllocation.executorIdleTimeout", "3s");
    common.put("spark.dynamicAllocation.schedulerBacklogTimeout", "1s");
    common.put("spark.dynamicAllocation.sustainedSchedulerBacklogTimeout", "1s");
    SparkOnYarn.writeHadoopConfDir(cluster.conf);
    spark = new SparkOnYarn(cluster.conf, workDir, common);

    // The three applications share the cluster, as they would on a real
    // one (and the class takes a minute less than one after the other).
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < LINES; i++) {
      lines.add("shepherd schedules spark on yarn line " + (i % 101) + " of the flock");
    }
    File in = new File(workDir, "wc-in/text.txt");
    SparkOnYarn.writeLines(in, lines);
    background = Executors.newFixedThreadPool(3);
    pi = background.submit(() -> {
      spark.submit("spark-pi", "spark", "org.shepherd.apps.spark.SparkPi", Map.of(),
          "4", "200000");
      return null;
    });
    // Two executors from the start, and shuffle blocks of another executor
    // fetched from the shuffle service rather than read from its disk
    // directly (all executors share this one host).
    wordCount = background.submit(() -> {
      spark.submit("spark-wordcount", "spark", "org.shepherd.apps.spark.WordCount",
          Map.of("spark.shuffle.readHostLocalDisk", "false",
              "spark.dynamicAllocation.initialExecutors", "2",
              "spark.dynamicAllocation.minExecutors", "2"),
          in.getParentFile().toURI().toString(), new File(workDir, "wc-out").toURI().toString(),
          "3");
      return null;
    });
    sql = background.submit(() -> {
      spark.submit("spark-sql", "batch", "org.shepherd.apps.spark.SqlJoin", Map.of(),
          new File(workDir, "sql-out").toURI().toString(), "20000");
      return null;
    });
  }

  @AfterClass
  public static void stopCluster() {
    ClusterTeardown.stop(background, cluster, workDir);
  }


  @Test(timeout = 300_000)
  public void sparkPiSucceeds() throws Exception {
    pi.get();
    assertSucceeded("spark-pi");
    assertEverythingPlacedByTheEngine();
  }

  @Test(timeout = 300_000)
  public void wordCountShufflesThroughTheShuffleService() throws Exception {
    wordCount.get();
    File out = new File(workDir, "wc-out");
    assertSucceeded("spark-wordcount");
    Map<String, Long> counts = new HashMap<>();
    for (File part : out.listFiles((d, n) -> n.startsWith("part-"))) {
      for (String line : Files.readAllLines(part.toPath(), StandardCharsets.UTF_8)) {
        String[] wc = line.split(" ");
        counts.put(wc[0], Long.parseLong(wc[1]));
      }
    }
    // Ten words a line: nine fixed ones and a number of 0..100.
    assertEquals(9 + 101, counts.size());
    assertEquals(Long.valueOf(20_000), counts.get("shepherd"));
    assertEquals(Long.valueOf(199), counts.get("0"));
    assertEquals(200_000L, counts.values().stream().mapToLong(Long::longValue).sum());
    // The NodeManagers' shuffle service saw the executors (this app's two
    // at least) and served shuffle blocks (this app's, and maybe the SQL
    // query's, which ran beside it).
    Map<String, Long> m = shuffleServiceMetrics();
    System.out.println("shuffle service: " + m);
    assertTrue("executors registered with the NodeManagers' shuffle service: " + m,
        m.getOrDefault("registerExecutorRequestLatencyMillis_count", 0L) >= 2);
    assertTrue("the shuffle service served shuffle blocks: " + m,
        m.getOrDefault("openBlockRequestLatencyMillis_count", 0L) > 0);
    assertEverythingPlacedByTheEngine();
  }

  @Test(timeout = 300_000)
  public void sqlJoinAndAggregationSucceeds() throws Exception {
    sql.get();
    File out = new File(workDir, "sql-out");
    assertSucceeded("spark-sql");
    List<String> rows = new ArrayList<>();
    for (File part : out.listFiles((d, n) -> n.startsWith("part-"))) {
      rows.addAll(Files.readAllLines(part.toPath(), StandardCharsets.UTF_8));
    }
    // Header and five regions; 20000 orders over 50 customers in 5 regions.
    assertEquals(rows.toString(), 6, rows.size());
    assertEquals("region,orders,total", rows.get(0));
    // Region r holds customers r, r+5, ..., whose orders' amounts are
    // r%10+1 and r%10+6 alike: 4000 orders summing to 4000 * (r + 3.5).
    assertEquals(java.util.Arrays.asList("region,orders,total", "region-0,4000,14000",
        "region-1,4000,18000", "region-2,4000,22000", "region-3,4000,26000",
        "region-4,4000,30000"), rows);
    assertEverythingPlacedByTheEngine();
  }

  /**
   * Dynamic allocation: a wide stage makes Spark scale up to three 2 GiB
   * executors, which with its AM fill the cluster but for 1 GiB; a MapReduce
   * SleepJob submitted then gets its AM there but no room for its tasks.
   * When the stage is done the executors idle for executorIdleTimeout (3 s),
   * Spark gives them back while its driver still runs, and the SleepJob's
   * tasks get the capacity: its first task container comes only after the
   * Spark executors went below their peak.
   */
  @Test(timeout = 400_000)
  public void dynamicAllocationScalesUpAndGivesCapacityBack() throws Exception {
    // It needs the cluster to itself: after the other three applications.
    for (Future<?> f : java.util.Arrays.asList(pi, wordCount, sql)) {
      try {
        f.get();
      } catch (java.util.concurrent.ExecutionException failed) {
        // that application's own test reports it
      }
    }
    while (cluster.scheduler().getRootQueueMetrics().getAllocatedContainers() > 0) {
      Thread.sleep(200);
    }
    String name = "spark-dynamic";
    List<int[]> samples = new CopyOnWriteArrayList<>(); // {sparkExecutors, mrTasks, sparkRunning}
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Map<String, String> conf = new HashMap<>();
      conf.put("spark.executor.memory", "1536m");
      conf.put("spark.dynamicAllocation.maxExecutors", "3");
      Future<?> app = pool.submit(() -> {
        spark.submit(name, "spark", "org.shepherd.apps.spark.WideStage", conf,
            "24", "1000", "10000");
        return null;
      });
      // Wait for the scale-up to three executors.
      long deadline = System.currentTimeMillis() + 150_000;
      int executors = 0;
      while (executors < 3 && System.currentTimeMillis() < deadline && !app.isDone()) {
        Thread.sleep(200);
        executors = executorCount(name);
        samples.add(new int[] {executors, -1, 1});
      }
      assertEquals("Spark scaled up to its maximum of three executors", 3, executors);
      Job sleep = Workloads.submitSleep(cluster.jobConf(), "bob", "batch", 4, 0, 1000, 0);
      String mrId = sleep.getJobID().toString().replace("job_", "application_");
      while (!sleep.isComplete() && System.currentTimeMillis() < deadline + 150_000) {
        Thread.sleep(200);
        int[] s = {executorCount(name), taskCount(mrId), app.isDone() ? 0 : 1};
        samples.add(s);
      }
      assertTrue("the SleepJob succeeded", sleep.isSuccessful());
      app.get();
    } finally {
      pool.shutdownNow();
    }
    assertSucceeded(name);
    // Spark gave executors back while its driver still ran.
    boolean released = false;
    int firstTasks = -1;
    for (int i = 0; i < samples.size(); i++) {
      int[] s = samples.get(i);
      if (s[1] >= 0 && s[0] == 0 && s[2] == 1) {
        released = true;
      }
      if (firstTasks < 0 && s[1] > 0) {
        firstTasks = i;
      }
    }
    StringBuilder trace = new StringBuilder();
    for (int[] s : samples) {
      trace.append(s[0]).append('/').append(s[1]).append(' ');
    }
    System.out.println("executors/mr-tasks every 200 ms: " + trace);
    assertTrue("idle executors released while Spark's driver still ran: " + trace, released);
    assertTrue("the SleepJob ran tasks: " + trace, firstTasks > 0);
    assertTrue("the SleepJob's first task came after Spark's executors fell below three: "
        + trace, samples.get(firstTasks)[0] < 3);
    assertEverythingPlacedByTheEngine();
  }

  // ---- helpers ---------------------------------------------------------

  /**
   * The counters Spark's shuffle service publishes to the NodeManagers'
   * Hadoop metrics system (source "sparkShuffleService"; the one instance
   * that serves this host, see SparkShuffleConf).
   */
  private static Map<String, Long> shuffleServiceMetrics() {
    Map<String, Long> m = new java.util.TreeMap<>();
    org.apache.hadoop.metrics2.impl.MetricsSystemImpl ms =
        (org.apache.hadoop.metrics2.impl.MetricsSystemImpl)
            org.apache.hadoop.metrics2.lib.DefaultMetricsSystem.instance();
    org.apache.hadoop.metrics2.MetricsSource src = ms.getSource("sparkShuffleService");
    assertNotNull("the shuffle service's metrics source", src);
    org.apache.hadoop.metrics2.impl.MetricsCollectorImpl c =
        new org.apache.hadoop.metrics2.impl.MetricsCollectorImpl();
    src.getMetrics(c, true);
    for (org.apache.hadoop.metrics2.impl.MetricsRecordImpl r : c.getRecords()) {
      for (org.apache.hadoop.metrics2.AbstractMetric a : r.metrics()) {
        m.put(a.name(), a.value().longValue());
      }
    }
    return m;
  }


  private static RMApp app(String name) {
    return ClusterAssertions.app(cluster, name);
  }

  /** Live containers of the application, less its AM. */
  private static int nonAmContainers(RMApp a) {
    if (a == null) {
      return 0;
    }
    RMAppAttempt attempt = a.getCurrentAppAttempt();
    // Until the attempt holds its master container, the one live container
    // may be the AM itself (the scheduler allocated it, the attempt has not
    // taken it yet); no task can run before the AM does.
    if (attempt == null || attempt.getMasterContainer() == null) {
      return 0;
    }
    ContainerId am = attempt.getMasterContainer().getId();
    int n = 0;
    for (RMContainer c : ClusterAssertions.liveContainers(cluster, a)) {
      if (!c.getContainerId().equals(am)) {
        n++;
      }
    }
    return n;
  }

  private static int executorCount(String name) {
    return nonAmContainers(app(name));
  }

  private static int taskCount(String appId) {
    return nonAmContainers(ClusterAssertions.appById(cluster, appId));
  }

  private static void assertSucceeded(String name) {
    ClusterAssertions.assertSucceeded(cluster, name, "SPARK");
  }

  private static void assertEverythingPlacedByTheEngine() {
    ClusterAssertions.assertEverythingPlacedByTheEngine(cluster);
  }
}
