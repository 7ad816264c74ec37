package org.shepherd.yarn.sls.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.shepherd.yarn.sls.CallTimes;
import org.shepherd.yarn.sls.JobRuntimeCsv;
import org.shepherd.yarn.sls.LatencyHistogram;
import org.shepherd.yarn.sls.MeasuredScheduler;
import org.shepherd.yarn.sls.compare.JobRecorder;
import org.shepherd.yarn.sls.compare.QueueSetup;
import org.shepherd.yarn.sls.compare.SlsTraceAmRunner;
import org.shepherd.yarn.sls.compare.SlsTraceJobs;

/**
 * One SLS simulation of the benchmark: starts Hadoop's SLSRunner (its RM with
 * the scheduler under test, its simulated NodeManagers and AMs) on a trace,
 * waits until every job has finished, and writes {@code bench-summary.json}
 * next to SLS's own output (realtimetrack.json, jobruntime.csv, metrics/).
 *
 * <pre>
 *   java $JDK17_OPENS -cp ... org.shepherd.yarn.sls.bench.SlsBenchRun
 *       --scheduler shepherd|capacity|fair [--policy drf] [--shepherd-config FILE]
 *       --native-library libshepherd.so --trace synth.json --nodes nodes.json --out DIR
 *       [--tracetype synth|sls] [--run K] [--sample-ms MS]
 * </pre>
 *
 * <p>With {@code --tracetype sls} the trace is SLS's own job format (as
 * {@code shepherd generate --out X.sls.json} writes it): its queues become
 * every scheduler's queues ({@link QueueSetup}), and the run also writes
 * {@code jobs.json} and {@code samples.jsonl} as the real-cluster harness
 * does ({@link JobRecorder}), with the configuration under {@code work/}.
 *
 * <p>SLS's own {@code main} exits the JVM the moment the last app finishes;
 * this runs SLSRunner as a library instead so that the figures only the
 * living RM holds (call times, engine counters) can be read first. Exit
 * status 0 when every job finished, 2 on timeout.
 */
public final class SlsBenchRun {
  private SlsBenchRun() {}

  public static void main(String[] args) throws Exception {
    RunOptions o = RunOptions.parse(args);
    ObjectNode summary;
    try {
      summary = run(o);
    } catch (Exception | Error e) {
      // SLS leaves non-daemon threads behind (its metrics, its simulated
      // NMs); without an explicit exit a failed start would hang here.
      e.printStackTrace();
      System.exit(1);
      return;
    }
    System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter()
        .writeValueAsString(summary));
    System.exit(summary.path("timed_out").asBoolean() ? 2 : 0);
  }

  /** Runs the simulation and returns (and writes) its summary. */
  public static ObjectNode run(RunOptions o) throws Exception {
    if (!o.out.isDirectory() && !o.out.mkdirs()) {
      throw new IllegalStateException("cannot create " + o.out);
    }
    LiveHeap heap = new LiveHeap();
    boolean slsTrace = o.traceType.equals("sls");
    List<SlsTraceJobs.Job> traceJobs = slsTrace ? SlsTraceJobs.read(o.trace) : null;
    QueueSetup queues = new QueueSetup(slsTrace
        ? SlsTraceJobs.queues(traceJobs) : Collections.singletonList("default"));
    Configuration conf = RunConfiguration.of(o, queues);
    if (!o.scheduler.equals("shepherd")) {
      // The engine policy standing in for this scheduler in Shepherd's
      // simulator (shepherd calibrate --cluster-model sls).
      QueueSetup.write(new File(o.out, "work/counterpart.toml"),
          queues.counterpartToml(o.scheduler));
    }
    SLSRunner sls = new SLSRunner(conf);
    if (slsTrace) {
      SlsTraceAmRunner.install(sls, conf, o.trace);
    }
    sls.run(new String[] {"-tracetype", slsTrace ? "SLS" : "SYNTH",
        "-tracelocation", o.trace.getAbsolutePath(),
        "-output", o.out.getAbsolutePath(), "-nodes", o.nodes.getAbsolutePath()});
    // run() returns once every simulated NM is RUNNING and the simulated
    // clock has started: second 0 of the trace.
    long start = System.nanoTime();
    CpuUse cpuAtStart = CpuUse.now();
    RoundThreads rounds = RoundThreads.now();
    MeasuredScheduler scheduler = MeasuredScheduler.current();
    if (scheduler == null) {
      throw new IllegalStateException("the RM's scheduler is not a benchmark scheduler");
    }
    RunSampler sampler = new RunSampler(scheduler, sls::getRemainingApps, heap,
        new File(o.out, "series.csv"), start);
    Thread samplerThread = new Thread(sampler, "sls-bench-sampler");
    samplerThread.setDaemon(true);
    samplerThread.start();
    JobRecorder recorder = null;
    if (slsTrace) {
      // Every job's times and the running apps' containers, as the
      // real-cluster harness records them (jobs.json, samples.jsonl).
      recorder = new JobRecorder(sls, scheduler.scheduler(), scheduler.rmContext(), traceJobs,
          o.sampleMs, o.out);
      Thread recorderThread = new Thread(recorder, "sls-job-recorder");
      recorderThread.setDaemon(true);
      recorderThread.start();
    }

    long deadline = start + o.timeoutS * 1_000_000_000L;
    while (sls.getRemainingApps() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    long end = System.nanoTime();
    CpuUse cpuAtEnd = CpuUse.now();
    boolean timedOut = sls.getRemainingApps() > 0;
    sampler.stop();
    if (!timedOut) {
      awaitJobRuntimes(new File(o.out, "jobruntime.csv"),
          number(SLSRunner.getSimulateInfoMap().get("Number of applications")));
      awaitFinalStates(scheduler.rmContext());
    }
    if (recorder != null) {
      // The RM records an app FINISHED once its AM container's release
      // reaches it (the next NM heartbeat after SLS's AM unregisters).
      long until = System.nanoTime() + 15_000_000_000L;
      while (!timedOut && !recorder.allFinal() && System.nanoTime() < until) {
        Thread.sleep(50);
      }
      recorder.stop();
      recorder.writeJobs(o.out, o.harnessName(), o.label(), o.run, o.trace, o.nmHeartbeatMs,
          System.currentTimeMillis() - (System.nanoTime() - start) / 1_000_000L);
    }

    ObjectNode s = summarize(o, scheduler, sampler, heap, (end - start) / 1e9,
        sls.getRemainingApps(), timedOut);
    s.put("process_cpu_cores", cpuAtEnd.processCores(cpuAtStart));
    s.put("machine_cpu_cores", cpuAtEnd.machineCores(cpuAtStart));
    s.put("machine_cores", Runtime.getRuntime().availableProcessors());
    // Allocation between heartbeats runs on threads of its own (none without it).
    s.put("round_threads_cpu_s", rounds.cpuSecondsSinceStart());
    ArrayNode roundThreads = s.putArray("round_threads");
    rounds.names().forEach(roundThreads::add);
    new ObjectMapper().writerWithDefaultPrettyPrinter()
        .writeValue(new File(o.out, "bench-summary.json"), s);
    try {
      sls.stop();
    } catch (Exception | Error e) {
      System.err.println("SLS did not stop cleanly: " + e);
    }
    return s;
  }

  private static ObjectNode summarize(RunOptions o, MeasuredScheduler scheduler,
      RunSampler sampler, LiveHeap heap, double wallS, int remaining, boolean timedOut) {
    Map<String, Object> info = SLSRunner.getSimulateInfoMap();
    ObjectNode s = new ObjectMapper().createObjectNode();
    s.put("date", Instant.now().toString());
    s.put("label", o.label());
    s.put("scheduler", o.scheduler);
    if (o.scheduler.equals("shepherd")) {
      s.put("policy", o.policy);
    } else if (o.scheduler.equals("capacity")) {
      s.put("capacity_offswitch_per_heartbeat", o.capacityOffswitchPerHeartbeat > 0
          ? o.capacityOffswitchPerHeartbeat : 1);
      s.put("capacity_node_locality_delay", o.capacityNodeLocalityDelay != null
          ? o.capacityNodeLocalityDelay : 40);
    }
    s.put("nodes", number(info.get("Number of nodes")));
    s.put("nm_memory_mb", o.nmMemoryMb);
    s.put("nm_vcores", o.nmVcores);
    s.put("nm_heartbeat_ms", o.nmHeartbeatMs);
    s.put("async_interval_ms", o.asyncIntervalMs);
    s.put("am_heartbeat_ms", o.amHeartbeatMs);
    s.put("tracetype", o.traceType);
    int jobs = number(info.get("Number of applications"));
    s.put("jobs", jobs);
    s.put("jobs_finished", jobs - remaining);
    s.put("tasks", number(info.get("Number of tasks")));
    s.put("timed_out", timedOut);
    s.put("wall_s", wallS);
    long allocated = sampler.allocatedNow();
    s.put("containers_allocated", allocated);
    s.put("alloc_per_s", allocated / wallS);
    s.put("alloc_per_s_peak", sampler.peakAllocPerSecond());
    // Where the containers went, as YARN's own queue metrics count them
    // (delay scheduling trades allocations now for locality).
    QueueMetrics root = scheduler.scheduler().getRootQueueMetrics();
    if (root != null) {
      ObjectNode locality = s.putObject("locality");
      locality.put("node_local", root.getAggregateNodeLocalContainersAllocated());
      locality.put("rack_local", root.getAggregateRackLocalContainersAllocated());
      locality.put("off_switch", root.getAggregateOffSwitchContainersAllocated());
    }

    CallTimes t = scheduler.callTimes();
    put(s.putObject("allocate"), t.allocate(), wallS);
    put(s.putObject("node_update"), t.event(SchedulerEventType.NODE_UPDATE), wallS);
    // NodeManager heartbeats the simulated NMs send per second; the RM
    // drops a node's heartbeat while its previous NODE_UPDATE is still
    // queued, so fewer handled than offered means the scheduler fell behind.
    s.put("node_heartbeats_offered_per_s", number(info.get("Number of nodes")) * 1000.0
        / o.nmHeartbeatMs);
    put(s.putObject("allocate_with_sls"), t.allocateWithSls(), wallS);
    put(s.putObject("node_update_with_sls"), t.eventWithSls(SchedulerEventType.NODE_UPDATE),
        wallS);
    // The RM hands every event to the scheduler on one thread; its busy
    // share says how close the scheduler is to being the bottleneck. With
    // SLS's wrapper included, how close the thread is to saturation.
    s.put("event_thread_busy_share", t.eventNanos() / 1e9 / wallS);
    s.put("event_thread_busy_share_with_sls", t.eventNanosWithSls() / 1e9 / wallS);
    s.put("events_handled", t.eventCount());
    s.put("allocate_busy_s", t.allocate().sumNanos() / 1e9);
    sampler.crossings().poll();
    if (sampler.crossings().crossings() > 0) {
      // Shepherd only: the part of NODE_UPDATE spent in the JNI crossing and
      // the Rust engine's pass (the shim's own measurement).
      s.put("engine_crossings", sampler.crossings().crossings());
      s.put("engine_crossing_busy_s", sampler.crossings().totalSeconds());
    }

    s.put("heap_peak_used_mb", heap.peakUsedBytes() >> 20);
    s.put("heap_peak_after_gc_mb", heap.peakAfterGcBytes() >> 20);
    s.put("rss_peak_mb", LiveHeap.peakRssBytes() >> 20);
    s.put("heap_max_mb", Runtime.getRuntime().maxMemory() >> 20);
    ObjectNode counters = s.putObject("counters");
    scheduler.counters().forEach(counters::put);
    // How the RM ended each app: every job of a clean run FINISHED (an app
    // FAILED with all its tasks done is SLS's AM ending out of order, which
    // UnregisterFirstMRAMSimulator prevents).
    ObjectNode states = s.putObject("app_states");
    appStates(scheduler.rmContext()).forEach(states::put);
    return s;
  }

  /** How many of the RM's apps are in each state, by state name. */
  private static Map<String, Integer> appStates(RMContext rm) {
    Map<String, Integer> states = new TreeMap<>();
    for (RMApp app : rm.getRMApps().values()) {
      states.merge(app.getState().toString(), 1, Integer::sum);
    }
    return states;
  }

  /**
   * SLS counts an app done when its attempt is removed; the app's own final
   * state follows on the RM's dispatcher. Wait up to 10 s for every app to
   * reach one, so app_states reports how each ended.
   */
  private static void awaitFinalStates(RMContext rm) throws InterruptedException {
    long until = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < until && rm.getRMApps().values().stream()
        .anyMatch(a -> !JobRecorder.isFinal(a.getState()))) {
      Thread.sleep(50);
    }
  }

  private static void put(ObjectNode n, LatencyHistogram h, double wallS) {
    n.put("count", h.count());
    n.put("per_s", h.count() / wallS);
    n.put("mean_us", h.meanNanos() / 1e3);
    n.put("p50_us", h.quantileNanos(0.50) / 1e3);
    n.put("p99_us", h.quantileNanos(0.99) / 1e3);
    n.put("max_us", h.maxNanos() / 1e3);
    n.put("busy_s", h.sumNanos() / 1e9);
  }

  /**
   * SLS counts an app as done before its AM simulator's last step writes
   * the app's row to jobruntime.csv, so stopping SLS at once can lose the
   * last row (CI on 2026-12-04 read 5 of 6). Wait up to 10 s for every row;
   * the run's times were taken before this.
   */
  private static void awaitJobRuntimes(File csv, int jobs) throws Exception {
    long until = System.nanoTime() + 10_000_000_000L;
    while (JobRuntimeCsv.rows(csv).size() < jobs && System.nanoTime() < until) {
      Thread.sleep(50);
    }
  }

  private static int number(Object o) {
    return o instanceof Number ? ((Number) o).intValue() : -1;
  }
}
