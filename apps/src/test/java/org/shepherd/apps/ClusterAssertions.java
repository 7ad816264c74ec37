package org.shepherd.apps;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerAppReport;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;

/** What every apps test checks of the RM and the shim: one place for the Spark, Tez and ROSE tests. */
final class ClusterAssertions {
  private ClusterAssertions() {
  }

  /** The RM's application named {@code name}, or null. */
  static RMApp app(ShepherdCluster cluster, String name) {
    for (RMApp a : cluster.rm().getRMContext().getRMApps().values()) {
      if (name.equals(a.getName())) {
        return a;
      }
    }
    return null;
  }

  /** The RM's application with id {@code id} (as YARN prints it), or null. */
  static RMApp appById(ShepherdCluster cluster, String id) {
    return cluster.rm().getRMContext().getRMApps().get(ApplicationId.fromString(id));
  }

  /** The live containers of the app's current attempt, its AM's included (none for a null app). */
  static List<RMContainer> liveContainers(ShepherdCluster cluster, RMApp a) {
    if (a == null || a.getCurrentAppAttempt() == null) {
      return List.of();
    }
    SchedulerAppReport report =
        cluster.scheduler().getSchedulerAppInfo(a.getCurrentAppAttempt().getAppAttemptId());
    return report == null ? List.of() : new ArrayList<>(report.getLiveContainers());
  }

  /** The application named {@code name} is FINISHED, SUCCEEDED, and of YARN type {@code type}. */
  static void assertSucceeded(ShepherdCluster cluster, String name, String type) {
    RMApp a = app(cluster, name);
    assertNotNull("the RM knows " + name, a);
    assertEquals(name + ": " + a.getDiagnostics(), YarnApplicationState.FINISHED,
        a.createApplicationState());
    assertEquals(name + ": " + a.getDiagnostics(), FinalApplicationStatus.SUCCEEDED,
        a.getFinalApplicationStatus());
    assertEquals(type, a.getApplicationType());
  }

  /**
   * Every container the RM allocated so far was the engine's: the shim's
   * fallback placed none, and no engine call failed.
   */
  static void assertEverythingPlacedByTheEngine(ShepherdCluster cluster) {
    ShepherdScheduler s = cluster.scheduler();
    // Read under the scheduler's lock, which every allocation holds, so
    // another application's allocation cannot fall between the two counts.
    long allocated;
    long engine;
    synchronized (s) {
      allocated = s.getRootQueueMetrics().getAggregateAllocatedContainers();
      engine = s.getEngineAllocations();
    }
    assertEquals("no fallback allocations", 0, s.getFallbackAllocations());
    assertEquals("no engine failures", 0, s.getEngineFailures());
    assertEquals("every container the RM allocated was the engine's", allocated, engine);
  }
}
