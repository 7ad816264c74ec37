package org.shepherd.yarn;

import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * Containers the engine preempted (ROSE's evictions, queue-guarantee
 * preemption) that YARN keeps booked on their node until the NodeManager
 * reports them gone: a launched container's room is released only then
 * ({@code SchedulerNode#releaseContainer(id, false)} waits for the node).
 * The engine hears {@code ContainerFinished} once the node has released it,
 * so it never places on room YARN has not freed yet: YARN would refuse that
 * placement, and the room would go to whoever asked next instead of the
 * queue it was taken back for.
 */
final class KilledContainers {
  private static final class Held {
    final long key;
    final int exit;
    final NodeId node;

    Held(long key, int exit, NodeId node) {
      this.key = key;
      this.exit = exit;
      this.node = node;
    }
  }

  private final Map<ContainerId, Held> held = new HashMap<>();
  private ContainerId killing;

  /** {@code id} is being killed by an engine decision (until {@link #killed}). */
  void killing(ContainerId id) {
    killing = id;
  }

  void killed() {
    killing = null;
  }

  /**
   * Whether the engine must not hear yet that {@code id} finished: it is the
   * container being killed and its node still books it. Then it is held
   * until {@link #nodeReported} sees the node release it.
   */
  boolean hold(ContainerId id, long key, int exit, FiCaSchedulerNode node) {
    if (!id.equals(killing) || node == null || !booked(node, id)) {
      return false;
    }
    held.put(id, new Held(key, exit, node.getNodeID()));
    return true;
  }

  /**
   * After {@code node}'s heartbeat was booked: the held containers it
   * released now reach the engine, unless their app is gone (the engine
   * released them with it).
   */
  void nodeReported(FiCaSchedulerNode node, ShepherdScheduler scheduler, EngineLink engine) {
    if (held.isEmpty()) {
      return;
    }
    long now = System.currentTimeMillis();
    held.entrySet().removeIf(e -> {
      Held h = e.getValue();
      if (scheduler.getNode(h.node) == null) {
        return true; // its node is gone: the engine released it with the node
      }
      if (!h.node.equals(node.getNodeID()) || booked(node, e.getKey())) {
        return false;
      }
      if (scheduler.getSchedulerApplications()
          .containsKey(e.getKey().getApplicationAttemptId().getApplicationId())) {
        engine.record(b -> b.containerFinished(h.key, h.exit, now));
      }
      return true;
    });
  }

  /** Does {@code node} still book {@code id} (launched, not reported gone)? */
  private static boolean booked(FiCaSchedulerNode node, ContainerId id) {
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      if (c.getContainerId().equals(id)) {
        return true;
      }
    }
    return false;
  }

  int size() {
    return held.size();
  }
}
