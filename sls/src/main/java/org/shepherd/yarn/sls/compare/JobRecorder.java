package org.shepherd.yarn.sls.compare;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationResourceUsageReport;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.sls.AMRunner;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.appmaster.AMSimulator;
import org.shepherd.yarn.sls.JobRuntimeCsv;

/**
 * What an SLS run did with each job of the trace, in the form the
 * real-cluster harness writes ({@code jobs.json} and {@code samples.jsonl},
 * read by {@code shepherd yarn-report} and {@code shepherd calibrate}), so an
 * SLS comparison is reported by the same code and tables as a real one.
 *
 * <p>Read inside the RM, for every scheduler alike: the RM's own application
 * records (submission, AM launch, finish, state, final status: what the RM's
 * REST API reports) and, every {@code sampleMs}, the cluster's allocation and
 * each running app's containers and resources and each queue's sum of them (the scheduler's usage report,
 * what the REST API's app list shows). The harness takes a job's first task
 * start from the first sample with two running containers (AM and a task),
 * so the waiting times have the sampling interval's resolution.
 *
 * <p>A trace job finds its application through SLS's AM simulators (SLS
 * keeps them by the trace's job id in its AMRunner, which SLSRunner does not
 * expose: read reflectively).
 */
public final class JobRecorder implements Runnable {
  private final SLSRunner sls;
  private final ResourceScheduler scheduler;
  private final RMContext rm;
  private final List<SlsTraceJobs.Job> jobs;
  private final long sampleMs;
  private final BufferedWriter samples;
  private final ObjectMapper json = new ObjectMapper();
  private volatile boolean stopped;

  public JobRecorder(SLSRunner sls, ResourceScheduler scheduler, RMContext rm,
      List<SlsTraceJobs.Job> jobs, long sampleMs, File out) throws IOException {
    this.sls = sls;
    this.scheduler = scheduler;
    this.rm = rm;
    this.jobs = jobs;
    this.sampleMs = sampleMs;
    this.samples = Files.newBufferedWriter(new File(out, "samples.jsonl").toPath(),
        StandardCharsets.UTF_8);
  }

  @Override
  public void run() {
    try {
      while (!stopped) {
        sample();
        Thread.sleep(sampleMs);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      System.err.println("sls job recorder: sampling stopped: " + e);
    }
  }

  /** One line of samples.jsonl: the cluster and every running app. */
  private synchronized void sample() throws IOException {
    if (stopped) {
      return;
    }
    ObjectNode line = json.createObjectNode();
    line.put("t_ms", System.currentTimeMillis());
    ObjectNode c = line.putObject("cluster");
    QueueMetrics root = scheduler.getRootQueueMetrics();
    Resource total = scheduler.getClusterResource();
    c.put("allocated_mb", root == null ? 0 : root.getAllocatedMB());
    c.put("total_mb", total.getMemorySize());
    c.put("allocated_vcores", root == null ? 0 : root.getAllocatedVirtualCores());
    c.put("total_vcores", total.getVirtualCores());
    // Node reservations (a node held for one app's ask that does not fit
    // yet, as the CapacityScheduler and FairScheduler do): memory held so,
    // and how many containers are reserved. Shepherd's shim makes none.
    c.put("reserved_mb", root == null ? 0 : root.getReservedMB());
    c.put("reserved_vcores", root == null ? 0 : root.getReservedVirtualCores());
    c.put("reserved_containers", root == null ? 0 : root.getReservedContainers());
    // Each queue's allocation: the sum over its live apps (every state
    // between the AM's allocation and the app's end, so an AM that has not
    // registered yet counts) of the scheduler's usage report.
    Map<String, long[]> perQueue = new TreeMap<>();
    for (SlsTraceJobs.Job j : jobs) {
      perQueue.putIfAbsent(j.queue, new long[2]);
    }
    for (RMApp app : rm.getRMApps().values()) {
      RMAppAttempt attempt = app.getCurrentAppAttempt();
      if (attempt == null || isFinal(app.getState())) {
        continue;
      }
      ApplicationResourceUsageReport u =
          scheduler.getAppResourceUsageReport(attempt.getAppAttemptId());
      if (u == null) {
        continue;
      }
      long[] q = perQueue.computeIfAbsent(leafName(app.getQueue()), k -> new long[2]);
      q[0] += Math.max(0, u.getUsedResources().getMemorySize());
      q[1] += Math.max(0, u.getUsedResources().getVirtualCores());
    }
    ObjectNode queues = line.putObject("queues");
    perQueue.forEach((name, r) -> {
      ObjectNode q = queues.putObject(name);
      q.put("allocated_mb", r[0]);
      q.put("allocated_vcores", r[1]);
    });
    ArrayNode apps = line.putArray("apps");
    for (RMApp app : rm.getRMApps().values()) {
      RMAppAttempt attempt = app.getCurrentAppAttempt();
      if (app.getState() != RMAppState.RUNNING || attempt == null) {
        continue;
      }
      ApplicationResourceUsageReport u =
          scheduler.getAppResourceUsageReport(attempt.getAppAttemptId());
      if (u == null) {
        continue;
      }
      ObjectNode a = apps.addObject();
      a.put("app_id", app.getApplicationId().toString());
      a.put("user", app.getUser());
      a.put("allocated_mb", Math.max(0, u.getUsedResources().getMemorySize()));
      a.put("allocated_vcores", Math.max(0, u.getUsedResources().getVirtualCores()));
      a.put("running_containers", Math.max(0, u.getNumUsedContainers()));
      a.put("reserved_mb", Math.max(0, u.getReservedResources().getMemorySize()));
      a.put("reserved_containers", Math.max(0, u.getNumReservedContainers()));
    }
    samples.write(json.writeValueAsString(line));
    samples.newLine();
    samples.flush();
  }

  /** Stops sampling (a sample in progress completes first) and closes samples.jsonl. */
  public synchronized void stop() throws IOException {
    stopped = true;
    samples.close();
  }

  /** Whether every trace job's application has reached a final state. */
  public boolean allFinal() throws ReflectiveOperationException {
    Map<String, AMSimulator> ams = amSimulators();
    for (SlsTraceJobs.Job j : jobs) {
      RMApp app = app(ams, j);
      if (app == null || !isFinal(app.getState())) {
        return false;
      }
    }
    return true;
  }

  /** {@code b} for {@code root.b} (the CapacityScheduler names apps' queues by path). */
  private static String leafName(String queue) {
    return queue == null ? "" : queue.substring(queue.lastIndexOf('.') + 1);
  }

  /** FINISHED, FAILED or KILLED: the RM is done with the app. */
  public static boolean isFinal(RMAppState s) {
    return s == RMAppState.FINISHED || s == RMAppState.FAILED || s == RMAppState.KILLED;
  }

  /**
   * {@code jobs.json}: the run's set-up and each trace job as the RM recorded
   * it. {@code scheduler} is the harness's name for the scheduler
   * ({@code capacity}, {@code fair}, {@code shepherd:<policy>}).
   */
  public void writeJobs(File out, String schedulerName, String label, int run, File trace,
      int nmHeartbeatMs, long originEpochMs) throws IOException, ReflectiveOperationException {
    ObjectNode root = json.createObjectNode();
    root.put("scheduler", schedulerName);
    root.put("label", label);
    root.put("run", run);
    root.put("trace", trace.getPath());
    root.put("poll_ms", sampleMs);
    root.put("nm_heartbeat_ms", nmHeartbeatMs);
    root.put("start_ms", originEpochMs);
    root.put("source", "sls");
    int nodes = scheduler.getNumClusterNodes();
    Resource total = scheduler.getClusterResource();
    ObjectNode c = root.putObject("cluster");
    c.put("nodes", nodes);
    c.put("memory_mb", nodes == 0 ? 0 : total.getMemorySize() / nodes);
    c.put("vcores", nodes == 0 ? 0 : total.getVirtualCores() / nodes);
    ArrayNode list = root.putArray("jobs");
    Map<String, AMSimulator> ams = amSimulators();
    Set<String> slsFinished = new HashSet<>();
    JobRuntimeCsv.rows(new File(out, "jobruntime.csv"))
        .forEach(f -> slsFinished.add(f[0].trim()));
    int races = 0;
    for (SlsTraceJobs.Job j : jobs) {
      RMApp app = app(ams, j);
      // SLS's AM releases its AM container before it unregisters
      // (AMSimulator.lastStep); when the container's NM heartbeats in between,
      // the RM fails the attempt although every task finished and SLS wrote
      // the job's row. That is the simulator's race, not the scheduler's: the
      // job counts as finished, at the RM's finish time (the same instant).
      // The runs' AM (UnregisterFirstMRAMSimulator) unregisters first, so
      // this count stays 0 unless an AM could not unregister.
      boolean race = app != null && app.getState() == RMAppState.FAILED
          && slsFinished.contains(app.getApplicationId().toString());
      races += race ? 1 : 0;
      ObjectNode o = list.addObject();
      o.put("id", j.id);
      o.put("app_id", app == null ? null : app.getApplicationId().toString());
      o.put("name", j.name);
      o.put("kind", "mapreduce");
      o.put("user", j.user);
      o.put("queue", j.queue);
      o.put("category", j.category);
      o.put("maps", j.maps);
      o.put("reduces", j.reduces);
      o.put("planned_submit_ms", j.startMs);
      o.put("submit_ms", app == null ? 0 : app.getStartTime());
      o.put("am_launch_ms", app == null ? 0 : Math.max(0, app.getLaunchTime()));
      o.put("finish_ms", app == null ? 0 : app.getFinishTime());
      o.put("state", app == null ? "MISSING" : race ? "FINISHED" : app.getState().toString());
      o.put("final_status", app == null ? "MISSING"
          : race ? "SUCCEEDED" : app.getFinalApplicationStatus().toString());
      if (app == null) {
        o.put("error", "SLS never submitted this job (see sls.log)");
      } else {
        // What the RM counted as preempted, whichever scheduler killed it:
        // RMContainerImpl's finish transition books every container that
        // ends with exit status PREEMPTED on its attempt, with the
        // resource-seconds it had run (work lost).
        RMAppMetrics m = app.getRMAppMetrics();
        o.put("preempted_containers",
            m.getNumAMContainersPreempted() + m.getNumNonAMContainersPreempted());
        o.put("preempted_am_containers", m.getNumAMContainersPreempted());
        o.put("preempted_non_am_containers", m.getNumNonAMContainersPreempted());
        o.put("preempted_memory_mb_s", m.getPreemptedMemorySeconds());
        o.put("preempted_vcore_s", m.getPreemptedVcoreSeconds());
      }
      if (race) {
        o.put("note", "every task finished; the RM failed the attempt because SLS released "
            + "the AM container before unregistering (AMSimulator.lastStep)");
      }
    }
    root.put("sls_am_release_races", races);
    json.writerWithDefaultPrettyPrinter().writeValue(new File(out, "jobs.json"), root);
  }

  private RMApp app(Map<String, AMSimulator> ams, SlsTraceJobs.Job j) {
    AMSimulator am = ams.get(j.id);
    ApplicationId id = am == null ? null : am.getApplicationId();
    return id == null ? null : rm.getRMApps().get(id);
  }

  /** SLS's AM simulators by trace job id (SLSRunner keeps its AMRunner private). */
  private Map<String, AMSimulator> amSimulators() throws ReflectiveOperationException {
    Field f = SLSRunner.class.getDeclaredField("amRunner");
    f.setAccessible(true);
    return ((AMRunner) f.get(sls)).getAmMap();
  }
}
