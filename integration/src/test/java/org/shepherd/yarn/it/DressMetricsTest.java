package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * Issue 4 item 7: with the DRESS policy on a real YARN cluster, δ, the pool
 * capacities and usage, pending demand per category and F(t+1) are served
 * at the RM's Prometheus endpoint {@code /prom} (Hadoop metrics2, enabled by
 * {@code hadoop.prometheus.endpoint.enabled}) under {@code shepherd_} names,
 * while real MapReduce jobs run, and agree with the engine's state view.
 */
public class DressMetricsTest {
  /** Advertised NodeManager size: big enough that a one-map job is small-demand (≤ θ = 10 %). */
  static final int NM_MB = 16 * 1024;
  static final int NM_VCORES = 16;
  static final long CLUSTER_MB = (long) NM_MB * ShepherdCluster.NODE_MANAGERS;
  static final double EPS = 1e-9;
  /** Map size of the large job: two fit on a NodeManager, so its fourth map waits. */
  static final int BIG_MAP_MB = 8 * 1024;

  static final String[] POOL_SERIES = {
      "shepherd_dress_pool_share_ratio",
      "shepherd_dress_pool_capacity_memory_mb",
      "shepherd_dress_pool_capacity_vcores",
      "shepherd_dress_pool_used_memory_mb",
      "shepherd_dress_pool_used_vcores",
      "shepherd_dress_pool_used_ratio",
      "shepherd_dress_pool_available_ratio",
      "shepherd_dress_pool_pending_memory_mb",
      "shepherd_dress_pool_pending_vcores",
      "shepherd_dress_pool_pending_ratio",
      "shepherd_dress_pool_pending_apps",
      "shepherd_dress_pool_apps",
      "shepherd_dress_pool_release_next_ratio",
  };
  static final String[] GLOBAL_SERIES = {
      "shepherd_dress_reserve_ratio",
      "shepherd_dress_reserve_min_ratio",
      "shepherd_dress_reserve_max_ratio",
      "shepherd_dress_small_threshold_ratio",
      "shepherd_dress_adjustments_total",
      "shepherd_dress_available_ratio",
      "shepherd_dress_release_next_ratio",
      "shepherd_engine_events_total",
      "shepherd_engine_passes_total",
      "shepherd_engine_allocations_total",
      "shepherd_engine_apps",
      "shepherd_engine_nodes",
  };

  private static ShepherdCluster cluster;
  private static final ThreadLocal<String> lastScrape = ThreadLocal.withInitial(() -> "");
  private static JsonNode dressConfig;

  @BeforeClass
  public static void startCluster() throws Exception {
    // The shipped DRESS config, unchanged.
    Path toml = Paths.get(System.getProperty("basedir", "."), "..", "hadoop-conf",
        "shepherd-dress.toml");
    String text = new String(Files.readAllBytes(toml), StandardCharsets.UTF_8);
    cluster = ShepherdCluster.start("dressmetrics", text, conf -> {
      conf.setBoolean("hadoop.prometheus.endpoint.enabled", true);
      // MiniYARNCluster sets each NodeManager's memory from this key.
      conf.setInt(YarnConfiguration.YARN_MINICLUSTER_NM_PMEM_MB, NM_MB);
      conf.setInt(YarnConfiguration.NM_PMEM_MB, NM_MB);
      conf.setInt(YarnConfiguration.NM_VCORES, NM_VCORES);
      conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, BIG_MAP_MB);
    });
    dressConfig = policyState();
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** One sample line of the Prometheus text format. */
  static final class Series {
    final String name;
    final Map<String, String> labels;
    final double value;

    Series(String name, Map<String, String> labels, double value) {
      this.name = name;
      this.labels = labels;
      this.value = value;
    }
  }

  private static final Pattern LINE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)$");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"([^\"]*)\"");

  static List<Series> parse(String text) {
    List<Series> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = LINE.matcher(line.trim());
      if (!m.matches()) {
        continue;
      }
      Map<String, String> labels = new HashMap<>();
      if (m.group(2) != null) {
        Matcher l = LABEL.matcher(m.group(2));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      try {
        out.add(new Series(m.group(1), labels, Double.parseDouble(m.group(3))));
      } catch (NumberFormatException e) {
        // not a number (never for Shepherd's series)
      }
    }
    return out;
  }

  /** The value of {@code name} (with {@code pool}, or without a pool label when null). */
  static Double value(List<Series> all, String name, String pool) {
    for (Series s : all) {
      if (s.name.equals(name) && (pool == null ? !s.labels.containsKey("pool")
          : pool.equals(s.labels.get("pool")))) {
        return s.value;
      }
    }
    return null;
  }

  static double require(List<Series> all, String name, String pool) {
    Double v = value(all, name, pool);
    assertNotNull(name + (pool == null ? "" : "{pool=" + pool + "}") + " missing from /prom", v);
    assertTrue(name + " = " + v, !v.isNaN() && !v.isInfinite());
    return v;
  }

  /** The DRESS reserve plugin's state in the engine's state view. */
  static JsonNode policyState() throws Exception {
    return new ObjectMapper().readTree(cluster.scheduler().getEngineStateJson())
        .path("pipelines").path(0).path("plugins").path("reserve").path("state");
  }

  /** Every series is there and within its bounds; returns the scrape. */
  static List<Series> scrapeAndCheck(String when) throws Exception {
    String text = cluster.page("/prom");
    lastScrape.set(text);
    List<Series> all = parse(text);
    for (String name : GLOBAL_SERIES) {
      require(all, name, null);
    }
    double min = require(all, "shepherd_dress_reserve_min_ratio", null);
    double max = require(all, "shepherd_dress_reserve_max_ratio", null);
    double delta = require(all, "shepherd_dress_reserve_ratio", null);
    assertTrue(when + ": delta " + delta + " outside [" + min + ", " + max + "]",
        delta >= min - EPS && delta <= max + EPS);
    long capMb = 0;
    for (String pool : new String[] {"small", "large"}) {
      for (String name : POOL_SERIES) {
        double v = require(all, name, pool);
        assertTrue(when + ": " + name + "{pool=" + pool + "} = " + v, v >= -EPS);
        if (name.endsWith("_ratio")) {
          assertTrue(when + ": " + name + "{pool=" + pool + "} = " + v, v <= 1 + EPS);
        }
      }
      capMb += (long) require(all, "shepherd_dress_pool_capacity_memory_mb", pool);
    }
    // The two pools split the whole cluster: δ and 1 − δ of it.
    assertEquals(when, CLUSTER_MB, capMb);
    assertEquals(when, Math.round(CLUSTER_MB * delta),
        (long) require(all, "shepherd_dress_pool_capacity_memory_mb", "small"));
    assertEquals(when, delta, require(all, "shepherd_dress_pool_share_ratio", "small"), EPS);
    // Eq. 1: F(t+1) = A_c + F_1(t+1) + F_2(t+1) ≥ A_c.
    double avail = require(all, "shepherd_dress_available_ratio", null);
    double fNext = require(all, "shepherd_dress_release_next_ratio", null);
    assertTrue(when + ": F(t+1) " + fNext + " < A_c " + avail, fNext >= avail - EPS);
    return all;
  }

  @Test(timeout = 600_000)
  public void dressGaugesAreServedAtPromWhileRealJobsRun() throws Exception {
    // Reachable and complete before any job (the RM has run Algorithm 3 on
    // the NodeManagers' heartbeats already).
    String first = cluster.page("/prom");
    assertTrue("HELP line: " + first, first.contains("# HELP shepherd_dress_reserve_ratio "));
    assertTrue(first.contains("# TYPE shepherd_dress_reserve_ratio gauge"));
    assertTrue(first.contains("# TYPE shepherd_dress_adjustments_total counter"));
    assertTrue(first.contains("# TYPE shepherd_engine_allocations_total counter"));
    for (Series s : parse(first)) {
      if (s.name.contains("dress_")) {
        assertTrue(s.name, s.name.startsWith("shepherd_dress_"));
      }
    }
    scrapeAndCheck("idle");

    // Watch /prom while a large-demand job and a small-demand one run. The
    // large job: AM (768 MB) + 4 maps of 8 GB, > θ of the 32 GB cluster; at
    // most three of its maps fit at once (two per NodeManager, one beside
    // the AM), so the fourth is pending demand of the large pool until a
    // map finishes (node room, not the pool's 29491 MB, holds it back).
    // The small job: AM + one 512 MB map, 4 % of the cluster.
    Map<String, Double> maxSeen = new HashMap<>();
    TreeSet<Double> deltas = new TreeSet<>();
    List<Throwable> scrapeErrors = new ArrayList<>();
    AtomicBoolean running = new AtomicBoolean(true);
    int[] scrapes = {0};
    double[] busiest = {0};
    String[] busiestText = {""};
    Thread watcher = new Thread(() -> {
      while (running.get()) {
        try {
          List<Series> all = scrapeAndCheck("during the jobs");
          synchronized (maxSeen) {
            scrapes[0]++;
            Double pending = value(all, "shepherd_dress_pool_pending_memory_mb", "large");
            if (pending != null && pending > busiest[0]) {
              busiest[0] = pending;
              busiestText[0] = lastScrape.get();
            }
            deltas.add(value(all, "shepherd_dress_reserve_ratio", null));
            for (Series s : all) {
              if (s.name.startsWith("shepherd_dress_pool_")) {
                maxSeen.merge(s.name + "/" + s.labels.get("pool"), s.value, Math::max);
              }
            }
          }
          Thread.sleep(400);
        } catch (InterruptedException e) {
          return;
        } catch (Throwable t) {
          synchronized (maxSeen) {
            scrapeErrors.add(t);
          }
          return;
        }
      }
    }, "prom-watcher");
    watcher.start();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      JobConf bigMaps = cluster.jobConf();
      bigMaps.setInt(MRJobConfig.MAP_MEMORY_MB, BIG_MAP_MB);
      Future<Boolean> large = pool.submit(() ->
          Workloads.sleep(bigMaps, "alice", "default", 4, 0, 5000, 0));
      Future<Boolean> small = pool.submit(() ->
          Workloads.sleep(cluster.jobConf(), "bob", "default", 1, 0, 1000, 0));
      assertTrue("large sleep job succeeded", large.get());
      assertTrue("small sleep job succeeded", small.get());
    } finally {
      pool.shutdownNow();
      running.set(false);
      watcher.join(30_000);
    }
    synchronized (maxSeen) {
      if (!scrapeErrors.isEmpty()) {
        throw new AssertionError("a /prom scrape failed during the jobs", scrapeErrors.get(0));
      }
      System.out.println("DressMetricsTest: " + scrapes[0] + " scrapes, delta values " + deltas
          + ", maxima " + new java.util.TreeMap<>(maxSeen));
      System.out.println("DressMetricsTest: shepherd_ series of the scrape with the most pending"
          + " demand:");
      for (String line : busiestText[0].split("\n")) {
        if (line.startsWith("shepherd_") || line.startsWith("# HELP shepherd_")
            || line.startsWith("# TYPE shepherd_")) {
          System.out.println(line);
        }
      }
      assertTrue("scrapes during the jobs: " + scrapes[0], scrapes[0] >= 3);
      // Both categories had apps holding containers while the jobs ran.
      for (String p : new String[] {"small", "large"}) {
        assertTrue(p + " pool apps " + maxSeen,
            maxSeen.getOrDefault("shepherd_dress_pool_apps/" + p, 0.0) >= 1);
        assertTrue(p + " pool used memory " + maxSeen,
            maxSeen.getOrDefault("shepherd_dress_pool_used_memory_mb/" + p, 0.0) >= 512);
      }
      // (Three maps fit at once, or two when the small job's containers
      // share the NodeManagers with the large job's AM.)
      assertTrue("large pool used the AM and two maps or more: " + maxSeen,
          maxSeen.get("shepherd_dress_pool_used_memory_mb/large") >= 768 + 2 * BIG_MAP_MB);
      // The large job's fourth map was pending demand of its category.
      assertTrue("large pool pending memory " + maxSeen,
          maxSeen.get("shepherd_dress_pool_pending_memory_mb/large") >= BIG_MAP_MB);
      assertTrue("large pool pending apps " + maxSeen,
          maxSeen.get("shepherd_dress_pool_pending_apps/large") >= 1);
      assertTrue("large pool pending ratio " + maxSeen,
          maxSeen.get("shepherd_dress_pool_pending_ratio/large") >= 0.25 - EPS);
    }

    // Once the cluster is idle the figures stand still; /prom and the
    // engine's state view agree.
    List<Series> idle = null;
    for (int i = 0; i < 120; i++) {
      idle = scrapeAndCheck("after the jobs");
      if (require(idle, "shepherd_engine_apps", null) == 0
          && require(idle, "shepherd_dress_pool_used_memory_mb", "small") == 0
          && require(idle, "shepherd_dress_pool_used_memory_mb", "large") == 0) {
        break;
      }
      Thread.sleep(500);
    }
    assertEquals("engine apps after the jobs", 0.0, require(idle, "shepherd_engine_apps", null), 0);
    Thread.sleep(2500); // two more scheduling intervals: Algorithm 3 settles
    idle = scrapeAndCheck("idle after the jobs");
    JsonNode st = policyState();
    assertEquals(st.path("delta").asDouble(), require(idle, "shepherd_dress_reserve_ratio", null),
        EPS);
    assertEquals(st.path("delta_min").asDouble(),
        require(idle, "shepherd_dress_reserve_min_ratio", null), EPS);
    assertEquals(st.path("delta_max").asDouble(),
        require(idle, "shepherd_dress_reserve_max_ratio", null), EPS);
    assertEquals(st.path("f_next_share").asDouble(),
        require(idle, "shepherd_dress_release_next_ratio", null), EPS);
    assertEquals(st.path("available_share").asDouble(),
        require(idle, "shepherd_dress_available_ratio", null), EPS);
    assertTrue(require(idle, "shepherd_dress_adjustments_total", null) > 0);
    for (JsonNode p : st.path("pools")) {
      String name = p.path("pool").asText();
      assertEquals(p.path("capacity").get(0).asDouble(),
          require(idle, "shepherd_dress_pool_capacity_memory_mb", name), 0);
      assertEquals(p.path("capacity").get(1).asDouble(),
          require(idle, "shepherd_dress_pool_capacity_vcores", name), 0);
      assertEquals(p.path("used").get(0).asDouble(),
          require(idle, "shepherd_dress_pool_used_memory_mb", name), 0);
      assertEquals(p.path("pending_share").asDouble(),
          require(idle, "shepherd_dress_pool_pending_ratio", name), EPS);
      assertEquals(p.path("release_next_share").asDouble(),
          require(idle, "shepherd_dress_pool_release_next_ratio", name), EPS);
    }
    // The shipped config's bounds, as the state view reported them at start.
    assertEquals(dressConfig.path("delta_min").asDouble(),
        require(idle, "shepherd_dress_reserve_min_ratio", null), EPS);
    JsonNode counters = new ObjectMapper().readTree(cluster.scheduler().getEngineStateJson())
        .path("counters");
    assertEquals(counters.path("allocations").asDouble(),
        require(idle, "shepherd_engine_allocations_total", null), 0);
    // Two AMs and five maps at least.
    assertTrue(require(idle, "shepherd_engine_allocations_total", null) >= 2 + 5);
    // The JSON the shim reads from the engine carries the same series.
    assertEquals(require(idle, "shepherd_dress_reserve_ratio", null),
        cluster.scheduler().getEngineGauge("dress_reserve_ratio"), EPS);
  }
}
