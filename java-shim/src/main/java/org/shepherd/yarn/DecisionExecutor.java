package org.shepherd.yarn;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.NodeType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerAppUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.PendingAsk;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoAppAttempt;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.server.utils.BuilderUtils;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.shepherd.yarn.engine.Decisions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the engine's decisions with YARN's own machinery: an
 * allocation is booked as FifoScheduler books one
 * ({@code FifoAppAttempt.allocate}, {@code FiCaSchedulerNode.allocateContainer}),
 * at the closest locality YARN's request table still holds; a preemption
 * kills the container; a placement YARN no longer allows goes back to the
 * engine as rejected. It also books the safe FIFO's placements while the
 * engine is unavailable, and unbooks every container that ends (released,
 * finished, preempted, lost), the other half of the same bookkeeping.
 * Separate from {@link ShepherdScheduler} because this is the only place
 * YARN's state changes on the engine's word; it decides nothing itself —
 * where YARN refuses, the decision is dropped and reported.
 */
final class DecisionExecutor {
  /** Logs under the scheduler's name, as before this class was split out. */
  private static final Logger LOG = LoggerFactory.getLogger(ShepherdScheduler.class);

  private final ShepherdScheduler scheduler;
  private final EngineLink engine;
  private final AskTranslator asks;
  private final EngineIds ids;
  /** The scheduler's speculative (ROSE) containers still running. */
  private final Set<ContainerId> speculative;
  private final ShepherdMetrics shimMetrics;
  private final int resourceTypes;
  private final ReleasedContainers released = new ReleasedContainers();
  private long rejections;
  /**
   * The asks of placements YARN refused in the batch being carried out, to
   * send the engine again afterwards ({@link #execute}).
   */
  private final Map<FifoAppAttempt, Set<SchedulerRequestKey>> refusedAsks =
      new LinkedHashMap<>();

  DecisionExecutor(ShepherdScheduler scheduler, EngineLink engine, AskTranslator asks,
      EngineIds ids, Set<ContainerId> speculative,
      ShepherdMetrics shimMetrics, int resourceTypes) {
    this.scheduler = scheduler;
    this.engine = engine;
    this.asks = asks;
    this.ids = ids;
    this.speculative = speculative;
    this.shimMetrics = shimMetrics;
    this.resourceTypes = resourceTypes;
  }

  /** Carries out the engine's decisions; returns the containers it placed. */
  int execute(long[] data) {
    Decisions d = new Decisions(data, resourceTypes);
    int placed = 0;
    while (d.next()) {
      if (d.kind == Decisions.ALLOCATE) {
        if (placeDecision(d)) {
          shimMetrics.engineAllocations.incr();
          placed++;
        } else {
          long key = d.container;
          shimMetrics.rejectedDecisions.incr();
          engine.record(b -> b.allocationRejected(key));
        }
      } else if (d.kind == Decisions.PREEMPT) {
        ContainerId id = ids.containerOf(d.container);
        RMContainer c = id == null ? null : scheduler.getRMContainer(id);
        if (c != null) {
          scheduler.completedContainer(c, SchedulerUtils.createPreemptedContainerStatus(id,
              SchedulerUtils.PREEMPTED_CONTAINER), RMContainerEventType.KILL);
        }
      } else if (d.kind == Decisions.MARK_FOR_PREEMPTION) {
        // As the CapacityScheduler's MARK_CONTAINER_FOR_PREEMPTION: the
        // attempt lists it in its next allocate response's PreemptionMessage.
        ContainerId id = ids.containerOf(d.container);
        RMContainer c = id == null ? null : scheduler.getRMContainer(id);
        FifoAppAttempt attempt = c == null ? null
            : scheduler.getApplicationAttempt(c.getApplicationAttemptId());
        if (attempt != null) {
          attempt.markContainerForPreemption(id);
        }
      }
    }
    resendRefusedAsks();
    return placed;
  }

  /**
   * After a batch in which YARN refused placements: send the engine those
   * asks as YARN's attempt holds them now, with the refused containers
   * still pending there. The engine puts a refused container back into its
   * ask (AllocationRejected), but when the engine had placed the ask's
   * every container in the batch it has already dropped the ask, and the
   * container would never be placed again: the AM waits for it forever.
   * Spark's dynamic allocation found it: the engine used to free an
   * AM-released executor's room at the release, while YARN holds it until
   * the NodeManager reports it gone, and a job filling that room was
   * refused. {@link ReleasedContainers} now keeps the engine's view of such
   * room YARN's; this stays for every other refusal (a blacklisted node, a
   * label or node change the engine has not heard of yet).
   * Sent once the whole batch is carried out, so YARN's pending count no
   * longer includes containers the engine booked later in the same batch.
   */
  private void resendRefusedAsks() {
    if (refusedAsks.isEmpty()) {
      return;
    }
    for (Map.Entry<FifoAppAttempt, Set<SchedulerRequestKey>> e : refusedAsks.entrySet()) {
      if (!e.getKey().isStopped()) {
        asks.recordAsks(e.getKey(), e.getValue());
      }
    }
    refusedAsks.clear();
  }

  /**
   * The safe FIFO's pass on {@code node}, while the engine is failed or
   * degraded; returns the containers it placed.
   */
  int safeFifo(FiCaSchedulerNode node) {
    SafeFifo.Placer placer = (attempt, n, key, type) ->
        place(attempt, n, key, type, scheduler.shimKey(), false) != null;
    return SafeFifo.assign(scheduler.getSchedulerApplications().values(), node, placer);
  }

  private boolean placeDecision(Decisions d) {
    ApplicationId appId = ids.apps.keyOf(d.app);
    NodeId nodeId = ids.nodes.keyOf(d.node);
    SchedulerApplication<FifoAppAttempt> app =
        appId == null ? null : scheduler.getSchedulerApplications().get(appId);
    FifoAppAttempt attempt = app == null ? null : app.getCurrentAppAttempt();
    FiCaSchedulerNode node = nodeId == null ? null : scheduler.getNodeTracker().getNode(nodeId);
    if (attempt == null || node == null) {
      return rejected(d, appId, nodeId, "no such " + (attempt == null ? "application" : "node"));
    }
    SchedulerRequestKey key = null;
    for (SchedulerRequestKey k : attempt.getSchedulerKeys()) {
      if (k.getPriority().getPriority() == d.priority
          && k.getAllocationRequestId() == d.allocationRequestId) {
        key = k;
        break;
      }
    }
    if (key == null) {
      return rejected(d, appId, nodeId, "no ask at priority " + d.priority);
    }
    // The engine does not hear of blacklists (MapReduce's AM blacklists a
    // node after task failures there): YARN refuses, and the ask goes back
    // to the engine, which offers the app other nodes first (its refusal
    // back-off) and this one again once the back-off ends.
    if (SchedulerAppUtils.isPlaceBlacklisted(attempt, node, LOG)) {
      refusedAsks.computeIfAbsent(attempt, a -> new HashSet<>()).add(key);
      return rejected(d, appId, nodeId, "node blacklisted by the application");
    }
    NodeType type = bookable(attempt, key, node,
        d.locality == Decisions.NODE_LOCAL ? NodeType.NODE_LOCAL
        : d.locality == Decisions.RACK_LOCAL ? NodeType.RACK_LOCAL : NodeType.OFF_SWITCH);
    // The engine's over-subscription (ROSE) marks its speculative containers
    // OPPORTUNISTIC in the decision: they go beyond the node's allocated view
    // (its unallocated resource goes negative, as with node overcommit) and
    // run as GUARANTEED containers, which a Hadoop 3.4 NodeManager with
    // yarn.nodemanager.opportunistic-containers-max-queue-length = 0 starts
    // without consulting its allocation-based tracker. The engine takes
    // them back with PREEMPT decisions when measured use crosses its bound.
    boolean beyondAllocated = d.executionType == 1;
    if (place(attempt, node, key, type, d.container, beyondAllocated) == null) {
      refusedAsks.computeIfAbsent(attempt, a -> new HashSet<>()).add(key);
      return rejected(d, appId, nodeId, "YARN refused the " + type + " allocation (ask "
          + attempt.getPendingAsk(key, ResourceRequest.ANY) + ", node unallocated "
          + node.getUnallocatedResource() + ")");
    }
    return true;
  }

  /**
   * The locality YARN can book this placement under. YARN books NODE_LOCAL
   * against the node's, the rack's and the ANY request, RACK_LOCAL against
   * the rack's and ANY, and drops a request whose count reaches 0; booking
   * against a dropped request throws a NullPointerException inside
   * LocalityAppPlacementAllocator, on the RM's scheduler thread, which exits
   * the RM. Rack-local placements on other nodes of a rack can use up the
   * rack's count while node requests in it remain (MapReduce asks over
   * several racks), so the engine's NODE_LOCAL may no longer be bookable:
   * book it at the closest locality YARN's table still has, as FifoScheduler
   * checks the rack's count before a node-local assignment.
   */
  private static NodeType bookable(FifoAppAttempt attempt, SchedulerRequestKey key,
      FiCaSchedulerNode node, NodeType wanted) {
    boolean rack = attempt.getPendingAsk(key, node.getRackName()).getCount() > 0;
    if (wanted == NodeType.NODE_LOCAL && rack
        && attempt.getPendingAsk(key, node.getNodeName()).getCount() > 0) {
      return NodeType.NODE_LOCAL;
    }
    if (wanted != NodeType.OFF_SWITCH && rack) {
      return NodeType.RACK_LOCAL;
    }
    return NodeType.OFF_SWITCH;
  }

  /**
   * The most specific locality the app asked for on this node before the
   * placement: the request type YARN's attempt metrics count beside the
   * type the container got (as the CapacityScheduler's allocator sets it).
   */
  private static NodeType requestedLocality(FifoAppAttempt attempt, SchedulerRequestKey key,
      FiCaSchedulerNode node) {
    if (attempt.getPendingAsk(key, node.getNodeName()).getCount() > 0) {
      return NodeType.NODE_LOCAL;
    }
    if (attempt.getPendingAsk(key, node.getRackName()).getCount() > 0) {
      return NodeType.RACK_LOCAL;
    }
    return NodeType.OFF_SWITCH;
  }

  /**
   * The attempt's allocated-container and locality counts
   * (RMAppAttemptMetrics: the app report's and the RM UI's locality table,
   * kept across an RM restart through the state store), which the
   * FifoScheduler never books.
   */
  private void countAllocation(FifoAppAttempt attempt, NodeType type, NodeType requested) {
    RMApp rmApp = scheduler.context().getRMApps().get(attempt.getApplicationId());
    RMAppAttempt rmAttempt =
        rmApp == null ? null : rmApp.getRMAppAttempt(attempt.getApplicationAttemptId());
    if (rmAttempt != null) {
      rmAttempt.getRMAppAttemptMetrics().incNumAllocatedContainers(type, requested);
    }
  }

  /**
   * Logs why a decision could not be carried out: the first ten, then one in
   * a thousand (a policy that keeps choosing an impossible placement shows up
   * here and in the RejectedDecisions counter).
   */
  private boolean rejected(Decisions d, ApplicationId app, NodeId node, String why) {
    long n = rejections++;
    if (n < 10 || n % 1000 == 0) {
      LOG.warn("Engine decision #" + n + " not carried out: container " + d.container
          + " for " + app + " on " + node + " at priority " + d.priority + ": " + why);
    }
    return false;
  }

  /**
   * Carry out one placement with YARN's own allocation machinery, as
   * FifoScheduler.assignContainer does. Returns null if YARN's state no
   * longer allows it (the ask was withdrawn, the attempt stopped, ...).
   */
  private RMContainer place(FifoAppAttempt attempt, FiCaSchedulerNode node,
      SchedulerRequestKey key, NodeType type, long engineKey, boolean beyondAllocated) {
    synchronized (attempt) {
      if (attempt.isStopped()) {
        return null;
      }
      PendingAsk ask = attempt.getPendingAsk(key, ResourceRequest.ANY);
      Resource capability = ask.getPerAllocationResource();
      if (ask.getCount() <= 0
          || (!beyondAllocated && !fitsBesideSpeculative(capability, node))) {
        return null;
      }
      ContainerId id = BuilderUtils.newContainerId(attempt.getApplicationAttemptId(),
          attempt.getNewContainerId());
      Container container = BuilderUtils.newContainer(id, node.getNodeID(),
          node.getRMNode().getHttpAddress(), capability, key.getPriority(), null,
          key.getAllocationRequestId());
      Set<String> tags = asks.placementTags(attempt, key);
      if (tags != null) {
        // On the record before YARN builds its RMContainer from it: the
        // RMContainer's START transition books the tags in YARN's
        // AllocationTagsManager, and its FINISHED transition removes them.
        container.setAllocationTags(tags);
      }
      NodeType requested = requestedLocality(attempt, key, node);
      RMContainer rmContainer = attempt.allocate(type, node, key, container);
      if (rmContainer == null) {
        return null;
      }
      countAllocation(attempt, type, requested);
      node.allocateContainer(rmContainer);
      scheduler.changeUsed(capability, true);
      ((ShepherdQueue) attempt.getQueue()).addUsed(capability, true);
      ids.bindContainer(id, engineKey);
      if (beyondAllocated) {
        speculative.add(id);
      }
      return rmContainer;
    }
  }

  /**
   * Whether {@code capability} fits the node's unallocated resource as the
   * engine sees it: YARN's, plus what speculative containers hold. A
   * guaranteed allocation goes where only
   * speculative containers are in its way — they run on capacity that is
   * not theirs, and ROSE's controller takes them back (preempts them) when
   * the node's measured use crosses its bound, as the paper's NMs kill
   * speculative tasks for regular ones.
   */
  private boolean fitsBesideSpeculative(Resource capability, FiCaSchedulerNode node) {
    boolean fits = Resources.fitsIn(capability, node.getUnallocatedResource());
    if (fits || speculative.isEmpty()) {
      return fits;
    }
    // Only when YARN's own view says no: walk the node's containers.
    Resource room = Resources.clone(node.getUnallocatedResource());
    for (RMContainer c : node.getCopiedListOfRunningContainers()) {
      if (speculative.contains(c.getContainerId())) {
        Resources.addTo(room, c.getAllocatedResource());
      }
    }
    return Resources.fitsIn(capability, room);
  }

  /**
   * {@link ShepherdScheduler#completedContainerInternal}, under the
   * scheduler's lock: the engine hears ContainerFinished, YARN's attempt,
   * node and queues give the container's resources back.
   */
  void release(RMContainer rmContainer, ContainerStatus status, RMContainerEventType event) {
    Container container = rmContainer.getContainer();
    FifoAppAttempt attempt = scheduler.getCurrentAttemptForContainer(container.getId());
    FiCaSchedulerNode node = (FiCaSchedulerNode) scheduler.getNode(container.getNodeId());
    speculative.remove(container.getId());
    Long key = ids.unbindContainer(container.getId());
    if (attempt == null) {
      finished(key, container.getId(), status, null, event);
      LOG.info("Unknown application " + container.getId().getApplicationAttemptId()
          + " released container " + container.getId() + " with event " + event);
      return;
    }
    attempt.containerCompleted(rmContainer, status, event, RMNodeLabelsManager.NO_LABEL);
    if (node != null) {
      node.releaseContainer(rmContainer.getContainerId(), false);
    }
    scheduler.changeUsed(container.getResource(), false);
    ((ShepherdQueue) attempt.getQueue()).addUsed(container.getResource(), false);
    finished(key, container.getId(), status, node, event);
  }

  /** The engine hears the container finished: now, or when its node lets it go ({@link ReleasedContainers}). */
  private void finished(Long key, ContainerId id, ContainerStatus status, FiCaSchedulerNode node,
      RMContainerEventType event) {
    if (key == null || released.hold(id, key, status.getExitStatus(), node, event)) {
      return;
    }
    long now = System.currentTimeMillis();
    int exit = status.getExitStatus();
    engine.record(b -> b.containerFinished(key, exit, now));
  }

  /** After {@code node}'s heartbeat was booked in YARN ({@link ReleasedContainers}). */
  void nodeReported(FiCaSchedulerNode node) {
    released.nodeReported(node, scheduler, engine);
  }

}
