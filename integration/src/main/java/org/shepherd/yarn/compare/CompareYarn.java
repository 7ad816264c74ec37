package org.shepherd.yarn.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.commons.io.FileUtils;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;

/**
 * The real-YARN comparison harness (scripts/compare-yarn.sh): for each
 * scheduler, start a local YARN cluster (real ResourceManager, real
 * NodeManagers sized by the trace's {@code cluster}), submit the trace's jobs
 * at their trace submission times, wait for all of them, record what the RM
 * REST API reports, and stop the cluster. Repeated {@code --repeat} times.
 *
 * <p>Writes {@code OUT/<scheduler>/run-<k>/jobs.json} and {@code samples.jsonl};
 * {@code shepherd yarn-report OUT} turns them into the tables and plots.
 *
 * <pre>
 * CompareYarn --trace FILE --out DIR [--schedulers shepherd:dress,capacity,fair]
 *             [--repeat 1] [--split-mb 2] [--poll-ms 500] [--timeout-s 1800]
 *             [--hadoop-conf DIR] [--utilization off|containers]
 *             [--nm-heartbeat-ms 1000]
 * </pre>
 *
 * <p>{@code --nm-heartbeat-ms} sets every NodeManager's heartbeat interval
 * ({@code yarn.resourcemanager.nodemanagers.heartbeat-interval-ms}, YARN's
 * default 1000 ms) for every scheduler, and {@code jobs.json} records it, so
 * that {@code shepherd calibrate} simulates the runs with the same interval.
 *
 * <p>{@code --utilization containers} turns on the NodeManagers' container
 * monitors (1 s), gives every scheduler the same setting, records measured
 * use in the samples, and has Shepherd's engine read each NM's containers'
 * measured use ({@code yarn.scheduler.shepherd.utilization = containers}):
 * the NMs of this cluster share one machine, so the machine-wide figure
 * would be all of them at once. Each NM is given an equal slice of the
 * machine's CPU ({@code yarn.nodemanager.resource.percentage-physical-cpu-limit}
 * = 100 / NMs), so its containers' CPU is reported in its own vcores as on a
 * machine of its own.
 */
public final class CompareYarn {
  private CompareYarn() {
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = parse(argv);
    File traceFile = new File(required(a, "trace"));
    File out = new File(required(a, "out"));
    File hadoopConf = a.containsKey("hadoop-conf") ? new File(a.get("hadoop-conf")) : null;
    List<SchedulerSpec> specs = new ArrayList<>();
    for (String s : a.getOrDefault("schedulers", "shepherd:dress,capacity,fair").split(",")) {
      specs.add(SchedulerSpec.parse(s, hadoopConf,
          new File(a.getOrDefault("base-dir", System.getProperty("user.dir")))));
    }
    int repeat = Integer.parseInt(a.getOrDefault("repeat", "1"));
    int splitMb = Integer.parseInt(a.getOrDefault("split-mb", "2"));
    long pollMs = Long.parseLong(a.getOrDefault("poll-ms", "500"));
    long timeoutS = Long.parseLong(a.getOrDefault("timeout-s", "1800"));
    String utilization = a.getOrDefault("utilization", "off");
    if (!utilization.equals("off") && !utilization.equals("containers")) {
      throw new IllegalArgumentException("--utilization " + utilization
          + ": expected off or containers");
    }
    boolean measureUse = utilization.equals("containers");
    long nmHeartbeatMs = nmHeartbeatMs(a.get("nm-heartbeat-ms"));

    TraceJob.Trace trace = TraceJob.read(traceFile);
    out.mkdirs();
    HiBenchInputs inputs = new HiBenchInputs(new File(out, "inputs"), splitMb);
    Map<String, AppFramework> frameworks = AppFrameworks.forJobs(trace.jobs);
    long prep = System.currentTimeMillis();
    for (AppFramework f : frameworks.values()) {
      List<TraceJob> ofType = new ArrayList<>();
      for (TraceJob j : trace.jobs) {
        if (j.appType.equals(f.appType())) {
          ofType.add(j);
        }
      }
      f.prepareInputs(ofType, inputs);
    }
    System.out.printf("inputs ready in %.1f s (%d MiB per map); application types %s%n",
        (System.currentTimeMillis() - prep) / 1000.0, splitMb, frameworks.keySet());

    int failed = 0;
    for (int run = 1; run <= repeat; run++) {
      for (SchedulerSpec spec : specs) {
        File dir = new File(out, spec.label + "/run-" + run);
        failed += runOnce(spec, run, trace, traceFile, dir, inputs, frameworks, pollMs, timeoutS,
            measureUse, nmHeartbeatMs);
      }
    }
    System.out.printf("%nraw results in %s; %d job(s) did not succeed%n", out, failed);
    System.exit(0);
  }

  /** One scheduler, one repetition. Returns the number of jobs that did not succeed. */
  static int runOnce(SchedulerSpec spec, int run, TraceJob.Trace trace, File traceFile,
      File dir, HiBenchInputs inputs, Map<String, AppFramework> frameworks, long pollMs,
      long timeoutS, boolean measureUse, long nmHeartbeatMs) throws Exception {
    FileUtils.deleteQuietly(dir);
    File work = new File(dir, "work");
    work.mkdirs();
    Configuration conf = ShepherdCluster.commonConf(trace.nodeMemoryMb, trace.nodeVcores);
    // The ApplicationMaster gets the same 512 MiB container as a task, so a
    // job's peak is (maps + 1) containers, as the trace generator assumes.
    conf.setInt(MRJobConfig.MR_AM_VMEM_MB, 512);
    conf.set(MRJobConfig.MR_AM_COMMAND_OPTS,
        "-Xmx384m " + System.getProperty("shepherd.jdk17.opens", ""));
    if (measureUse) {
      ShepherdCluster.measureContainerUse(conf, trace.nodes);
    }
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, nmHeartbeatMs);
    spec.configure(conf, work);
    for (AppFramework f : frameworks.values()) {
      conf = f.clusterConf(conf);
    }
    String name = "cmp-" + spec.label + "-" + run;
    System.out.printf("%n==> %s run %d: %s, %d NodeManagers of %d MiB / %d vcores"
        + " heartbeating every %d ms, %d jobs%n",
        spec.label, run, spec.description(), trace.nodes, trace.nodeMemoryMb, trace.nodeVcores,
        nmHeartbeatMs, trace.jobs.size());
    long clusterStart = System.currentTimeMillis();
    try (ShepherdCluster cluster = ShepherdCluster.start(name, conf, trace.nodes, work)) {
      System.out.printf("    cluster up in %.1f s, scheduler %s%n",
          (System.currentTimeMillis() - clusterStart) / 1000.0,
          cluster.rm().getResourceScheduler().getClass().getSimpleName());
      Map<String, AppFramework.Submitter> submitters = new HashMap<>();
      for (AppFramework f : frameworks.values()) {
        submitters.put(f.appType(), f.open(cluster, work, inputs));
      }
      Map<String, String> errors = new LinkedHashMap<>();
      ExecutorService pool = Executors.newFixedThreadPool(trace.jobs.size());
      long t0 = System.currentTimeMillis();
      List<Future<Boolean>> futures = new ArrayList<>();
      try (RmPoller poller = new RmPoller(cluster, pollMs, new File(dir, "samples.jsonl"),
          measureUse)) {
        for (TraceJob job : trace.jobs) {
          futures.add(pool.submit(() -> {
            long wait = t0 + job.submitMs - System.currentTimeMillis();
            if (wait > 0) {
              Thread.sleep(wait);
            }
            return submitters.get(job.appType).run(job);
          }));
        }
        long deadline = t0 + timeoutS * 1000;
        int done = 0;
        for (int i = 0; i < futures.size(); i++) {
          TraceJob job = trace.jobs.get(i);
          try {
            boolean ok = futures.get(i).get(
                Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
            if (!ok) {
              errors.put(job.id, "job reported failure");
            }
          } catch (TimeoutException e) {
            errors.put(job.id, "not finished after " + timeoutS + " s");
          } catch (Exception e) {
            Throwable c = e.getCause() != null ? e.getCause() : e;
            errors.put(job.id, c.getClass().getSimpleName() + ": " + c.getMessage());
          }
          done++;
          System.out.printf("    [%5.1f s] %d/%d jobs done%n",
              (System.currentTimeMillis() - t0) / 1000.0, done, futures.size());
        }
      } finally {
        pool.shutdownNow();
      }
      int failed = writeJobs(cluster, spec, run, trace, traceFile, dir, pollMs, nmHeartbeatMs, t0,
          errors);
      if (cluster.rm().getResourceScheduler() instanceof ShepherdScheduler) {
        // The engine's own view at the end (policy state, counters): what an
        // operator would look at if a run went wrong.
        Files.write(new File(dir, "engine-state.json").toPath(),
            cluster.scheduler().getEngineStateJson().getBytes(StandardCharsets.UTF_8));
        // What `shepherd calibrate` fits the simulator to: AM start-up,
        // container launch and tear-down, heartbeat times.
        Files.write(new File(dir, "activity.json").toPath(),
            cluster.scheduler().getEngineActivityJson().getBytes(StandardCharsets.UTF_8));
      }
      System.out.printf("    %s run %d: %d jobs, %d not succeeded, %.1f s%n", spec.label, run,
          trace.jobs.size(), failed, (System.currentTimeMillis() - t0) / 1000.0);
      return failed;
    } finally {
      // MiniYARNCluster keeps NodeManager dirs and container logs under ./target/<name>.
      FileUtils.deleteQuietly(new File("target", name));
      FileUtils.deleteQuietly(new File(work, "output"));
    }
  }

  /** Matches RM applications to trace jobs by tag and writes jobs.json. */
  private static int writeJobs(ShepherdCluster cluster, SchedulerSpec spec, int run,
      TraceJob.Trace trace, File traceFile, File dir, long pollMs, long nmHeartbeatMs, long t0,
      Map<String, String> errors) throws IOException {
    Map<String, JsonNode> byTag = new HashMap<>();
    for (JsonNode app : cluster.rest("/ws/v1/cluster/apps").path("apps").path("app")) {
      for (String tag : app.path("applicationTags").asText("").split(",")) {
        byTag.put(tag.trim(), app);
      }
    }
    ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = json.createObjectNode();
    root.put("scheduler", spec.spec);
    root.put("label", spec.label);
    root.put("run", run);
    root.put("trace", traceFile.getPath());
    root.put("poll_ms", pollMs);
    root.put("nm_heartbeat_ms", nmHeartbeatMs);
    root.put("start_ms", t0);
    if (cluster.rm().getResourceScheduler() instanceof ShepherdScheduler) {
      // Containers the shim placed without the engine (its fallback, when
      // the engine fails or returns nothing): 0 when the engine placed all.
      root.put("fallback_allocations", cluster.scheduler().getFallbackAllocations());
    }
    ObjectNode c = root.putObject("cluster");
    c.put("nodes", trace.nodes);
    c.put("memory_mb", trace.nodeMemoryMb);
    c.put("vcores", trace.nodeVcores);
    ArrayNode jobs = root.putArray("jobs");
    int failed = 0;
    for (TraceJob job : trace.jobs) {
      JsonNode app = byTag.get(job.tag());
      ObjectNode o = jobs.addObject();
      o.put("id", job.id);
      o.put("app_id", app == null ? null : app.path("id").asText());
      o.put("name", job.name);
      o.put("app_type", job.appType);
      o.put("kind", job.kind.label());
      o.put("user", job.user);
      o.put("queue", job.queue);
      o.put("category", job.category);
      o.put("maps", job.maps);
      o.put("reduces", job.reduces);
      o.put("planned_submit_ms", job.submitMs);
      o.put("submit_ms", app == null ? 0 : app.path("startedTime").asLong());
      o.put("am_launch_ms", app == null ? 0 : Math.max(0, app.path("launchTime").asLong()));
      o.put("finish_ms", app == null ? 0 : app.path("finishedTime").asLong());
      o.put("state", app == null ? "MISSING" : app.path("state").asText());
      o.put("final_status", app == null ? "MISSING" : app.path("finalStatus").asText());
      String error = errors.get(job.id);
      if (error == null && app == null) {
        error = "no RM application carries tag " + job.tag();
      }
      o.put("error", error);
      if (app != null) {
        o.put("preempted_containers", app.path("numAMContainerPreempted").asInt()
            + app.path("numNonAMContainerPreempted").asInt());
      }
      if (error != null || !"SUCCEEDED".equals(o.path("final_status").asText())) {
        failed++;
        System.out.printf("    job %s (%s): %s / %s %s%n", job.id, job.kind.label(),
            o.path("state").asText(), o.path("final_status").asText(), error == null ? "" : error);
      }
    }
    Files.createDirectories(dir.toPath());
    json.writeValue(new File(dir, "jobs.json"), root);
    return failed;
  }

  private static Map<String, String> parse(String[] argv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < argv.length; i++) {
      if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
        throw new IllegalArgumentException("expected --key value pairs, got `" + argv[i] + "`");
      }
      m.put(argv[i].substring(2), argv[++i]);
    }
    return m;
  }

  /**
   * {@code --nm-heartbeat-ms}: the NodeManagers' heartbeat interval, YARN's
   * default when absent; anything but a positive number of milliseconds is
   * rejected, naming the option and the value.
   */
  static long nmHeartbeatMs(String value) {
    if (value == null) {
      return YarnConfiguration.DEFAULT_RM_NM_HEARTBEAT_INTERVAL_MS;
    }
    long ms = Millis.positive(value.trim());
    if (ms <= 0) {
      throw new IllegalArgumentException("--nm-heartbeat-ms " + value
          + ": expected a positive number of milliseconds");
    }
    return ms;
  }

  private static String required(Map<String, String> a, String key) {
    String v = a.get(key);
    if (v == null) {
      throw new IllegalArgumentException("--" + key + " is required");
    }
    return v;
  }
}
