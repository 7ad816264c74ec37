package org.shepherd.yarn.it;

import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;

/**
 * Faults under load (issue 15 item 3): the engine panics (or errs) on every
 * Nth scheduling call for the whole length of a run of concurrent SleepJobs.
 * Each fault becomes a Java exception at the JNI boundary; the shim
 * schedules with its safe FIFO, rebuilds the engine from its own state after
 * {@code engine-retry-ms}, and the rebuilt engine fails again N heartbeats
 * later. Required: every job SUCCEEDED, the RM stayed up, and faults,
 * fallbacks and rebuilds all happened (printed).
 *
 * <p>Sizes: 6 jobs by default (CI); {@code -Dshepherd.faults.jobs=20} for the
 * issue's 20-job run, {@code -Dshepherd.faults.every=N} (default 10) and
 * {@code -Dshepherd.faults.mode=error-on-schedule} (default
 * {@code panic-on-schedule}).
 */
public class FaultsUnderLoadTest {
  static final int JOBS = Integer.getInteger("shepherd.faults.jobs", 6);
  static final int EVERY = Integer.getInteger("shepherd.faults.every", 10);
  static final String MODE = System.getProperty("shepherd.faults.mode", "panic-on-schedule");

  static String config() {
    return String.join("\n",
        "[scheduler]",
        "policy = \"composed\"",
        "fault_injection = \"" + MODE + "\"",
        "fault_every_n_heartbeats = " + EVERY,
        "");
  }

  @Test(timeout = 1_800_000)
  public void everyJobSucceedsWhileTheEngineFailsEveryNHeartbeats() throws Exception {
    try (ShepherdCluster cluster = ShepherdCluster.start("faults", config(),
        conf -> conf.setLong(ShepherdScheduler.ENGINE_RETRY_MS, 2_000))) {
      ExecutorService pool = Executors.newFixedThreadPool(3);
      List<Future<Boolean>> jobs = new ArrayList<>();
      try {
        for (int i = 0; i < JOBS; i++) {
          String user = i % 2 == 0 ? "alice" : "bob";
          // Mixed sizes: 1-3 maps of 1-3 s, one reduce.
          int maps = 1 + i % 3;
          long mapMs = 1_000L * (1 + (i * 7) % 3);
          jobs.add(pool.submit(() ->
              Workloads.sleep(cluster.jobConf(), user, "default", maps, 1, mapMs, 500)));
        }
        for (int i = 0; i < jobs.size(); i++) {
          assertTrue("job " + i + " succeeded", jobs.get(i).get());
        }
      } finally {
        pool.shutdownNow();
      }

      assertEquals("the RM stayed up", Service.STATE.STARTED, cluster.rm().getServiceState());
      YarnClient yarn = YarnClient.createYarnClient();
      yarn.init(cluster.conf);
      yarn.start();
      try {
        List<ApplicationReport> apps =
            yarn.getApplications(EnumSet.allOf(YarnApplicationState.class));
        assertEquals("one application per job", JOBS, apps.size());
        for (ApplicationReport a : apps) {
          assertEquals(a.getApplicationId() + " state", YarnApplicationState.FINISHED,
              a.getYarnApplicationState());
          assertEquals(a.getApplicationId() + " final status", FinalApplicationStatus.SUCCEEDED,
              a.getFinalApplicationStatus());
        }
      } finally {
        yarn.stop();
      }

      ShepherdScheduler s = cluster.scheduler();
      double injected = waitForFaultsInjectedGauge(s);
      long failures = s.getEngineFailures();
      long fallbackHeartbeats = s.getFallbackHeartbeats();
      long fallbackAllocations = s.getFallbackAllocations();
      long rebuilds = s.getEngineRebuilds();
      long engineAllocations = s.getEngineAllocations();
      System.out.printf("faults under load: jobs=%d succeeded=%d mode=%s every=%d heartbeats:"
          + " faults_injected=%.0f engine_failures=%d fallback_heartbeats=%d"
          + " fallback_allocations=%d engine_rebuilds=%d engine_allocations=%d%n",
          JOBS, JOBS, MODE, EVERY, injected, failures, fallbackHeartbeats, fallbackAllocations,
          rebuilds, engineAllocations);
      assertTrue("faults injected: " + injected, injected > 0);
      assertTrue("engine failures counted: " + failures, failures > 0);
      assertTrue("fallback heartbeats: " + fallbackHeartbeats, fallbackHeartbeats > 0);
      assertTrue("engines rebuilt: " + rebuilds, rebuilds > 0);
      assertTrue("the engine placed containers between faults", engineAllocations > 0);
    }
  }

  /**
   * The engine's {@code engine_faults_injected_total} gauge (process-wide in
   * the native library). Gauges are empty while the shim is degraded, so
   * wait for the next rebuild.
   */
  static double waitForFaultsInjectedGauge(ShepherdScheduler s) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    while (System.currentTimeMillis() < deadline) {
      double injected = s.getEngineGauge("engine_faults_injected_total");
      if (!Double.isNaN(injected)) {
        return injected;
      }
      Thread.sleep(200);
    }
    return -1;
  }
}
