package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.shepherd.yarn.ShepherdScheduler;

/**
 * What the RM restart and failover tests check on the ResourceManager that
 * took over: which containers run, and that nothing is allocated twice.
 */
final class RecoveryChecks {
  private RecoveryChecks() {
  }

  /** The containers of the RM's nodes that have started (RUNNING). */
  static Set<ContainerId> runningContainers(ResourceManager rm) {
    AbstractYarnScheduler<?, ?> s = (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
    Set<ContainerId> running = new HashSet<>();
    for (NodeId id : rm.getRMContext().getRMNodes().keySet()) {
      SchedulerNode n = s.getSchedulerNode(id);
      if (n == null) {
        continue;
      }
      for (RMContainer c : n.getCopiedListOfRunningContainers()) {
        if (c.getState() == RMContainerState.RUNNING) {
          running.add(c.getContainerId());
        }
      }
    }
    return running;
  }

  /**
   * Waits until at least {@code n} containers run on the RM's nodes (an
   * allocated container that has not started yet dies with its RM: YARN
   * recovers what NodeManagers report, and the AM asks again); returns them.
   */
  static Set<ContainerId> awaitRunning(ResourceManager rm, int n) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 300_000;
    while (runningContainers(rm).size() < n) {
      assertTrue(n + " containers running before the takeover, saw "
          + runningContainers(rm).size(), System.currentTimeMillis() < deadline);
      Thread.sleep(500);
    }
    return runningContainers(rm);
  }

  /**
   * After a restart or failover ({@code what}) to {@code rm}: watches it
   * until every job is done, then checks that every job SUCCEEDED, nothing
   * was allocated beyond a node or twice, its fresh engine learned every
   * container that ran before ({@code runningBefore}) and placed the
   * reduces itself, with no fallback and no engine failure.
   */
  static void assertTakeover(String what, ResourceManager rm, List<Future<Boolean>> jobs,
      int runningBefore, long allocatedBefore) throws Exception {
    try (Watcher watcher = new Watcher(rm)) {
      for (Future<Boolean> j : jobs) {
        assertTrue("a job failed across the " + what, j.get(10, TimeUnit.MINUTES));
      }
      assertEquals("allocation never exceeded a node or repeated a container", null,
          watcher.violation());
    }
    ShepherdScheduler after = (ShepherdScheduler) rm.getResourceScheduler();
    long recovered = after.getRecoveredContainers();
    System.out.printf("%s: %d containers running before, %d recovered into the new engine,"
        + " %d engine allocations before and %d after%n", what, runningBefore, recovered,
        allocatedBefore, after.getEngineAllocations());
    assertTrue("the new engine learned every running container: recovered " + recovered
        + " of " + runningBefore, recovered >= runningBefore);
    assertTrue("the new engine placed the reduces", after.getEngineAllocations() >= 3);
    assertEquals("no fallback allocations", 0, after.getFallbackAllocations());
    assertEquals("no engine failures", 0, after.getEngineFailures());
  }

  /**
   * The first node allocated beyond its capacity or container live on two
   * nodes, described; null when there is none.
   */
  static String overAllocated(ResourceManager rm) {
    AbstractYarnScheduler<?, ?> s = (AbstractYarnScheduler<?, ?>) rm.getResourceScheduler();
    Set<ContainerId> seen = new HashSet<>();
    for (NodeId id : rm.getRMContext().getRMNodes().keySet()) {
      SchedulerNode n = s.getSchedulerNode(id);
      if (n == null) {
        continue;
      }
      if (n.getUnallocatedResource().getMemorySize() < 0
          || n.getUnallocatedResource().getVirtualCores() < 0) {
        return id + " allocated beyond its capacity: unallocated " + n.getUnallocatedResource();
      }
      for (RMContainer c : n.getCopiedListOfRunningContainers()) {
        if (!seen.add(c.getContainerId())) {
          return c.getContainerId() + " live on two nodes";
        }
      }
    }
    return null;
  }

  /** Checks {@link #overAllocated} every 250 ms until closed; keeps the first violation. */
  static final class Watcher implements AutoCloseable {
    private final AtomicReference<String> violation = new AtomicReference<>();
    private final Thread thread;

    Watcher(ResourceManager rm) {
      thread = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted() && violation.get() == null) {
          try {
            String v = overAllocated(rm);
            if (v != null) {
              violation.set(v);
            }
            Thread.sleep(250);
          } catch (InterruptedException e) {
            return;
          } catch (RuntimeException raced) {
            // A node or container changed while being read: look again.
          }
        }
      }, "recovery-watcher");
      thread.setDaemon(true);
      thread.start();
    }

    String violation() {
      return violation.get();
    }

    @Override
    public void close() throws InterruptedException {
      thread.interrupt();
      thread.join();
    }
  }
}
