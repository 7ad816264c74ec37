package org.shepherd.yarn.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Issue 15 item 5, the soak: a local YARN cluster with Shepherd (composed
 * default, two queues, 2 NodeManagers) under continuous submissions of small
 * real SleepJobs for an hour, sampled every 30 s, then drained and checked
 * for state left behind. Run by {@code scripts/soak.sh} (outside CI).
 *
 * <p>Every sample (one CSV row): RM JVM heap used right after a full GC
 * (this JVM holds the RM, the NodeManagers, the job clients and the engine),
 * the process RSS ({@code /proc/self/status} VmRSS, which includes the Rust
 * engine's native heap) and RSS minus what the JVM has committed (native
 * memory outside the JVM's heap and non-heap pools: the engine, thread
 * stacks, malloc arenas; meaningful because soak.sh runs the JVM with a fixed,
 * pre-touched heap), the engine's app and container counts (its state JSON), running
 * and pending apps (RM REST), and the engine's decision latency P50/P99 over
 * the window: the delta of the engine's crossing-time histogram (the one the
 * sidecar re-exports as {@code shepherd_engine_decision_seconds}), read over
 * the control channel.
 *
 * <p>Exit status 1 if any job failed, state remained after the drain, or the
 * heap-after-GC or RSS slope (least squares after the warm-up) is above its
 * threshold.
 */
public final class Soak {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String[] USERS = {"alice", "bob", "carol", "dave"};
  static final String[] QUEUES = {"alpha", "beta"};
  static final Pattern APP_ID = Pattern.compile("application_\\d+_\\d+");

  // Options (see usage()).
  double minutes = 60;
  File out = new File("soak-out");
  int sampleS = 30;
  double arrivalS = 6;
  int maxInFlight = 4;
  long seed = 15;
  double maxHeapSlope = 30;
  double maxRssSlope = 64;
  int maxCompletedApps = 20;

  final AtomicInteger submitted = new AtomicInteger();
  final AtomicInteger succeeded = new AtomicInteger();
  final AtomicInteger failed = new AtomicInteger();
  final AtomicInteger inFlight = new AtomicInteger();
  final AtomicInteger waitedForSlot = new AtomicInteger();
  final List<double[]> samples = new ArrayList<>();

  ShepherdCluster cluster;
  int controlPort;
  String secret;
  PrintWriter csv;
  long t0;
  double[] lastHist;
  double lastHistSum;
  long lastHistCount;

  private Soak() {
  }

  static void usage() {
    System.err.println("Soak [--minutes 60] [--out DIR] [--sample-s 30] [--arrival-s 6]"
        + " [--max-in-flight 4] [--seed 15] [--max-heap-slope-mb-h 30]"
        + " [--max-rss-slope-mb-h 64] [--max-completed-apps 20]");
    System.exit(2);
  }

  public static void main(String[] args) throws Exception {
    Soak s = new Soak();
    for (int i = 0; i < args.length; i++) {
      String v = i + 1 < args.length ? args[i + 1] : null;
      if (v == null) {
        usage();
      }
      switch (args[i]) {
        case "--minutes": s.minutes = Double.parseDouble(v); break;
        case "--out": s.out = new File(v); break;
        case "--sample-s": s.sampleS = Integer.parseInt(v); break;
        case "--arrival-s": s.arrivalS = Double.parseDouble(v); break;
        case "--max-in-flight": s.maxInFlight = Integer.parseInt(v); break;
        case "--seed": s.seed = Long.parseLong(v); break;
        case "--max-heap-slope-mb-h": s.maxHeapSlope = Double.parseDouble(v); break;
        case "--max-rss-slope-mb-h": s.maxRssSlope = Double.parseDouble(v); break;
        case "--max-completed-apps": s.maxCompletedApps = Integer.parseInt(v); break;
        default: usage();
      }
      i++;
    }
    int code;
    try {
      code = s.run();
    } catch (Throwable t) {
      t.printStackTrace();
      code = 1;
    }
    System.exit(code);
  }

  int run() throws Exception {
    out.mkdirs();
    controlPort = ShepherdCluster.freePort();
    Path secretFile = Files.createTempFile("shepherd-soak", ".secret");
    secret = "soak-" + Long.toHexString(new Random().nextLong()) + Long.toHexString(System.nanoTime());
    Files.write(secretFile, (secret + "\n").getBytes(StandardCharsets.UTF_8));
    // The composed default (Quickstart's), with the control channel open so
    // the soak can read the engine's decision-time histogram.
    String toml = Quickstart.DEFAULT_CONFIG + "[control]\nenabled = true\nport = " + controlPort
        + "\nsecret_file = \"" + secretFile + "\"\n";
    Files.write(new File(out, "shepherd.toml").toPath(), toml.getBytes(StandardCharsets.UTF_8));
    long startCluster = System.currentTimeMillis();
    cluster = ShepherdCluster.start("soak", toml, conf ->
        // The RM keeps this many finished apps for its UI and REST (default
        // 1000): a bounded, RM-owned cache. Kept small so that it fills in
        // the first minutes and does not read as a slope.
    {
      conf.setInt(YarnConfiguration.RM_MAX_COMPLETED_APPLICATIONS, maxCompletedApps);
      // Without log aggregation a NodeManager keeps each finished app (and
      // its logs) for log.retain-seconds, 3 h by default: longer than the
      // soak, so it would read as growth. Keep a minute.
      conf.setLong(YarnConfiguration.NM_LOG_RETAIN_SECONDS, 60);
    });
    try {
      System.out.printf(Locale.ROOT, "soak: cluster up in %.1f s (RM web %s, control port %d);"
          + " %.1f min of submissions, one every ~%.1f s, at most %d in flight; sample every %d s%n",
          (System.currentTimeMillis() - startCluster) / 1000.0,
          cluster.conf.get(YarnConfiguration.RM_WEBAPP_ADDRESS), controlPort, minutes, arrivalS,
          maxInFlight, sampleS);
      return soak();
    } finally {
      cluster.close();
    }
  }

  int soak() throws Exception {
    csv = new PrintWriter(Files.newBufferedWriter(new File(out, "soak.csv").toPath()));
    csv.println("t_s,heap_after_gc_mb,heap_committed_mb,nonheap_used_mb,rss_mb,native_outside_jvm_mb,"
        + "engine_apps,engine_containers,rm_running,rm_pending,in_flight,submitted,succeeded,failed,"
        + "decisions,p50_ms,p99_ms,mean_ms,engine_allocations,fallback_allocations,engine_failures");
    csv.flush();
    t0 = System.currentTimeMillis();
    long end = t0 + (long) (minutes * 60_000);
    readHistogram(); // baseline for the first window's delta
    ExecutorService jobs = Executors.newFixedThreadPool(maxInFlight);
    Semaphore slots = new Semaphore(maxInFlight);
    Random rnd = new Random(seed);
    Thread submitter = new Thread(() -> {
      try {
        while (System.currentTimeMillis() < end) {
          // Poisson arrivals at the stated mean; a submission waits for a
          // free slot so the backlog stays bounded (cluster busy, not swamped).
          Thread.sleep((long) (-Math.log(1 - rnd.nextDouble()) * arrivalS * 1000));
          if (System.currentTimeMillis() >= end) {
            break;
          }
          if (!slots.tryAcquire()) {
            waitedForSlot.incrementAndGet();
            slots.acquire();
          }
          int n = submitted.incrementAndGet();
          String user = USERS[rnd.nextInt(USERS.length)];
          String queue = QUEUES[rnd.nextInt(QUEUES.length)];
          int maps = 1 + rnd.nextInt(4);
          int reduces = rnd.nextInt(3) == 0 ? 1 : 0;
          long mapMs = 1000 + rnd.nextInt(7000);
          long reduceMs = 500 + rnd.nextInt(2000);
          inFlight.incrementAndGet();
          jobs.submit(() -> {
            try {
              boolean ok = sleepJob(user, queue, maps, reduces, mapMs, reduceMs);
              (ok ? succeeded : failed).incrementAndGet();
              if (!ok) {
                System.out.printf("soak: job %d (%s, %s, %d maps) did not succeed%n", n, user,
                    queue, maps);
              }
            } catch (Throwable t) {
              failed.incrementAndGet();
              System.out.printf("soak: job %d (%s, %s) failed: %s%n", n, user, queue, t);
            } finally {
              inFlight.decrementAndGet();
              slots.release();
            }
          });
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "soak-submitter");
    submitter.start();

    long next = t0 + sampleS * 1000L;
    while (System.currentTimeMillis() < end) {
      Thread.sleep(Math.max(0, Math.min(next, end) - System.currentTimeMillis()));
      if (System.currentTimeMillis() >= next) {
        sample(true);
        next += sampleS * 1000L;
      }
    }
    submitter.join();
    long drainStart = System.currentTimeMillis();
    System.out.printf("soak: submissions stopped after %.1f min; draining %d jobs in flight%n",
        (drainStart - t0) / 60000.0, inFlight.get());
    jobs.shutdown();
    boolean drained = jobs.awaitTermination(15, TimeUnit.MINUTES);
    // Apps leave the engine when YARN removes them and containers when the
    // NodeManagers report them finished: give the next heartbeats a moment.
    long until = System.currentTimeMillis() + 120_000;
    JsonNode state = cluster.engineState();
    while (System.currentTimeMillis() < until && (state.path("apps").size() > 0
        || state.path("cluster").path("containers").asLong() > 0 || rmCount("RUNNING") > 0
        || rmCount("NEW,NEW_SAVING,SUBMITTED,ACCEPTED") > 0)) {
      Thread.sleep(1000);
      state = cluster.engineState();
    }
    double drainS = (System.currentTimeMillis() - drainStart) / 1000.0;
    double[] last = sample(false);
    csv.close();
    Files.write(new File(out, "state-after-drain.json").toPath(),
        JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(state));

    List<String> leftovers = leftovers(state);
    java.util.Map<String, Integer> shim = shimMaps();
    System.out.println("shim per-app maps after drain: " + shim
        + "; job clients' FileSystem cache entries: " + fileSystemCacheSize());
    shim.forEach((k, v) -> {
      if (v > 0) {
        leftovers.add("shim " + k + ": " + v);
      }
    });
    return summary(drained, drainS, last, leftovers);
  }

  /**
   * One proxy user per name for the whole soak, as a long-lived client
   * would have. A fresh proxy UGI per job (Workloads.as) leaks in this JVM:
   * Hadoop's FileSystem cache keys on the UGI, so every submission left a
   * LocalFileSystem holding a full JobConf behind (found by the first hour's
   * run: ~25 MB/h of heap after GC, all of it FileSystem.CACHE).
   */
  final java.util.Map<String, org.apache.hadoop.security.UserGroupInformation> ugis =
      new java.util.concurrent.ConcurrentHashMap<>();

  boolean sleepJob(String user, String queue, int maps, int reduces, long mapMs, long reduceMs)
      throws Exception {
    org.apache.hadoop.security.UserGroupInformation ugi = ugis.computeIfAbsent(user, u -> {
      try {
        return org.apache.hadoop.security.UserGroupInformation.createProxyUser(u,
            org.apache.hadoop.security.UserGroupInformation.getLoginUser());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    return ugi.doAs((java.security.PrivilegedExceptionAction<Boolean>) () -> {
      org.apache.hadoop.mapred.JobConf conf = cluster.jobConf();
      conf.set(org.apache.hadoop.mapreduce.MRJobConfig.QUEUE_NAME, queue);
      org.apache.hadoop.mapreduce.SleepJob job = new org.apache.hadoop.mapreduce.SleepJob();
      job.setConf(conf);
      return job.createJob(maps, reduces, mapMs, 1, reduceMs, 1).waitForCompletion(false);
    });
  }

  // ---------------------------------------------------------------- samples

  double[] sample(boolean print) throws Exception {
    MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
    // Heap used after a full collection: what is live, not what is garbage.
    mem.gc();
    double heap = mem.getHeapMemoryUsage().getUsed() / 1048576.0;
    double heapCommitted = mem.getHeapMemoryUsage().getCommitted() / 1048576.0;
    double nonHeap = mem.getNonHeapMemoryUsage().getUsed() / 1048576.0;
    double nonHeapCommitted = mem.getNonHeapMemoryUsage().getCommitted() / 1048576.0;
    double rss = rssMb();
    double nativeOutside = rss - heapCommitted - nonHeapCommitted;
    JsonNode st = cluster.engineState();
    int apps = st.path("apps").size();
    long containers = st.path("cluster").path("containers").asLong();
    int running = rmCount("RUNNING");
    int pending = rmCount("NEW,NEW_SAVING,SUBMITTED,ACCEPTED");
    double[] lat = latencyWindow();
    long[] s = {cluster.scheduler().getEngineAllocations(),
        cluster.scheduler().getFallbackAllocations(), cluster.scheduler().getEngineFailures()};
    double t = (System.currentTimeMillis() - t0) / 1000.0;
    double[] row = {t, heap, heapCommitted, nonHeap, rss, nativeOutside, apps, containers, running,
        pending, inFlight.get(), submitted.get(), succeeded.get(), failed.get(), lat[0], lat[1],
        lat[2], lat[3], s[0], s[1], s[2]};
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < row.length; i++) {
      line.append(i == 0 ? "" : ",");
      line.append(row[i] == Math.rint(row[i]) && Math.abs(row[i]) < 1e15
          ? String.valueOf((long) row[i]) : String.format(Locale.ROOT, "%.3f", row[i]));
    }
    csv.println(line);
    csv.flush();
    if (print) {
      samples.add(row);
      System.out.printf(Locale.ROOT, "soak %6.1f min: heap(after GC) %6.1f MB, RSS %6.0f MB"
          + " (native outside JVM %5.0f), engine apps %2d containers %2d, RM running %2d"
          + " pending %2d, jobs %d submitted %d ok %d failed, decisions %.0f p50 %.3f ms"
          + " p99 %.3f ms%n", t / 60, heap, rss, nativeOutside, apps, containers, running,
          pending, submitted.get(), succeeded.get(), failed.get(), lat[0], lat[1], lat[2]);
    }
    return row;
  }

  static double rssMb() throws IOException {
    for (String l : Files.readAllLines(Paths.get("/proc/self/status"))) {
      if (l.startsWith("VmRSS:")) {
        return Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024.0;
      }
    }
    return Double.NaN;
  }


  int rmCount(String states) throws IOException {
    JsonNode apps = cluster.rest("/ws/v1/cluster/apps?states=" + states).path("apps").path("app");
    return apps.isArray() ? apps.size() : 0;
  }

  /**
   * The engine's crossing-time histogram over the control channel ({@code
   * gauges} op): [count, P50 ms, P99 ms, mean ms] of the crossings since the
   * previous call, quantiles interpolated within the bucket as Prometheus's
   * {@code histogram_quantile} does.
   */
  double[] latencyWindow() throws IOException {
    double[] prev = lastHist;
    double prevSum = lastHistSum;
    long prevCount = lastHistCount;
    JsonNode h = readHistogram();
    JsonNode buckets = h.path("buckets");
    double[] les = new double[buckets.size()];
    double[] cum = new double[buckets.size()];
    for (int i = 0; i < les.length; i++) {
      les[i] = buckets.get(i).get(0).asDouble();
      cum[i] = buckets.get(i).get(1).asDouble() - (prev == null ? 0 : prev[i]);
    }
    long count = lastHistCount - prevCount;
    double sum = lastHistSum - prevSum;
    if (count <= 0) {
      return new double[] {0, Double.NaN, Double.NaN, Double.NaN};
    }
    return new double[] {count, quantile(0.5, les, cum, count) * 1000,
        quantile(0.99, les, cum, count) * 1000, sum / count * 1000};
  }

  static double quantile(double q, double[] les, double[] cum, long count) {
    double rank = q * count;
    double lower = 0;
    double below = 0;
    for (int i = 0; i < les.length; i++) {
      if (cum[i] >= rank) {
        double inBucket = cum[i] - below;
        return inBucket <= 0 ? les[i] : lower + (les[i] - lower) * (rank - below) / inBucket;
      }
      lower = les[i];
      below = cum[i];
    }
    return les[les.length - 1]; // in +Inf: the highest finite bound, as Prometheus
  }

  JsonNode readHistogram() throws IOException {
    JsonNode h = control("gauges").path("decision_seconds");
    JsonNode buckets = h.path("buckets");
    lastHist = new double[buckets.size()];
    for (int i = 0; i < lastHist.length; i++) {
      lastHist[i] = buckets.get(i).get(1).asDouble();
    }
    lastHistSum = h.path("sum_seconds").asDouble();
    lastHistCount = h.path("count").asLong();
    return h;
  }

  /** One request on the engine's control channel (one JSON line each way). */
  JsonNode control(String op) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", controlPort), 5000);
      s.setSoTimeout(10_000);
      OutputStream o = s.getOutputStream();
      o.write((JSON.createObjectNode().put("secret", secret).put("op", op) + "\n")
          .getBytes(StandardCharsets.UTF_8));
      o.flush();
      BufferedReader r = new BufferedReader(
          new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
      JsonNode a = JSON.readTree(r.readLine());
      if (!a.path("ok").asBoolean()) {
        throw new IOException("control channel " + op + ": " + a);
      }
      return a;
    }
  }

  // ---------------------------------------------------------------- checks

  /**
   * What the engine still holds about apps after the drain: apps, containers,
   * any YARN application id anywhere in its state (per-app maps of the
   * plugins key or list apps by id), and any per-app count of a plugin
   * ({@code apps}, {@code live_apps}, {@code pending_apps}, {@code
   * pending_containers}, {@code running_containers}, {@code tagged_containers},
   * {@code compiled_asks}) that is not 0. What the estimators learned from
   * finished apps (e.g. {@code job_keys}, one per (user, job name)) is history
   * that is meant to stay, bounded by the distinct keys.
   */
  static List<String> leftovers(JsonNode state) {
    List<String> out = new ArrayList<>();
    if (state.path("apps").size() > 0) {
      out.add("engine apps: " + state.path("apps").size());
    }
    if (state.path("cluster").path("containers").asLong() > 0) {
      out.add("engine containers: " + state.path("cluster").path("containers").asLong());
    }
    for (JsonNode q : state.path("queues")) {
      if (q.path("apps").asLong() > 0) {
        out.add("queue " + q.path("name").asText() + " apps: " + q.path("apps").asLong());
      }
    }
    Matcher m = APP_ID.matcher(state.toString());
    if (m.find()) {
      out.add("an application id remains in the state JSON: " + m.group());
    }
    walk("pipelines", state.path("pipelines"), out);
    return out;
  }

  static void walk(String path, JsonNode n, List<String> out) {
    if (n.isObject()) {
      n.fields().forEachRemaining(e -> {
        String k = e.getKey();
        JsonNode v = e.getValue();
        boolean perApp = Arrays.asList("apps", "live_apps", "pending_apps", "pending_containers",
            "running_containers", "tagged_containers", "compiled_asks").contains(k);
        if (perApp && (v.isNumber() && v.asDouble() != 0 || v.isArray() && v.size() > 0
            || v.isObject() && v.size() > 0 && !allZero(v))) {
          out.add(path + "." + k + " = " + v);
        } else {
          walk(path + "." + k, v, out);
        }
      });
    } else if (n.isArray()) {
      for (int i = 0; i < n.size(); i++) {
        walk(path + "[" + i + "]", n.get(i), out);
      }
    }
  }

  static boolean allZero(JsonNode o) {
    for (JsonNode v : o) {
      if (!(v.isNumber() && v.asDouble() == 0)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Sizes of the shim's per-app and per-container id tables (YARN ids to
   * the engine's): the Java side of "no state left behind". Nodes stay.
   */
  java.util.Map<String, Integer> shimMaps() {
    java.util.Map<String, Integer> out =
        new java.util.LinkedHashMap<>(cluster.scheduler().getIdTableSizes());
    out.remove("nodes");
    return out;
  }

  /** Entries of Hadoop's FileSystem cache in this JVM (the job clients' side). */
  static int fileSystemCacheSize() throws Exception {
    java.lang.reflect.Field cacheField = org.apache.hadoop.fs.FileSystem.class.getDeclaredField("CACHE");
    cacheField.setAccessible(true);
    Object cache = cacheField.get(null);
    java.lang.reflect.Field map = cache.getClass().getDeclaredField("map");
    map.setAccessible(true);
    return ((java.util.Map<?, ?>) map.get(cache)).size();
  }

  // ---------------------------------------------------------------- summary

  int summary(boolean drained, double drainS, double[] last, List<String> leftovers) {
    double durMin = (System.currentTimeMillis() - t0) / 60000.0;
    double windowS = Math.min(600, minutes * 60 / 3);
    // JIT, class loading and malloc arenas settle in the first minutes.
    double warmupS = Math.min(600, minutes * 60 / 6);
    double tEnd = samples.isEmpty() ? 0 : samples.get(samples.size() - 1)[0];
    // The first and the last windowS of samples (by count: samples are
    // taken a little after each 30 s mark).
    int n = Math.max(1, (int) Math.round(windowS / sampleS));
    double[] heapFirst = firstOrLast(1, n, true);
    double[] heapLast = firstOrLast(1, n, false);
    double[] rssFirst = firstOrLast(4, n, true);
    double[] rssLast = firstOrLast(4, n, false);
    double[] nativeFirst = firstOrLast(5, n, true);
    double[] nativeLast = firstOrLast(5, n, false);
    double heapSlope = slopePerHour(1, warmupS);
    double rssSlope = slopePerHour(4, warmupS);
    double nativeSlope = slopePerHour(5, warmupS);
    double[] appsCol = column(6, 0, tEnd + 1);
    double[] contCol = column(7, 0, tEnd + 1);

    System.out.println();
    System.out.println("==== soak summary");
    System.out.printf(Locale.ROOT, "duration: %.1f min of submissions + %.0f s drain (%d samples"
        + " every %d s)%n", durMin - drainS / 60, drainS, samples.size(), sampleS);
    System.out.printf("jobs: submitted %d, SUCCEEDED %d, FAILED %d (a submission waited for a"
        + " free slot %d times)%n", submitted.get(), succeeded.get(), failed.get(),
        waitedForSlot.get());
    System.out.printf(Locale.ROOT, "engine while loaded: apps max %.0f median %.0f, containers"
        + " max %.0f median %.0f%n", max(appsCol), median(appsCol), max(contCol), median(contCol));
    System.out.printf(Locale.ROOT, "heap after GC (MB), median first %.0f min vs last %.0f min:"
        + " %.1f vs %.1f; slope %.2f MB/h (after %.0f min warm-up; limit %.0f)%n", windowS / 60,
        windowS / 60, median(heapFirst), median(heapLast), heapSlope, warmupS / 60, maxHeapSlope);
    System.out.printf(Locale.ROOT, "process RSS (MB), median first vs last: %.1f vs %.1f; slope"
        + " %.2f MB/h (limit %.0f)%n", median(rssFirst), median(rssLast), rssSlope, maxRssSlope);
    System.out.printf(Locale.ROOT, "native outside the JVM's accounting (RSS - JVM committed, MB):"
        + " %.1f vs %.1f; slope %.2f MB/h%n", median(nativeFirst), median(nativeLast),
        nativeSlope);
    double[] firstLat = samples.isEmpty() ? new double[21] : samples.get(0);
    double[] lastLat = samples.isEmpty() ? new double[21] : samples.get(samples.size() - 1);
    System.out.printf(Locale.ROOT, "decision latency P50/P99 (ms): first window %.3f/%.3f"
        + " (%.0f decisions), last window %.3f/%.3f (%.0f decisions); median over windows"
        + " %.3f/%.3f%n", firstLat[15], firstLat[16], firstLat[14], lastLat[15], lastLat[16],
        lastLat[14], median(column(15, 0, tEnd + 1)), median(column(16, 0, tEnd + 1)));
    System.out.printf("after drain: engine apps %.0f, containers %.0f, RM running %.0f pending"
        + " %.0f; engine allocations %.0f, fallback allocations %.0f, engine failures %.0f%n",
        last[6], last[7], last[8], last[9], last[18], last[19], last[20]);
    System.out.println("per-app state after drain: " + (leftovers.isEmpty() ? "none" : leftovers));
    System.out.println("CSV: " + new File(out, "soak.csv").getAbsolutePath());
    List<String> failures = new ArrayList<>();
    if (failed.get() > 0) {
      failures.add(failed.get() + " job(s) failed");
    }
    if (!drained || inFlight.get() > 0) {
      failures.add("jobs still in flight after the drain");
    }
    if (!leftovers.isEmpty()) {
      failures.add("state remained after the drain");
    }
    if (heapSlope > maxHeapSlope) {
      failures.add(String.format(Locale.ROOT, "heap slope %.1f MB/h > %.0f", heapSlope,
          maxHeapSlope));
    }
    if (rssSlope > maxRssSlope) {
      failures.add(String.format(Locale.ROOT, "RSS slope %.1f MB/h > %.0f", rssSlope,
          maxRssSlope));
    }
    System.out.println("result: " + (failures.isEmpty() ? "PASS" : "FAIL " + failures));
    return failures.isEmpty() ? 0 : 1;
  }

  double[] firstOrLast(int c, int n, boolean first) {
    int size = samples.size();
    List<double[]> part = first ? samples.subList(0, Math.min(n, size))
        : samples.subList(Math.max(0, size - n), size);
    return part.stream().mapToDouble(r -> r[c]).filter(v -> !Double.isNaN(v)).toArray();
  }

  double[] column(int c, double from, double to) {
    return samples.stream().filter(r -> r[0] >= from && r[0] < to).mapToDouble(r -> r[c])
        .filter(v -> !Double.isNaN(v)).toArray();
  }

  /** Least-squares slope of column {@code c} against time, MB per hour, samples after warm-up. */
  double slopePerHour(int c, double warmupS) {
    double[] t = samples.stream().filter(r -> r[0] >= warmupS).mapToDouble(r -> r[0] / 3600)
        .toArray();
    double[] y = samples.stream().filter(r -> r[0] >= warmupS).mapToDouble(r -> r[c]).toArray();
    if (t.length < 2) {
      return Double.NaN;
    }
    double mt = Arrays.stream(t).average().orElse(0);
    double my = Arrays.stream(y).average().orElse(0);
    double num = 0;
    double den = 0;
    for (int i = 0; i < t.length; i++) {
      num += (t[i] - mt) * (y[i] - my);
      den += (t[i] - mt) * (t[i] - mt);
    }
    return den == 0 ? Double.NaN : num / den;
  }

  static double median(double[] v) {
    if (v.length == 0) {
      return Double.NaN;
    }
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  static double max(double[] v) {
    return Arrays.stream(v).max().orElse(Double.NaN);
  }
}
