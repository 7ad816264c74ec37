package org.shepherd.yarn.sls;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;
import org.shepherd.yarn.sls.bench.SynthTrace;

/**
 * Hadoop's Scheduler Load Simulator hosts Shepherd: SLS's own runner, RM,
 * simulated NodeManagers and MapReduce AMs, with {@link ShepherdSlsScheduler}
 * as the RM's scheduler and the Rust engine deciding. 20 NMs in 4 racks, 6
 * jobs of 30 one-second maps each, submitted in the first 2 s; the AMs ask
 * node-, rack- and any-locality, as SLS's synthetic MapReduce jobs do.
 *
 * <p>Checks that every job of the trace finished (FINISHED in the RM), and
 * that every container (AMs and maps) was placed by the engine, none by the
 * shim's fallback FIFO;
 * once with heartbeats only and once with Shepherd's scheduling rounds
 * between heartbeats. No wall-clock assertion. About 30 s a run.
 *
 * <p>SLS runs in a JVM of its own: SLS keeps static state (its task runner,
 * the simulation's info), and an RM whose scheduler throws on a heartbeat
 * exits its JVM, which here becomes a failed assertion with the log's tail.
 * {@code -Dshepherd.sls.shim.jar=JAR} puts a shim build that is not
 * installed in front of the installed one.
 */
public class ShepherdInSlsTest {

  @Test
  public void everyJobFinishesWithContainersPlacedByTheEngine() throws Exception {
    JsonNode s = runSls("shepherd-drf");
    assertEveryJobFinishedOnTheEngine(s);
  }

  /**
   * Shepherd's scheduling rounds between heartbeats ({@code
   * async-scheduling.interval-ms}) inside SLS's RM: the round thread commits
   * under the scheduler's lock while SLS's NMs heartbeat and its AMs
   * allocate. The same checks, and rounds placed containers: with 1 s NM
   * heartbeats and a round every 20 ms, a round reaches nearly every ask
   * before a heartbeat does.
   */
  @Test
  public void roundsBetweenHeartbeatsPlaceContainersInSls() throws Exception {
    JsonNode s = runSls("shepherd-drf-async20", "--async-interval-ms", "20");
    assertEveryJobFinishedOnTheEngine(s);
    assertTrue("containers placed by rounds between heartbeats: " + s.path("counters"),
        s.path("counters").path("async_allocations").asLong() > 0);
    assertTrue("the round thread was found and measured: " + s.path("round_threads"),
        s.path("round_threads").toString().contains("Shepherd asynchronous scheduling"));
  }

  /**
   * Rounds with heartbeats that only report ({@code
   * async-scheduling.heartbeats-allocate = false}, the bench's {@code
   * --async-only-interval-ms}), as the CapacityScheduler's heartbeats do
   * under its asynchronous thread: the same checks, no heartbeat ran the
   * engine's pass, and rounds placed every container.
   */
  @Test
  public void roundsAloneAllocateWhenHeartbeatsOnlyReportInSls() throws Exception {
    JsonNode s = runSls("shepherd-drf-asynconly20", "--async-only-interval-ms", "20");
    assertEveryJobFinishedOnTheEngine(s);
    assertEquals("heartbeat passes: " + s.path("counters"), 0,
        s.path("counters").path("engine_passes").asLong());
    assertEquals("containers placed by rounds: " + s.path("counters"), 186,
        s.path("counters").path("async_allocations").asLong());
  }

  /** The trace above through SLS with Shepherd's drf, in a JVM of its own; its bench-summary.json. */
  private static JsonNode runSls(String name, String... extraArgs) throws Exception {
    File dir = SlsChild.freshDir(name);
    SynthTrace trace = new SynthTrace();
    trace.nodes = 20;
    trace.nodesPerRack = 5;
    trace.jobs = 6;
    trace.tasksPerJob = 30;
    trace.taskMs = 1000;
    trace.spreadS = 2;
    trace.write(new File(dir, "in"));

    List<String> args = new ArrayList<>(Arrays.asList(
        "--trace", new File(dir, "in/synth.json").getPath(),
        "--nodes", new File(dir, "in/nodes.json").getPath(), "--timeout-s", "120"));
    args.addAll(Arrays.asList(extraArgs));
    File out = SlsChild.run(dir, args.toArray(new String[0]));

    JsonNode s = new ObjectMapper().readTree(new File(out, "bench-summary.json"));
    // SLS's own outputs exist and list every job.
    long jobsInSlsLog = Files.readAllLines(new File(out, "jobruntime.csv").toPath()).stream()
        .filter(l -> l.startsWith("application_")).count();
    assertEquals("jobs in SLS's jobruntime.csv", 6, jobsInSlsLog);
    assertTrue("SLS's metrics CSVs", new File(out, "metrics").isDirectory());
    assertTrue("SLS timed the scheduler's NODE_UPDATE handling",
        new File(out, "metrics/sampler.scheduler.operation.handle.NODE_UPDATE.timecost.csv")
            .isFile());
    return s;
  }

  private static void assertEveryJobFinishedOnTheEngine(JsonNode s) {
    assertEquals("jobs in the trace", 6, s.path("jobs").asInt());
    assertEquals("jobs finished", 6, s.path("jobs_finished").asInt());
    // Every app ended FINISHED in the RM, none FAILED with its tasks done
    // (SLS's own AM released its AM container before unregistering).
    assertEquals("apps the RM ended FINISHED: " + s.path("app_states"), 6,
        s.path("app_states").path("FINISHED").asInt());
    assertEquals("tasks in the trace", 180, s.path("tasks").asInt());
    // One container per map plus one per AM.
    assertEquals("containers allocated", 186, s.path("containers_allocated").asLong());
    JsonNode c = s.path("counters");
    assertEquals("containers placed by the Rust engine", 186,
        c.path("engine_allocations").asLong());
    assertEquals("containers placed by the fallback FIFO", 0,
        c.path("fallback_allocations").asLong());
    assertEquals("engine failures", 0, c.path("engine_failures").asLong());
  }
}
