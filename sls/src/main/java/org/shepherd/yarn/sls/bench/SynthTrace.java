package org.shepherd.yarn.sls.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * Writes the benchmark's SLS inputs into a directory: {@code synth.json}, an
 * input of SLS's synthetic generator ({@code -tracetype SYNTH}: a job mix SLS
 * expands into jobs itself, from a fixed seed), and {@code nodes.json}, the
 * node file ({@code -nodes}). Every scheduler runs exactly these files.
 *
 * <p>Why not SLS's own JSON job format ({@code -tracetype SLS})? With Hadoop
 * 3.4.3 it cannot be read: SLS parses each job as a {@code Map<String,
 * String>} and the Jackson 2.12 Hadoop ships refuses the job's
 * {@code job.tasks} array ("Cannot deserialize value of type
 * `java.lang.String` from Array value"), so every job is dropped.
 *
 * <p>Why a node file? SLS would name the nodes {@code node0, node1, ...}
 * itself, but the RM resolves each container's host when it makes the
 * container's token, and those names do not resolve (every AM container
 * fails with UnknownHostException). The nodes are named by loopback
 * addresses instead ({@code 127.0.x.y}): one distinct host each, so locality
 * still means something, and no DNS is involved.
 *
 * <p>The workload is built to make the scheduler, not the trace, the limit:
 * {@code jobs} MapReduce jobs (SLS's MRAMSimulator), all submitted within the
 * first {@code spreadS} seconds, each of {@code tasks} maps of one size
 * running {@code taskMs}; no reduces. SLS gives every map a preferred node
 * (at random), so the AMs ask node-, rack- and any-locality, as real
 * MapReduce AMs do. Far more work is queued than the cluster's slots can
 * start at once, for most of the run.
 *
 * <pre>
 *   java ... org.shepherd.yarn.sls.bench.SynthTrace --out DIR --nodes 1000
 *       [--nodes-per-rack 40] [--jobs 100] [--tasks 1000] [--task-ms 2000]
 *       [--spread-s 5] [--users 4] [--seed 1]
 * </pre>
 */
public final class SynthTrace {
  public int nodes = 1000;
  public int nodesPerRack = 40;
  public int jobs = 100;
  public int tasksPerJob = 1000;
  public long taskMs = 2000;
  /** Jobs are submitted uniformly at random over [0, spreadS) seconds. */
  public int spreadS = 5;
  /** Job classes, one per user, equally likely. */
  public int users = 4;
  public long seed = 1;
  public String queue = "default";

  public static void main(String[] args) throws IOException {
    SynthTrace t = new SynthTrace();
    File out = null;
    for (int i = 0; i < args.length; i++) {
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--out": out = new File(v); break;
        case "--nodes": t.nodes = Integer.parseInt(v); break;
        case "--nodes-per-rack": t.nodesPerRack = Integer.parseInt(v); break;
        case "--jobs": t.jobs = Integer.parseInt(v); break;
        case "--tasks": t.tasksPerJob = Integer.parseInt(v); break;
        case "--task-ms": t.taskMs = Long.parseLong(v); break;
        case "--spread-s": t.spreadS = Integer.parseInt(v); break;
        case "--users": t.users = Integer.parseInt(v); break;
        case "--seed": t.seed = Long.parseLong(v); break;
        case "--queue": t.queue = v; break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
      i++;
    }
    if (out == null) {
      throw new IllegalArgumentException("--out DIR is required");
    }
    t.write(out);
    System.out.println("wrote " + out + "/{synth.json,nodes.json}: " + t.nodes + " nodes, "
        + t.jobs + " jobs x " + t.tasksPerJob + " maps of " + t.taskMs
        + " ms, submitted in the first " + t.spreadS + " s");
  }

  /** Writes {@code dir/synth.json} (the workload) and {@code dir/nodes.json} (the nodes). */
  public void write(File dir) throws IOException {
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("cannot create " + dir);
    }
    if (nodes > 250 * 256) {
      throw new IllegalArgumentException("at most " + (250 * 256) + " nodes");
    }
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = json.createObjectNode();
    root.put("description", "Shepherd SLS benchmark: " + jobs + " jobs x " + tasksPerJob
        + " maps of " + taskMs + " ms");
    // Read by SLS only when there is no node file; kept consistent with it.
    root.put("num_nodes", nodes);
    root.put("nodes_per_rack", nodesPerRack);
    root.put("num_jobs", jobs);
    root.put("rand_seed", seed);
    ObjectNode w = root.putArray("workloads").addObject();
    w.put("workload_name", "short-maps");
    w.put("workload_weight", 1.0);
    w.put("queue_name", queue);
    ArrayNode classes = w.putArray("job_classes");
    for (int u = 0; u < Math.max(1, users); u++) {
      ObjectNode c = classes.addObject();
      c.put("class_name", "maps_user" + u);
      c.put("user_name", "user" + u);
      c.put("class_weight", 1.0);
      c.put("type", "mapreduce");
      // Only deadlines and reservations read these; no job has either.
      constant(c.putObject("duration"), Math.max(1, taskMs / 1000) * 10);
      constant(c.putObject("deadline_factor"), 1.0);
      constant(c.putObject("reservation"), 0.0);
      ObjectNode map = c.putArray("tasks").addObject();
      map.put("type", "map");
      map.put("priority", 20);
      constant(map.putObject("count"), tasksPerJob);
      constant(map.putObject("time"), taskMs);
      constant(map.putObject("max_memory"), 1024);
      constant(map.putObject("max_vcores"), 1);
    }
    // Submission times in seconds: uniform over [0, spreadS).
    ArrayNode times = w.putArray("time_distribution");
    times.addObject().put("time", 0).put("weight", 100);
    times.addObject().put("time", Math.max(1, spreadS)).put("weight", 0);
    json.writerWithDefaultPrettyPrinter().writeValue(new File(dir, "synth.json"), root);

    // SLS reads a stream of rack objects (not an array).
    try (Writer out = Files.newBufferedWriter(new File(dir, "nodes.json").toPath(),
        StandardCharsets.UTF_8)) {
      int perRack = Math.max(1, nodesPerRack);
      for (int first = 0; first < nodes; first += perRack) {
        ObjectNode rack = json.createObjectNode();
        rack.put("rack", "rack" + first / perRack);
        ArrayNode list = rack.putArray("nodes");
        for (int n = first; n < Math.min(nodes, first + perRack); n++) {
          list.addObject().put("node", hostOf(n));
        }
        out.write(json.writeValueAsString(rack));
        out.write('\n');
      }
    }
  }

  /** Node {@code n}'s host: 127.0.0.1, ..., 127.0.0.250, 127.0.1.1, ... */
  static String hostOf(int n) {
    return "127.0." + (n / 250) + "." + (n % 250 + 1);
  }

  private static void constant(ObjectNode sample, double value) {
    sample.put("val", value);
  }
}
