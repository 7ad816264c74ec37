package org.shepherd.yarn.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One job of a Shepherd trace (the JSON format the simulator reads, see
 * src/workload/trace.rs) as a real YARN application: the first stage is the
 * map phase, an optional second stage the reduce phase. Its {@code app_type}
 * (default MAPREDUCE; SPARK and TEZ run from the apps module) picks the
 * {@link AppFramework}. For MapReduce the job's {@code name} picks the
 * program — {@code wordcount}, {@code sort}, {@code terasort} (HiBench's
 * micro benchmarks, from hadoop-mapreduce-examples), {@code cpu} (CPU-bound
 * maps, {@link CpuJob}) or anything else for Hadoop's SleepJob, whose tasks
 * sleep the trace's mean durations.
 */
public final class TraceJob {
  public enum Kind {
    WORDCOUNT, SORT, TERASORT, CPU, SLEEP;

    static Kind of(String name) {
      String n = name.toLowerCase();
      if (n.startsWith("cpu")) {
        return CPU;
      }
      if (n.contains("wordcount")) {
        return WORDCOUNT;
      }
      if (n.startsWith("terasort")) {
        return TERASORT;
      }
      if (n.startsWith("sort")) {
        return SORT;
      }
      return SLEEP;
    }

    public String label() {
      return name().toLowerCase();
    }
  }

  public final String id;
  public final String name;
  /** YARN's application type (trace {@code app_type}, upper case; default MAPREDUCE). */
  public final String appType;
  public final Kind kind;
  public final String user;
  public final String queue;
  public final String category;
  public final long submitMs;
  public final int maps;
  public final int reduces;
  public final long mapMs;
  public final long reduceMs;
  /** Share of maps done before reduces ask (trace `slowstart`; absent = 1, a barrier, as the simulator does). */
  public final double slowstart;
  public final int memoryMb;
  public final int vcores;

  private TraceJob(JsonNode j) throws IOException {
    id = j.path("id").asText();
    name = j.path("name").asText("");
    kind = Kind.of(name);
    appType = j.path("app_type").asText(MapReduceFramework.TYPE).toUpperCase(Locale.ROOT);
    user = j.path("user").asText("user");
    queue = j.path("queue").asText("default");
    category = j.path("category").asText("all");
    submitMs = j.path("submit_ms").asLong();
    JsonNode stages = j.path("stages");
    if (stages.size() < 1 || stages.size() > 2) {
      throw new IOException("job " + id + ": a real-cluster job is a map stage and at most one"
          + " stage after it; it has " + stages.size() + " stages");
    }
    JsonNode map = stages.get(0);
    maps = map.path("tasks").size();
    mapMs = meanDuration(map);
    memoryMb = map.path("memory_mb").asInt(512);
    vcores = Math.max(1, map.path("vcores").asInt(1));
    if (stages.size() == 2) {
      reduces = stages.get(1).path("tasks").size();
      reduceMs = meanDuration(stages.get(1));
      slowstart = stages.get(1).path("slowstart").asDouble(1.0);
    } else {
      slowstart = 1.0;
      reduces = 0;
      reduceMs = 0;
    }
    if (maps < 1) {
      throw new IOException("job " + id + ": the map stage has no tasks");
    }
  }

  private static long meanDuration(JsonNode stage) {
    long sum = 0;
    for (JsonNode t : stage.path("tasks")) {
      sum += t.path("duration_ms").asLong();
    }
    return stage.path("tasks").size() == 0 ? 0 : sum / stage.path("tasks").size();
  }

  /** The YARN application tag that ties the RM's application to this job. */
  public String tag() {
    return ("shepherd-job-" + id).toLowerCase();
  }

  public static final class Trace {
    public final int nodes;
    public final int nodeMemoryMb;
    public final int nodeVcores;
    public final List<TraceJob> jobs;

    Trace(int nodes, int nodeMemoryMb, int nodeVcores, List<TraceJob> jobs) {
      this.nodes = nodes;
      this.nodeMemoryMb = nodeMemoryMb;
      this.nodeVcores = nodeVcores;
      this.jobs = jobs;
    }
  }

  /** Reads a trace; its {@code cluster} sizes the NodeManagers (default 4 × 4 GiB / 8 vcores). */
  public static Trace read(File file) throws IOException {
    JsonNode root = new ObjectMapper().readTree(file);
    JsonNode c = root.path("cluster");
    List<TraceJob> jobs = new ArrayList<>();
    for (JsonNode j : root.path("jobs")) {
      jobs.add(new TraceJob(j));
    }
    if (jobs.isEmpty()) {
      throw new IOException(file + ": the trace has no jobs");
    }
    jobs.sort((a, b) -> Long.compare(a.submitMs, b.submitMs));
    return new Trace(c.path("nodes").asInt(4), c.path("memory_mb").asInt(4096),
        c.path("vcores").asInt(8), jobs);
  }
}
