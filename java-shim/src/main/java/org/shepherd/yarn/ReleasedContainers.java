package org.shepherd.yarn;

import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;

/**
 * Launched containers YARN has released but their node still books until
 * the NodeManager reports them gone ({@code SchedulerNode#releaseContainer(id,
 * false)} waits for the node): those an AM gave back (Spark's dynamic
 * allocation releasing idle executors, MapReduce's surplus containers) and
 * those the engine preempted (ROSE's evictions, queue-guarantee preemption).
 * The engine hears {@code ContainerFinished} once the node has released the
 * room, so its view of the node stays YARN's: it never places on room YARN
 * has not freed yet, which YARN would refuse (the placement then waits out
 * the refusal back-off, and preempted room would go to whoever asked next
 * instead of the queue it was taken back for). A container the NodeManager
 * reported finished is not held: YARN frees its room in the same heartbeat,
 * before the engine schedules on it.
 */
final class ReleasedContainers {
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

  /**
   * Whether the engine must not hear yet that {@code id} finished: YARN
   * released it for {@code event} other than the NodeManager's report
   * ({@code FINISHED}: the node lets it go right after, in the same
   * heartbeat) and its node still books it. Then it is held until
   * {@link #nodeReported} sees the node release it.
   */
  boolean hold(ContainerId id, long key, int exit, FiCaSchedulerNode node,
      RMContainerEventType event) {
    if (event == RMContainerEventType.FINISHED || node == null || !booked(node, id)) {
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
