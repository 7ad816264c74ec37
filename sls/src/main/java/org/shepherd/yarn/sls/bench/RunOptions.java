package org.shepherd.yarn.sls.bench;

import java.io.File;

/** What one SLS run of the benchmark simulates, and with which scheduler. */
public final class RunOptions {
  /** {@code shepherd}, {@code capacity} or {@code fair}. */
  public String scheduler = "shepherd";
  /** Shepherd's policy when no {@link #shepherdConfig} is given. */
  public String policy = "drf";
  /** Shepherd's TOML config; null = {@link #policy} in one queue {@code default}. */
  public File shepherdConfig;
  /**
   * TOML with {@code [pipeline.NAME]} tables added to the config the run
   * writes for {@link #policy} (without {@link #shepherdConfig}), so a
   * pipeline of one's own runs on the comparison's queues; null = none.
   */
  public File pipelines;
  /** libshepherd.so. */
  public File nativeLibrary;
  /**
   * The trace: SLS synthetic-generator input ({@link SynthTrace}) with
   * {@code --tracetype synth} (the overhead benchmark), or SLS's own job
   * format ({@code shepherd generate --out X.sls.json}) with {@code
   * --tracetype sls} (the scheduler comparison: its queues become every
   * scheduler's queues, and the run writes jobs.json and samples.jsonl).
   */
  public File trace;
  /** {@code synth} or {@code sls}. */
  public String traceType = "synth";
  /** The repetition's number k, for jobs.json ({@code run-<k>}). */
  public int run = 1;
  /** With {@code --tracetype sls}: how often the cluster and the running apps are sampled. */
  public long sampleMs = 500;
  /** SLS node file ({@link SynthTrace} writes it next to the trace). */
  public File nodes;
  /** SLS's output directory; the benchmark's own files go there too. */
  public File out;
  /** NodeManager size (SLS's yarn.sls.nm.*). */
  public int nmMemoryMb = 16384;
  public int nmVcores = 16;
  public int nmHeartbeatMs = 1000;
  public int amHeartbeatMs = 1000;
  /** Task container size (SLS's yarn.sls.container.*: a task's size where the trace names none), also the AM's. */
  public int containerMb = 1024;
  public int containerVcores = 1;
  /** SLS's TaskRunner threads (simulated NMs and AMs); SLS's sample config uses 100. */
  public int runnerThreads = 100;
  /** Give up after this long (wall clock, from the first simulated second). */
  public long timeoutS = 900;
  /**
   * CapacityScheduler only: off-switch containers it may place per node
   * heartbeat ({@code per-node-heartbeat.maximum-offswitch-assignments});
   * 0 = its default (1).
   */
  public int capacityOffswitchPerHeartbeat;
  /** CapacityScheduler only: {@code node-locality-delay}; null = its default (40). */
  public Integer capacityNodeLocalityDelay;
  /**
   * Allocation between node heartbeats, a round every this many ms: Shepherd's
   * scheduling rounds ({@code async-scheduling.interval-ms}) or the
   * CapacityScheduler's asynchronous scheduling thread ({@code
   * schedule-asynchronously}); 0 = heartbeats only (both schedulers' default).
   */
  public long asyncIntervalMs;
  /**
   * Shepherd only, with rounds: node heartbeats only report and only rounds
   * allocate ({@code async-scheduling.heartbeats-allocate = false}), as the
   * CapacityScheduler's heartbeats do whenever its asynchronous thread runs
   * ({@code --async-only-interval-ms <ms>}: the interval and this).
   */
  public boolean roundsOnly;
  /**
   * Queue-guarantee preemption on: the CapacityScheduler's preemption monitor
   * ({@code ProportionalCapacityPreemptionPolicy}, its defaults), or
   * Shepherd's {@code preemption = true} on every queue ({@code [preemption]}
   * defaults, which are the monitor's). Off by default, as in both.
   */
  public boolean preemption;
  /**
   * Name in tables; null = {@code shepherd-<policy>} or {@code capacity},
   * {@code -async<ms>} with rounds ({@code -asynconly<ms>} with {@link #roundsOnly}).
   */
  public String label;

  public static RunOptions parse(String[] args) {
    RunOptions o = new RunOptions();
    for (int i = 0; i < args.length; i++) {
      String v = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--scheduler": o.scheduler = v; break;
        case "--policy": o.policy = v; break;
        case "--shepherd-config": o.shepherdConfig = new File(v); break;
        case "--pipelines": o.pipelines = new File(v); break;
        case "--native-library": o.nativeLibrary = new File(v); break;
        case "--trace": o.trace = new File(v); break;
        case "--tracetype": o.traceType = v; break;
        case "--run": o.run = Integer.parseInt(v); break;
        case "--sample-ms": o.sampleMs = Long.parseLong(v); break;
        case "--nodes": o.nodes = new File(v); break;
        case "--out": o.out = new File(v); break;
        case "--nm-memory-mb": o.nmMemoryMb = Integer.parseInt(v); break;
        case "--nm-vcores": o.nmVcores = Integer.parseInt(v); break;
        case "--nm-heartbeat-ms": o.nmHeartbeatMs = Integer.parseInt(v); break;
        case "--am-heartbeat-ms": o.amHeartbeatMs = Integer.parseInt(v); break;
        case "--runner-threads": o.runnerThreads = Integer.parseInt(v); break;
        case "--timeout-s": o.timeoutS = Long.parseLong(v); break;
        case "--capacity-offswitch-per-heartbeat":
          o.capacityOffswitchPerHeartbeat = Integer.parseInt(v);
          break;
        case "--capacity-node-locality-delay":
          o.capacityNodeLocalityDelay = Integer.parseInt(v);
          break;
        case "--async-interval-ms": o.asyncIntervalMs = Long.parseLong(v); break;
        case "--async-only-interval-ms":
          o.asyncIntervalMs = Long.parseLong(v);
          o.roundsOnly = true;
          break;
        case "--label": o.label = v; break;
        case "--preemption": o.preemption = true; i--; break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
      i++;
    }
    if (o.trace == null || o.nodes == null || o.out == null) {
      throw new IllegalArgumentException("--trace, --nodes and --out are required");
    }
    if (!o.scheduler.equals("shepherd") && !o.scheduler.equals("capacity")
        && !o.scheduler.equals("fair")) {
      throw new IllegalArgumentException("--scheduler must be shepherd, capacity or fair, not "
          + o.scheduler);
    }
    if (!o.traceType.equals("synth") && !o.traceType.equals("sls")) {
      throw new IllegalArgumentException("--tracetype must be synth or sls, not " + o.traceType);
    }
    if (o.sampleMs <= 0) {
      throw new IllegalArgumentException("--sample-ms must be positive, not " + o.sampleMs);
    }
    if (o.scheduler.equals("fair") && o.asyncIntervalMs > 0) {
      throw new IllegalArgumentException("--async-interval-ms is Shepherd's and the "
          + "CapacityScheduler's (the FairScheduler's continuous scheduling is deprecated)");
    }
    if (o.asyncIntervalMs < 0) {
      throw new IllegalArgumentException("--async-interval-ms must be 0 (off) or positive, not "
          + o.asyncIntervalMs);
    }
    if (o.roundsOnly && (!o.scheduler.equals("shepherd") || o.asyncIntervalMs == 0)) {
      throw new IllegalArgumentException("--async-only-interval-ms is Shepherd's and needs a positive "
          + "interval (the CapacityScheduler's heartbeats only report whenever it runs rounds: "
          + "--async-interval-ms)");
    }
    if (o.preemption && o.scheduler.equals("fair")) {
      throw new IllegalArgumentException("--preemption is the CapacityScheduler's monitor or "
          + "Shepherd's queue-guarantee preemption (the FairScheduler's is not set up here)");
    }
    if (o.scheduler.equals("shepherd") && o.nativeLibrary == null) {
      throw new IllegalArgumentException("--native-library is required for shepherd");
    }
    return o;
  }

  /** {@code shepherd-drf}, {@code capacity}, {@code fair}: the run's name in tables. */
  public String label() {
    if (label != null) {
      return label;
    }
    String name = (scheduler.equals("shepherd") ? "shepherd-" + policy : scheduler)
        + (preemption ? "-preempt" : "");
    return asyncIntervalMs == 0 ? name : name + (roundsOnly ? "-asynconly" : "-async") + asyncIntervalMs;
  }

  /** The scheduler as the real-cluster harness names it in jobs.json: {@code shepherd:<policy>}, {@code capacity}, {@code fair}. */
  public String harnessName() {
    return scheduler.equals("shepherd") ? "shepherd:" + policy : scheduler;
  }
}
