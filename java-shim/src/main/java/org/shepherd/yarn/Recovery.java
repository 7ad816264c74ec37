package org.shepherd.yarn;

import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ExecutionType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoAppAttempt;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.shepherd.yarn.engine.EventBatch;

/**
 * Bringing an engine up to what YARN already holds, in the two cases where
 * the engine did not see it happen: a work-preserving RM restart, where
 * NodeManagers report containers the new RM's engine never placed (each
 * becomes a ContainerRecovered), and the rebuild of a failed engine, where
 * the whole cluster — nodes, apps, attempts, asks, live containers — is
 * replayed into a fresh one as events. Separate from
 * {@link ShepherdScheduler} because both write state the engine must hold
 * without having decided it, which nothing else in the shim does.
 */
final class Recovery {
  private final ShepherdScheduler scheduler;
  private final EngineLink engine;
  private final EventTranslator events;
  private final AskTranslator asks;
  private final EngineIds ids;
  private final ShepherdMetrics shimMetrics;

  Recovery(ShepherdScheduler scheduler, EngineLink engine, EventTranslator events,
      AskTranslator asks, EngineIds ids, ShepherdMetrics shimMetrics) {
    this.scheduler = scheduler;
    this.engine = engine;
    this.events = events;
    this.asks = asks;
    this.ids = ids;
    this.shimMetrics = shimMetrics;
  }

  /**
   * After YARN rebuilt the containers {@code nm} reported
   * ({@link ShepherdScheduler#recoverContainersOnNode}), under the
   * scheduler's lock: each one the engine does not know yet gets a shim key
   * and is sent as recovered.
   */
  void recoverContainersOnNode(RMNode nm) {
    FiCaSchedulerNode node = (FiCaSchedulerNode) scheduler.getNode(nm.getNodeID());
    if (node == null) {
      return;
    }
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      if (ids.keyOf(c.getContainerId()) != null) {
        continue;
      }
      long key = scheduler.shimKey();
      ids.bindContainer(c.getContainerId(), key);
      scheduler.changeUsed(c.getAllocatedResource(), true);
      engine.record(b -> writeRecovered(b, key, c));
      shimMetrics.recoveredContainers.incr();
    }
  }

  /** A live container the engine must know about without having placed it. */
  private void writeRecovered(EventBatch b, long key, RMContainer c) {
    int app = ids.apps.find(c.getApplicationAttemptId().getApplicationId());
    int node = ids.nodes.find(c.getNodeId());
    if (app < 0 || node < 0) {
      return;
    }
    SchedulerRequestKey k = c.getAllocatedSchedulerKey();
    int exec = c.getExecutionType() == ExecutionType.OPPORTUNISTIC ? 1 : 0;
    b.containerRecovered(key, app, node, k.getPriority().getPriority(),
        k.getAllocationRequestId(), events.toLongs(c.getAllocatedResource()), exec,
        c.getCreationTime());
    Set<String> tags = c.getAllocationTags();
    if (tags != null && !tags.isEmpty()) {
      // Anti-affinity must count containers that survived an RM restart.
      b.containerTags(key, tags);
    }
  }

  /**
   * Write the whole cluster as events into {@code b}: what a fresh engine
   * needs to continue where a failed one stopped.
   */
  void replayState(EventBatch b) {
    synchronized (scheduler) {
      for (FiCaSchedulerNode n : scheduler.getNodeTracker().getAllNodes()) {
        int idx = ids.nodes.idOf(n.getNodeID());
        b.nodeAdded(idx, n.getNodeName(), n.getRackName(), events.toLongs(n.getTotalResource()),
            n.getLabels(), events.nodeAttributes(n.getRMNode().getHostName()));
      }
      for (Map.Entry<ApplicationId, SchedulerApplication<FifoAppAttempt>> e
          : scheduler.getSchedulerApplications().entrySet()) {
        SchedulerApplication<FifoAppAttempt> app = e.getValue();
        int idx = ids.apps.idOf(e.getKey());
        events.writeAppAdded(b, idx, e.getKey(), app.getQueue(), app.getUser());
        FifoAppAttempt attempt = app.getCurrentAppAttempt();
        if (attempt == null) {
          continue;
        }
        b.attemptAdded(idx, attempt.getApplicationAttemptId().getAttemptId());
        for (SchedulerRequestKey key : attempt.getSchedulerKeys()) {
          asks.writeAsk(b, idx, key, Asks.of(attempt, key));
        }
        for (RMContainer c : attempt.getLiveContainers()) {
          Long key = ids.keyOf(c.getContainerId());
          if (key != null) {
            writeRecovered(b, key, c);
          }
        }
      }
    }
  }
}
