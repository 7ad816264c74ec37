package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * Scheduling between heartbeats (issue 14 item 2) on a real cluster: with
 * {@code yarn.scheduler.shepherd.async-scheduling.interval-ms} the shim's
 * thread runs the engine's scheduling rounds, which place outstanding asks
 * on nodes with room without waiting for the nodes' heartbeats. The
 * NodeManagers heartbeat only every 3 s here, so the rounds (every 20 ms)
 * are the first to see every new ask; the test checks that they placed
 * containers, that YARN carried out what they proposed, and that real jobs
 * finish — not how fast (no wall-clock assertion). The rounds run with two
 * proposers ({@code scheduler.round_proposers = 2}, and no minimum of work
 * per proposer, which two NodeManagers and two jobs would not reach): each
 * proposes from its own copy of the state on one NodeManager, the engine
 * validates and commits, YARN carries out. The rounds' counts reach the RM's
 * Prometheus endpoint {@code /prom}, and the shim's (rounds that crossed,
 * containers YARN carried out) a real sidecar's {@code /metrics}.
 */
public class AsyncSchedulingTest {
  private static ShepherdCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = ShepherdCluster.start("async", "[scheduler]\npolicy = \"drf\"\nround_proposers = 2\n"
        + "round_min_work_per_proposer = 0\n", conf -> {
      conf.setLong(ShepherdScheduler.ASYNC_INTERVAL_MS, 20);
      conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 3000);
      conf.setBoolean("hadoop.prometheus.endpoint.enabled", true);
    });
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 300_000)
  public void roundsBetweenHeartbeatsPlaceContainersAndJobsFinish() throws Exception {
    ShepherdScheduler s = cluster.scheduler();
    assertTrue("a 3-map SleepJob succeeds",
        Workloads.sleep(cluster.jobConf(), "alice", "default", 3, 1, 1_000, 1_000));
    assertTrue("a second one too",
        Workloads.sleep(cluster.jobConf(), "bob", "default", 2, 0, 1_000, 0));
    long[] counters = s.getEngineCounters();
    long rounds = counters[6];
    long roundAllocations = counters[7];
    assertTrue("the engine ran rounds: " + rounds, rounds > 0);
    assertTrue("rounds placed containers: " + roundAllocations, roundAllocations > 0);
    long proposals = counters[8];
    long conflicts = counters[9];
    assertTrue("the rounds' proposers proposed: " + proposals, proposals > 0);
    assertTrue("no more conflicts (" + conflicts + ") than proposals", conflicts <= proposals);
    long carriedOut = s.getAsyncAllocations();
    System.out.printf("rounds %d, containers placed by rounds %d, proposals %d, conflicts %d, carried out by YARN %d%n",
        rounds, roundAllocations, proposals, conflicts, carriedOut);
    assertTrue("YARN carried out what rounds proposed (" + carriedOut + " of " + roundAllocations
        + "; a refused one goes back to the engine)", carriedOut > 0 && carriedOut <= roundAllocations);
    assertEquals("nothing fell back to the safe FIFO", 0, s.getFallbackAllocations());
    assertEquals("the engine never failed", 0, s.getEngineFailures());
    // What SREs see: the same counts at the RM's /prom (metrics2 publishes a
    // snapshot each period, so it may lag the counters but never pass them).
    double promRounds = 0;
    double promRoundAllocations = 0;
    long until = System.currentTimeMillis() + 60_000;
    while ((promRounds <= 0 || promRoundAllocations <= 0) && System.currentTimeMillis() < until) {
      // DressMetricsTest's parser of the Prometheus text format.
      List<DressMetricsTest.Series> prom = DressMetricsTest.parse(cluster.page("/prom"));
      promRounds = valueOrZero(prom, "shepherd_engine_rounds_total");
      promRoundAllocations = valueOrZero(prom, "shepherd_engine_round_allocations_total");
      if (promRounds <= 0 || promRoundAllocations <= 0) {
        Thread.sleep(1_000);
      }
    }
    // Rounds go on after the jobs end (an AM's last asks, released
    // containers), so /prom is compared with the counters read after it, not
    // with the snapshot above.
    long[] after = s.getEngineCounters();
    assertTrue("/prom shepherd_engine_rounds_total = " + promRounds + ", engine " + after[6],
        promRounds > 0 && promRounds <= after[6]);
    assertTrue("/prom shepherd_engine_round_allocations_total = " + promRoundAllocations + ", engine " + after[7],
        promRoundAllocations > 0 && promRoundAllocations <= after[7]);

    // And the sidecar, polling the RM's /jmx, relays the shim's side: rounds
    // that crossed into the engine, and the containers of theirs YARN
    // carried out (no asks are left, so that count stands still).
    Path work = cluster.workDir.toPath();
    int port = ShepherdCluster.freePort();
    String cfg = String.join("\n", "[server]", "listen = \"127.0.0.1:" + port + "\"",
        "[rm]", "addresses = [\"" + cluster.webAddress() + "\"]", "poll_interval_ms = 500", "");
    try (SidecarProcess sidecar = SidecarProcess.start(work, cfg, port)) {
      double relayedRounds = 0;
      double relayedCarriedOut = 0;
      until = System.currentTimeMillis() + 60_000;
      while ((relayedRounds <= 0 || relayedCarriedOut != carriedOut) && System.currentTimeMillis() < until) {
        String m = sidecar.get("/metrics");
        relayedRounds = SidecarProcess.metric(m, "shepherd_jni_async_rounds_total");
        relayedCarriedOut = SidecarProcess.metric(m, "shepherd_jni_async_allocations_total");
        if (relayedRounds <= 0 || relayedCarriedOut != carriedOut) {
          Thread.sleep(500);
        }
      }
      assertTrue("sidecar shepherd_jni_async_rounds_total = " + relayedRounds, relayedRounds > 0);
      assertEquals("sidecar shepherd_jni_async_allocations_total", (double) carriedOut, relayedCarriedOut, 0.0);
    }
  }

  static double valueOrZero(List<DressMetricsTest.Series> prom, String name) {
    Double v = DressMetricsTest.value(prom, name, null);
    return v == null ? 0 : v;
  }
}
