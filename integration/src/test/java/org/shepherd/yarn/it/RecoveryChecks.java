package org.shepherd.yarn.it;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;

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
