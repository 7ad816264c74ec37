package org.shepherd.yarn.sls.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.shepherd.yarn.sls.JobRuntimeCsv;

/**
 * The benchmark's table: reads every run directory under the given root (or
 * the given run directories) — the runner's {@code bench-summary.json} and
 * SLS's own {@code jobruntime.csv} and {@code realtimetrack.json} — and
 * prints one Markdown row per run, then the median per scheduler and node
 * count and Shepherd's throughput over the CapacityScheduler's.
 *
 * <pre>
 *   java -cp ... org.shepherd.yarn.sls.bench.SlsBenchReport OUT_DIR [--md table.md]
 * </pre>
 */
public final class SlsBenchReport {
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * A run during which other processes used more than this many cores is
   * marked disturbed: SLS runs in real time, so it measured the machine's
   * load as much as the scheduler. Medians leave such runs out when the
   * group has undisturbed ones.
   */
  static final double DISTURBED_OTHER_CORES = 0.25;

  /** One run, as the table needs it. */
  static final class Run {
    String dir;
    String label;
    int nodes;
    int jobs;
    int jobsFinished;
    int slsJobsRecorded;
    double meanJobS;
    double wallS;
    long containers;
    double allocPerS;
    double allocPeak;
    double nodeUpdatesPerS;
    double nuP50;
    double nuP99;
    double alP50;
    double alP99;
    double busy;
    double busyWithSls;
    /** CPU seconds of the threads allocating between heartbeats; 0 without them. */
    double roundThreadsCpuS;
    long heapAfterGcMb;
    long heapUsedPeakMb;
    double slsJvmUsedPeakMb;
    long rssPeakMb;
    double processCores;
    double otherCores;
    long engineAllocations = -1;
    long fallbackAllocations = -1;
  }

  public static void main(String[] args) throws IOException {
    List<File> dirs = new ArrayList<>();
    File md = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--md")) {
        md = new File(args[++i]);
      } else {
        dirs.add(new File(args[i]));
      }
    }
    List<Run> runs = new ArrayList<>();
    for (File d : dirs) {
      collect(d, runs);
    }
    runs.sort(Comparator.comparingInt((Run r) -> r.nodes).thenComparing(r -> r.label)
        .thenComparing(r -> r.dir));
    String text = render(runs);
    System.out.print(text);
    if (md != null) {
      Files.write(md.toPath(), text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Every directory holding a bench-summary.json, at any depth. */
  private static void collect(File dir, List<Run> out) throws IOException {
    File summary = new File(dir, "bench-summary.json");
    if (summary.isFile()) {
      out.add(read(dir));
      return;
    }
    File[] children = dir.listFiles(File::isDirectory);
    if (children != null) {
      Arrays.sort(children);
      for (File c : children) {
        collect(c, out);
      }
    }
  }

  static Run read(File dir) throws IOException {
    JsonNode s = JSON.readTree(new File(dir, "bench-summary.json"));
    Run r = new Run();
    r.dir = dir.getPath();
    r.label = s.path("label").asText();
    r.nodes = s.path("nodes").asInt();
    r.jobs = s.path("jobs").asInt();
    r.jobsFinished = s.path("jobs_finished").asInt();
    r.wallS = s.path("wall_s").asDouble();
    r.containers = s.path("containers_allocated").asLong();
    r.allocPerS = s.path("alloc_per_s").asDouble();
    r.allocPeak = s.path("alloc_per_s_peak").asDouble();
    r.nodeUpdatesPerS = s.path("node_update").path("per_s").asDouble();
    r.nuP50 = s.path("node_update").path("p50_us").asDouble();
    r.nuP99 = s.path("node_update").path("p99_us").asDouble();
    r.alP50 = s.path("allocate").path("p50_us").asDouble();
    r.alP99 = s.path("allocate").path("p99_us").asDouble();
    r.busy = s.path("event_thread_busy_share").asDouble();
    r.busyWithSls = s.path("event_thread_busy_share_with_sls").asDouble();
    r.roundThreadsCpuS = s.path("round_threads_cpu_s").asDouble();
    r.heapAfterGcMb = s.path("heap_peak_after_gc_mb").asLong();
    r.heapUsedPeakMb = s.path("heap_peak_used_mb").asLong();
    r.rssPeakMb = s.path("rss_peak_mb").asLong();
    r.processCores = s.path("process_cpu_cores").asDouble();
    r.otherCores = Math.max(0, s.path("machine_cpu_cores").asDouble() - r.processCores);
    JsonNode c = s.path("counters");
    if (c.has("engine_allocations")) {
      r.engineAllocations = c.path("engine_allocations").asLong();
      r.fallbackAllocations = c.path("fallback_allocations").asLong();
    }
    readJobRuntimes(new File(dir, "jobruntime.csv"), r);
    r.slsJvmUsedPeakMb = slsJvmUsedPeakMb(new File(dir, "realtimetrack.json"));
    return r;
  }

  /** SLS's per-job log: JobID,real_start,real_end,simulate_start,simulate_end (ms). */
  private static void readJobRuntimes(File csv, Run r) throws IOException {
    double sum = 0;
    int n = 0;
    for (String[] f : JobRuntimeCsv.rows(csv)) {
      sum += (Long.parseLong(f[4].trim()) - Long.parseLong(f[3].trim())) / 1000.0;
      n++;
    }
    r.slsJobsRecorded = n;
    r.meanJobS = n == 0 ? 0 : sum / n;
  }

  /**
   * Peak JVM heap in use as SLS's realtimetrack.json reports it once a second
   * (jvm.total.memory - jvm.free.memory, in GB there). SLS closes the JSON
   * array only when the simulation ends normally, so lines are read one by one.
   */
  private static double slsJvmUsedPeakMb(File track) throws IOException {
    if (!track.isFile()) {
      return -1;
    }
    double peak = -1;
    for (String line : Files.readAllLines(track.toPath(), StandardCharsets.UTF_8)) {
      String t = line.trim();
      if (t.startsWith("[")) {
        t = t.substring(1);
      }
      if (t.startsWith(",")) {
        t = t.substring(1);
      }
      if (t.endsWith("]")) {
        t = t.substring(0, t.length() - 1);
      }
      if (!t.startsWith("{")) {
        continue;
      }
      JsonNode n = JSON.readTree(t);
      double used = n.path("jvm.total.memory").asDouble() - n.path("jvm.free.memory").asDouble();
      peak = Math.max(peak, used * 1024);
    }
    return peak;
  }

  static String render(List<Run> runs) {
    StringBuilder b = new StringBuilder();
    b.append("| scheduler | NMs | jobs done | run s | alloc/s | peak alloc/s | NODE_UPDATE/s "
        + "| NODE_UPDATE P50 / P99 µs | allocate P50 / P99 µs | event thread busy (sched / +SLS) "
        + "| round threads CPU | heap after GC MB | heap used MB (SLS) | RSS MB | mean job s "
        + "| other load |\n");
    b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Run r : runs) {
      b.append(row(r));
    }
    Map<String, List<Run>> all = new LinkedHashMap<>();
    for (Run r : runs) {
      all.computeIfAbsent(r.nodes + "\t" + r.label, k -> new ArrayList<>()).add(r);
    }
    Map<String, List<Run>> groups = new LinkedHashMap<>();
    all.forEach((k, g) -> groups.put(k, clean(g)));
    boolean repeated = all.values().stream().anyMatch(g -> g.size() > 1);
    if (repeated) {
      b.append(String.format(Locale.ROOT, "%nMedian over repetitions (runs with more than %.2f"
          + " cores of other load on the machine left out when the group has others):%n%n",
          DISTURBED_OTHER_CORES));
      b.append("| scheduler | NMs | runs | run s | alloc/s | peak alloc/s | alloc per busy s "
          + "| NODE_UPDATE P50 / P99 µs | allocate P50 / P99 µs | heap after GC MB |\n");
      b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      for (List<Run> g : groups.values()) {
        Run f = g.get(0);
        b.append(String.format(Locale.ROOT, "| %s | %d | %d | %.1f | %.0f | %.0f | %.0f | %.0f / %.0f "
            + "| %.0f / %.0f | %.0f |\n", f.label, f.nodes, g.size(),
            median(g, r -> r.wallS), median(g, r -> r.allocPerS), median(g, r -> r.allocPeak),
            median(g, SlsBenchReport::allocPerBusyS),
            median(g, r -> r.nuP50), median(g, r -> r.nuP99), median(g, r -> r.alP50),
            median(g, r -> r.alP99), median(g, r -> (double) r.heapAfterGcMb)));
      }
    }
    b.append("\nShepherd's throughput over the CapacityScheduler's at the same NM count"
        + " (medians; alloc/s, and in brackets the peak second and the allocations per second"
        + " the scheduler was busy on the event thread and, with rounds, on its round threads,"
        + " i.e. what it could sustain if saturated):\n\n");
    for (List<Run> g : groups.values()) {
      Run f = g.get(0);
      if (f.label.startsWith("capacity")) {
        continue;
      }
      for (List<Run> base : groups.values()) {
        Run cs = base.get(0);
        if (!cs.label.startsWith("capacity") || cs.nodes != f.nodes) {
          continue;
        }
        b.append(String.format(Locale.ROOT, "- %s / %s at %d NMs: %.2fx (%.2fx; per busy"
            + " second %.2fx)%n", f.label,
            cs.label, f.nodes, median(g, r -> r.allocPerS) / median(base, r -> r.allocPerS),
            median(g, r -> r.allocPeak) / median(base, r -> r.allocPeak),
            median(g, SlsBenchReport::allocPerBusyS) / median(base, SlsBenchReport::allocPerBusyS)));
      }
    }
    int shepherdRuns = 0;
    for (Run r : runs) {
      if (r.engineAllocations < 0) {
        continue;
      }
      shepherdRuns++;
      if (r.engineAllocations != r.containers || r.fallbackAllocations != 0) {
        b.append(String.format(Locale.ROOT, "%n%s: of %d containers, %d placed by the Rust engine,"
            + " %d by the fallback FIFO", r.dir, r.containers, r.engineAllocations,
            r.fallbackAllocations));
      }
    }
    if (shepherdRuns > 0) {
      b.append(String.format(Locale.ROOT, "%nShepherd runs: %d; in every run not listed above,"
          + " every container was placed by the Rust engine, none by the fallback FIFO.%n",
          shepherdRuns));
    }
    return b.toString();
  }

  private static String row(Run r) {
    return String.format(Locale.ROOT, "| %s | %d | %d/%d | %.1f | %.0f | %.0f | %.0f | %.0f / %.0f "
        + "| %.0f / %.0f | %.0f%% / %.0f%% | %s | %d | %.0f | %d | %.1f | %.2f cores |\n",
        r.label + (disturbed(r) ? " (disturbed)" : ""), r.nodes, r.jobsFinished, r.jobs,
        r.wallS, r.allocPerS, r.allocPeak,
        r.nodeUpdatesPerS, r.nuP50, r.nuP99, r.alP50, r.alP99, 100 * r.busy,
        100 * r.busyWithSls,
        r.roundThreadsCpuS > 0
            ? String.format(Locale.ROOT, "%.0f%%", 100 * r.roundThreadsCpuS / r.wallS) : "–",
        r.heapAfterGcMb, r.slsJvmUsedPeakMb, r.rssPeakMb, r.meanJobS,
        r.otherCores);
  }

  /**
   * Containers per second of the scheduler's own busy time on the RM's event
   * thread, plus its round threads' CPU time when it allocates between
   * heartbeats: the throughput it could sustain if heartbeats and asks never
   * ran out. Observed alloc/s is bounded by the workload too (SLS's 1 s NM and
   * AM heartbeats, 2 s tasks); this is not. (The event thread's time is wall
   * time of its calls, so it includes waits for a round holding the
   * scheduler's lock; the round threads' is CPU time, which does not double
   * count them.)
   */
  static double allocPerBusyS(Run r) {
    double busyS = r.busy * r.wallS + r.roundThreadsCpuS;
    return busyS > 0 ? r.containers / busyS : Double.NaN;
  }

  static boolean disturbed(Run r) {
    return r.otherCores > DISTURBED_OTHER_CORES;
  }

  /** The group's undisturbed runs, or all of them when every run was disturbed. */
  private static List<Run> clean(List<Run> g) {
    List<Run> out = new ArrayList<>();
    for (Run r : g) {
      if (!disturbed(r)) {
        out.add(r);
      }
    }
    return out.isEmpty() ? g : out;
  }

  private static double median(List<Run> g, java.util.function.ToDoubleFunction<Run> f) {
    double[] v = g.stream().mapToDouble(f).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
