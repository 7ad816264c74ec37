package org.shepherd.yarn;

import static org.shepherd.yarn.ShepherdScheduler.UTILIZATION;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceUtilization;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ActiveUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerExpiredSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ContainerPreemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeResourceUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.ReleaseContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoAppAttempt;
import org.shepherd.yarn.engine.EventBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * YARN's scheduler events as the engine's events. Each {@link SchedulerEvent}
 * the RM dispatches (nodes added, removed, resized, relabelled; apps and
 * attempts added and removed; containers expired, released, marked for
 * preemption) is booked in YARN's own structures as FifoScheduler books it,
 * and recorded in the engine link's batch as the event the engine knows
 * (NodeAdded, AppAdded, AttemptRemoved, ...), under the dense ids the
 * scheduler keeps; a node's heartbeat adds its labels and measured use.
 * Separate from {@link ShepherdScheduler} so that the one place YARN's
 * vocabulary is turned into the engine's is readable on its own; asks have
 * their own translator ({@link AskTranslator}), and the engine's answers are
 * carried out by {@link DecisionExecutor}.
 *
 * <p>Where the scheduler's methods are YARN's API ({@code addApplication},
 * {@code nodeUpdate}, {@code completedContainer}, ...), events reach them
 * through the scheduler, so subclasses (SLS's wrapper) still see every call.
 */
final class EventTranslator {
  /** Logs under the scheduler's name, as before this class was split out. */
  private static final Logger LOG = LoggerFactory.getLogger(ShepherdScheduler.class);

  private final ShepherdScheduler scheduler;
  private final EngineLink engine;
  private final QueueTree queues;
  private final EngineIds ids;
  private final int resourceTypes;
  private final boolean usePortForNodeName;
  /** {@link ShepherdScheduler#UTILIZATION} is {@code containers}. */
  private final boolean containersUtilization;
  /** {@code yarn.node-labels.enabled}: node labels can change at run time. */
  private final boolean nodeLabelsEnabled;

  EventTranslator(ShepherdScheduler scheduler, EngineLink engine, QueueTree queues,
      EngineIds ids, int resourceTypes,
      boolean usePortForNodeName, boolean containersUtilization, boolean nodeLabelsEnabled) {
    this.scheduler = scheduler;
    this.engine = engine;
    this.queues = queues;
    this.ids = ids;
    this.resourceTypes = resourceTypes;
    this.usePortForNodeName = usePortForNodeName;
    this.containersUtilization = containersUtilization;
    this.nodeLabelsEnabled = nodeLabelsEnabled;
  }

  /**
   * {@link ShepherdScheduler#UTILIZATION}: whether it is {@code containers}
   * ({@code node} is the default); anything else fails the start.
   */
  static boolean containersUtilization(Configuration conf) {
    String utilization = conf.getTrimmed(UTILIZATION, "node");
    if (!utilization.equals("node") && !utilization.equals("containers")) {
      throw new YarnRuntimeException("Shepherd scheduler cannot start: " + UTILIZATION + " = `"
          + utilization + "`: expected `node` or `containers`");
    }
    return utilization.equals("containers");
  }

  // ---------------------------------------------------------------- events

  void handle(SchedulerEvent event) {
    switch (event.getType()) {
      case NODE_ADDED: {
        NodeAddedSchedulerEvent e = (NodeAddedSchedulerEvent) event;
        addNode(e.getAddedRMNode());
        scheduler.recoverContainersOnNode(e.getContainerReports(), e.getAddedRMNode());
        break;
      }
      case NODE_REMOVED:
        removeNode(((NodeRemovedSchedulerEvent) event).getRemovedRMNode());
        break;
      case NODE_RESOURCE_UPDATE: {
        NodeResourceUpdateSchedulerEvent e = (NodeResourceUpdateSchedulerEvent) event;
        scheduler.updateNodeResource(e.getRMNode(), e.getResourceOption());
        scheduler.updateAvailableResourcesMetrics();
        FiCaSchedulerNode node = (FiCaSchedulerNode) scheduler.getNode(e.getRMNode().getNodeID());
        int idx = ids.nodes.find(e.getRMNode().getNodeID());
        if (node != null && idx >= 0) {
          long[] cap = toLongs(node.getTotalResource());
          engine.record(b -> b.nodeResourceUpdated(idx, cap));
        }
        break;
      }
      case NODE_UPDATE:
        scheduler.nodeUpdate(((NodeUpdateSchedulerEvent) event).getRMNode());
        break;
      case NODE_ATTRIBUTES_UPDATE: {
        // Node attributes feed the engine's placement-constraint vectors.
        org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAttributesUpdateSchedulerEvent e =
            (org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAttributesUpdateSchedulerEvent) event;
        for (String host : e.getUpdatedNodeToAttributes().keySet()) {
          Map<String, String> attrs = nodeAttributes(host);
          for (FiCaSchedulerNode n : scheduler.getNodeTracker().getAllNodes()) {
            int idx = ids.nodes.find(n.getNodeID());
            if (idx >= 0 && host.equals(n.getRMNode().getHostName())) {
              Set<String> labels = n.getLabels();
              engine.record(b -> b.nodeAttributesUpdated(idx, labels, attrs));
            }
          }
        }
        break;
      }
      case APP_ADDED: {
        AppAddedSchedulerEvent e = (AppAddedSchedulerEvent) event;
        scheduler.addApplication(e.getApplicationId(), e.getQueue(), e.getUser(),
            e.getIsAppRecovering(), e.isUnmanagedAM());
        break;
      }
      case APP_REMOVED: {
        AppRemovedSchedulerEvent e = (AppRemovedSchedulerEvent) event;
        doneApplication(e.getApplicationID(), e.getFinalState());
        break;
      }
      case APP_ATTEMPT_ADDED: {
        AppAttemptAddedSchedulerEvent e = (AppAttemptAddedSchedulerEvent) event;
        scheduler.addApplicationAttempt(e.getApplicationAttemptId(),
            e.getTransferStateFromPreviousAttempt(), e.getIsAttemptRecovering());
        break;
      }
      case APP_ATTEMPT_REMOVED: {
        AppAttemptRemovedSchedulerEvent e = (AppAttemptRemovedSchedulerEvent) event;
        doneApplicationAttempt(e.getApplicationAttemptID(), e.getFinalAttemptState(),
            e.getKeepContainersAcrossAppAttempts());
        break;
      }
      case CONTAINER_EXPIRED: {
        ContainerId id = ((ContainerExpiredSchedulerEvent) event).getContainerId();
        RMContainer c = scheduler.getRMContainer(id);
        if (c != null) {
          scheduler.completedContainer(c,
              SchedulerUtils.createAbnormalContainerStatus(id, SchedulerUtils.EXPIRED_CONTAINER),
              RMContainerEventType.EXPIRE);
        }
        break;
      }
      case RELEASE_CONTAINER: {
        RMContainer c = ((ReleaseContainerEvent) event).getContainer();
        scheduler.completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(
            c.getContainerId(), SchedulerUtils.RELEASED_CONTAINER), RMContainerEventType.RELEASED);
        break;
      }
      case MARK_CONTAINER_FOR_PREEMPTION: {
        // Tell the AM (through its next allocate response) to give it back.
        ContainerPreemptEvent e = (ContainerPreemptEvent) event;
        FifoAppAttempt attempt = scheduler.getApplicationAttempt(e.getAppId());
        if (attempt != null) {
          attempt.markContainerForPreemption(e.getContainer().getContainerId());
        }
        break;
      }
      case MARK_CONTAINER_FOR_KILLABLE: {
        RMContainer c = ((ContainerPreemptEvent) event).getContainer();
        scheduler.completedContainer(c, SchedulerUtils.createPreemptedContainerStatus(
            c.getContainerId(), SchedulerUtils.PREEMPTED_CONTAINER), RMContainerEventType.KILL);
        break;
      }
      case KILL_RESERVED_CONTAINER:
      case MARK_CONTAINER_FOR_NONKILLABLE:
        // Shepherd never reserves containers and never marks them killable
        // ahead of time, so there is nothing to undo.
        break;
      default:
        LOG.debug("Shepherd ignores scheduler event {}", event.getType());
    }
  }

  // ---------------------------------------------------------------- nodes

  /**
   * The node attributes YARN's NodeAttributesManager holds for {@code host},
   * each under its name and under prefix/name (a constraint may name either).
   */
  Map<String, String> nodeAttributes(String host) {
    Map<String, String> out = new TreeMap<>();
    try {
      org.apache.hadoop.yarn.nodelabels.NodeAttributesManager m =
          scheduler.context().getNodeAttributesManager();
      if (m == null || host == null) {
        return out;
      }
      for (org.apache.hadoop.yarn.api.records.NodeAttribute a : m.getAttributesForNode(host).keySet()) {
        String name = a.getAttributeKey().getAttributeName();
        String prefix = a.getAttributeKey().getAttributePrefix();
        out.put(name, a.getAttributeValue());
        if (prefix != null && !prefix.isEmpty()) {
          out.put(prefix + "/" + name, a.getAttributeValue());
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("Could not read node attributes of " + host + ": " + e);
    }
    return out;
  }

  /**
   * What a node's heartbeat tells the engine about the node: its labels, if
   * they changed at run time, and its measured use ({@link
   * ShepherdScheduler#UTILIZATION}).
   */
  void nodeHeartbeat(RMNode nm, FiCaSchedulerNode node, int idx) {
    if (nodeLabelsEnabled) {
      refreshNodeLabels(nm, node, idx);
    }
    ResourceUtilization u = containersUtilization
        ? nm.getAggregatedContainersUtilization() : nm.getNodeUtilization();
    if (u != null) {
      long[] used = new long[resourceTypes];
      used[0] = u.getPhysicalMemory();
      used[1] = (long) (u.getCPU() * 1000);
      engine.record(b -> b.nodeUtilization(idx, used));
    }
  }

  /**
   * Node labels changed at run time ({@code yarn rmadmin -replaceLabelsOnNode})
   * reach the engine on the node's next heartbeat: the node moves partition,
   * so an unlabelled ask no longer goes to a node that became labelled
   * (exclusive partitions) and a labelled ask finds it.
   *
   * <p>Why on the heartbeat and not on YARN's NODE_LABELS_UPDATE: the label
   * manager sends that event only for nodes the scheduler has activated in
   * it, and an activated node gives its partition a resource, after which
   * {@code FiCaSchedulerApp#getResourceUsageReport} (the app attempts the
   * shim inherits) casts the queue to a CapacityScheduler queue and fails.
   * The label manager answers {@code RMNode#getNodeLabels} either way.
   */
  private void refreshNodeLabels(RMNode nm, FiCaSchedulerNode node, int idx) {
    Set<String> labels = nm.getNodeLabels();
    if (labels == null ? node.getLabels().isEmpty() : labels.equals(node.getLabels())) {
      return; // the usual case: no copy on the heartbeat path
    }
    Set<String> now = labels == null ? new HashSet<>() : new HashSet<>(labels);
    String oldPartition = node.getPartition();
    node.updateLabels(now);
    // YARN's node tracker keeps a node list per partition and finds the node
    // there by its current partition when it is removed: both lists must
    // follow the move, or removing the node later fails (as the
    // CapacityScheduler's updateLabelsOnNode keeps them).
    repartition(oldPartition);
    repartition(node.getPartition());
    Map<String, String> attrs = nodeAttributes(nm.getHostName());
    engine.record(b -> b.nodeAttributesUpdated(idx, now, attrs));
    LOG.info("Node " + nm.getNodeID() + " labels now " + now);
  }

  /** Rebuilds the node tracker's list for one partition from the nodes' own partitions. */
  private void repartition(String partition) {
    Set<NodeId> members = new HashSet<>();
    for (FiCaSchedulerNode n : scheduler.getNodeTracker().getAllNodes()) {
      if (partition.equals(n.getPartition())) {
        members.add(n.getNodeID());
      }
    }
    scheduler.getNodeTracker().updateNodesPerPartition(partition, members);
  }

  private void addNode(RMNode rmNode) {
    synchronized (scheduler) {
      FiCaSchedulerNode node = new FiCaSchedulerNode(rmNode, usePortForNodeName);
      scheduler.getNodeTracker().addNode(node);
      int idx = ids.nodes.idOf(rmNode.getNodeID());
      long[] cap = toLongs(rmNode.getTotalCapability());
      Set<String> labels = rmNode.getNodeLabels();
      Map<String, String> attrs = nodeAttributes(rmNode.getHostName());
      engine.record(b -> b.nodeAdded(idx, node.getNodeName(), rmNode.getRackName(), cap, labels,
          attrs));
      scheduler.updateAvailableResourcesMetrics();
      LOG.info("Added node " + rmNode.getNodeAddress() + " clusterResource: "
          + scheduler.getClusterResource());
    }
  }

  private void removeNode(RMNode rmNode) {
    synchronized (scheduler) {
      FiCaSchedulerNode node = scheduler.getNodeTracker().getNode(rmNode.getNodeID());
      if (node == null) {
        return;
      }
      for (RMContainer c : node.getCopiedListOfRunningContainers()) {
        scheduler.completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(
            c.getContainerId(), SchedulerUtils.LOST_CONTAINER), RMContainerEventType.KILL);
      }
      scheduler.getNodeTracker().removeNode(rmNode.getNodeID());
      int idx = ids.nodes.find(rmNode.getNodeID());
      if (idx >= 0) {
        engine.record(b -> b.nodeRemoved(idx));
        ids.nodes.remove(rmNode.getNodeID());
      }
      scheduler.updateAvailableResourcesMetrics();
    }
  }

  // ---------------------------------------------------------------- apps

  /** {@link ShepherdScheduler#addApplication}, under the scheduler's lock. */
  void addApplication(ApplicationId appId, String queueName, String user,
      boolean isAppRecovering, boolean unmanagedAM) {
    RMContext rmContext = scheduler.context();
    ShepherdQueue queue = queues.leafQueue(queueName);
    if (queue == null) {
      String msg = "Application " + appId + " submitted by user " + user
          + " to unknown queue: " + queueName + " (Shepherd queues: " + queues.queuePaths() + ")";
      LOG.info(msg);
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppEvent(appId, RMAppEventType.APP_REJECTED, msg));
      return;
    }
    // Second line of defence, as the CapacityScheduler's addApplication: an
    // app that reached the scheduler without the submit-time check (a queue
    // ACL changed by -refreshQueues in between) is rejected with the ACL's
    // diagnostic. Recovered apps were accepted before and stay.
    String denied = isAppRecovering ? null
        : queues.submitDenied(UserGroupInformation.createRemoteUser(user), queueName, appId);
    if (denied != null) {
      LOG.info(denied);
      rmContext.getDispatcher().getEventHandler().handle(new RMAppEvent(appId,
          RMAppEventType.APP_REJECTED, new AccessControlException(denied).toString()));
      return;
    }
    RMApp rmApp = rmContext.getRMApps().get(appId);
    SchedulerApplication<FifoAppAttempt> app = new SchedulerApplication<>(queue, user,
        rmApp == null ? null : rmApp.getApplicationPriority(), unmanagedAM);
    scheduler.getSchedulerApplications().put(appId, app);
    queue.getMetrics().submitApp(user, unmanagedAM);
    int idx = ids.apps.idOf(appId);
    engine.record(b -> writeAppAdded(b, idx, appId, queue, user));
    LOG.info("Accepted application " + appId + " from user " + user + " in queue "
        + queue.getQueuePath());
    if (!isAppRecovering) {
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppEvent(appId, RMAppEventType.APP_ACCEPTED));
    }
  }

  /**
   * AppAdded as the engine sees it: name, type, tags, submit time and YARN
   * priority come from the RM's own record of the app.
   */
  void writeAppAdded(EventBatch b, int idx, ApplicationId appId, Queue queue, String user) {
    RMApp rmApp = scheduler.context().getRMApps().get(appId);
    String name = rmApp == null ? "" : rmApp.getName();
    String type = rmApp == null ? "" : rmApp.getApplicationType();
    Set<String> tags = rmApp == null ? null : rmApp.getApplicationTags();
    long submit = rmApp == null ? System.currentTimeMillis() : rmApp.getSubmitTime();
    int prio = rmApp == null || rmApp.getApplicationPriority() == null ? 0
        : rmApp.getApplicationPriority().getPriority();
    b.appAdded(idx, queue.getQueueName(), user, name, type, tags, submit, prio, appId.toString());
  }

  /** {@link ShepherdScheduler#addApplicationAttempt}, under the scheduler's lock. */
  void addApplicationAttempt(ApplicationAttemptId attemptId,
      boolean transferStateFromPreviousAttempt, boolean isAttemptRecovering) {
    SchedulerApplication<FifoAppAttempt> app =
        scheduler.getSchedulerApplications().get(attemptId.getApplicationId());
    if (app == null) {
      LOG.warn("Attempt " + attemptId + " added for an unknown application");
      return;
    }
    RMContext rmContext = scheduler.context();
    ShepherdQueue queue = (ShepherdQueue) app.getQueue();
    FifoAppAttempt attempt = FifoInternals.newAttempt(attemptId, app.getUser(), queue,
        queue.getAbstractUsersManager(), rmContext);
    if (transferStateFromPreviousAttempt) {
      attempt.transferStateFromPreviousAttempt(app.getCurrentAppAttempt());
    }
    app.setCurrentAppAttempt(attempt);
    queue.getMetrics().submitAppAttempt(app.getUser(), app.isUnmanagedAM());
    int idx = ids.apps.find(attemptId.getApplicationId());
    engine.record(b -> b.attemptAdded(idx, attemptId.getAttemptId()));
    LOG.info("Added application attempt " + attemptId + " from user " + app.getUser());
    if (!isAttemptRecovering) {
      rmContext.getDispatcher().getEventHandler()
          .handle(new RMAppAttemptEvent(attemptId, RMAppAttemptEventType.ATTEMPT_ADDED));
    }
  }

  /** AppMoved: the target queue's pipeline schedules the app from now on. */
  void appMoved(ApplicationId appId, ShepherdQueue target) {
    int idx = ids.apps.find(appId);
    if (idx >= 0) {
      engine.record(b -> b.appMoved(idx, target.getQueueName()));
    }
  }

  private void doneApplication(ApplicationId appId,
      org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState finalState) {
    synchronized (scheduler) {
      SchedulerApplication<FifoAppAttempt> app = scheduler.getSchedulerApplications().get(appId);
      if (app == null) {
        LOG.warn("Couldn't find application " + appId);
        return;
      }
      ((ActiveUsersManager) app.getQueue().getAbstractUsersManager())
          .deactivateApplication(app.getUser(), appId);
      app.stop(finalState);
      scheduler.getSchedulerApplications().remove(appId);
      int idx = ids.apps.find(appId);
      if (idx >= 0) {
        ids.placements.remove(idx);
        engine.record(b -> b.appRemoved(idx));
        ids.apps.remove(appId);
      }
    }
  }

  private void doneApplicationAttempt(ApplicationAttemptId attemptId,
      RMAppAttemptState finalState, boolean keepContainers) {
    synchronized (scheduler) {
      FifoAppAttempt attempt = scheduler.getApplicationAttempt(attemptId);
      if (attempt == null) {
        LOG.warn("Unknown application attempt " + attemptId + " has completed");
        return;
      }
      for (RMContainer c : attempt.getLiveContainers()) {
        if (keepContainers && c.getState().equals(RMContainerState.RUNNING)) {
          continue;
        }
        scheduler.completedContainer(c, SchedulerUtils.createAbnormalContainerStatus(
            c.getContainerId(), SchedulerUtils.COMPLETED_APPLICATION), RMContainerEventType.KILL);
      }
      attempt.stop(finalState);
      int idx = ids.apps.find(attemptId.getApplicationId());
      if (idx >= 0) {
        engine.record(b -> b.attemptRemoved(idx, attemptId.getAttemptId()));
      }
    }
  }

  // ---------------------------------------------------------------- containers

  /** ContainerLaunched, for a container the engine knows. */
  void containerLaunched(ContainerId containerId) {
    Long key = ids.keyOf(containerId);
    if (key != null) {
      long now = System.currentTimeMillis();
      engine.record(b -> b.containerLaunched(key, now));
    }
  }

  // ---------------------------------------------------------------- helpers

  long[] toLongs(Resource r) {
    return toLongs(r, resourceTypes);
  }

  /** A resource as the engine's vector: one value per resource type, in YARN's order. */
  static long[] toLongs(Resource r, int resourceTypes) {
    long[] out = new long[resourceTypes];
    for (int i = 0; i < out.length; i++) {
      out[i] = r.getResourceInformation(i).getValue();
    }
    return out;
  }
}
