package org.shepherd.yarn;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
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

    Held(long key, int exit) {
      this.key = key;
      this.exit = exit;
    }
  }

  /** Held containers by the node that still books them. */
  private final Map<NodeId, Map<ContainerId, Held>> held = new HashMap<>();

  /**
   * Whether the engine must not hear yet that {@code id} finished: YARN
   * released it for {@code event} other than the NodeManager's report
   * ({@code FINISHED}: the node lets it go right after, in the same
   * heartbeat) and its node still books it. Then it is held until
   * {@link #nodeReported} sees the node release it.
   */
  boolean hold(ContainerId id, long key, int exit, FiCaSchedulerNode node,
      RMContainerEventType event) {
    if (event == RMContainerEventType.FINISHED || node == null
        || !bookedIds(node).contains(id)) {
      return false;
    }
    held.computeIfAbsent(node.getNodeID(), n -> new HashMap<>()).put(id, new Held(key, exit));
    return true;
  }

  /**
   * After {@code node}'s heartbeat was booked: the held containers it
   * released now reach the engine, unless their app is gone (the engine
   * released them with it). Holds on nodes that left are dropped: the
   * engine released those containers with their node.
   */
  void nodeReported(FiCaSchedulerNode node, ShepherdScheduler scheduler, EngineLink engine) {
    if (held.isEmpty()) {
      return;
    }
    held.keySet().removeIf(n -> scheduler.getNode(n) == null);
    Map<ContainerId, Held> onNode = held.get(node.getNodeID());
    if (onNode == null) {
      return;
    }
    Set<ContainerId> booked = bookedIds(node);
    long now = System.currentTimeMillis();
    onNode.entrySet().removeIf(e -> {
      if (booked.contains(e.getKey())) {
        return false;
      }
      Held h = e.getValue();
      if (scheduler.getSchedulerApplications()
          .containsKey(e.getKey().getApplicationAttemptId().getApplicationId())) {
        engine.record(b -> b.containerFinished(h.key, h.exit, now));
      }
      return true;
    });
    if (onNode.isEmpty()) {
      held.remove(node.getNodeID());
    }
  }

  /** The containers {@code node} still books (launched, not reported gone). */
  private static Set<ContainerId> bookedIds(FiCaSchedulerNode node) {
    Set<ContainerId> ids = new HashSet<>();
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      ids.add(c.getContainerId());
    }
    return ids;
  }
}
