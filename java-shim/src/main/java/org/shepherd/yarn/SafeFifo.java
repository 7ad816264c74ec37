package org.shepherd.yarn;

import java.util.Collection;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.PendingAsk;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoAppAttempt;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.util.resource.Resources;

/**
 * The safe built-in policy the shim falls back to while the engine is
 * unavailable: applications in submission order, their asks in priority
 * order, as many containers as fit on the heartbeating node. It is
 * deliberately simple — its only job is that the cluster never stalls.
 */
final class SafeFifo {
  /** Carries out one placement; returns false if it could not. */
  interface Placer {
    boolean place(FifoAppAttempt attempt, FiCaSchedulerNode node, SchedulerRequestKey key,
        NodeType type);
  }

  private SafeFifo() {
  }

  /** Returns the number of containers placed on {@code node}. */
  static int assign(Collection<SchedulerApplication<FifoAppAttempt>> apps, FiCaSchedulerNode node,
      Placer placer) {
    int placed = 0;
    for (SchedulerApplication<FifoAppAttempt> app : apps) {
      FifoAppAttempt attempt = app.getCurrentAppAttempt();
      if (attempt == null || attempt.isStopped()) {
        continue;
      }
      for (SchedulerRequestKey key : attempt.getSchedulerKeys()) {
        while (true) {
          PendingAsk any = attempt.getPendingAsk(key, ResourceRequest.ANY);
          if (any.getCount() <= 0
              || !Resources.fitsIn(any.getPerAllocationResource(), node.getUnallocatedResource())) {
            break;
          }
          NodeType type = localityOn(attempt, key, node);
          if (type == null || !placer.place(attempt, node, key, type)) {
            break;
          }
          placed++;
        }
      }
    }
    return placed;
  }

  private static NodeType localityOn(FifoAppAttempt attempt, SchedulerRequestKey key,
      FiCaSchedulerNode node) {
    if (attempt.getOutstandingAsksCount(key, node.getNodeName()) > 0) {
      return NodeType.NODE_LOCAL;
    }
    if (attempt.getOutstandingAsksCount(key, node.getRackName()) > 0) {
      return NodeType.RACK_LOCAL;
    }
    ResourceRequest any = Asks.of(attempt, key).get(ResourceRequest.ANY);
    return any == null || any.getRelaxLocality() ? NodeType.OFF_SWITCH : null;
  }
}
