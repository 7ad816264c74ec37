package org.shepherd.yarn;

import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.thirdparty.com.google.common.util.concurrent.SettableFuture;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationResourceUsageReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceInformation;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.ipc.RPCUtil;
import org.apache.hadoop.yarn.server.api.protocolrecords.NMContainerStatus;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Allocation;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.common.fica.FiCaSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler;
import org.apache.hadoop.yarn.util.resource.DominantResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.apache.hadoop.yarn.util.resource.Resources;
import org.shepherd.yarn.engine.NativeEngine;
import org.shepherd.yarn.engine.ShepherdEngineException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shepherd's YARN scheduler: set {@code yarn.resourcemanager.scheduler.class}
 * to {@code org.shepherd.yarn.ShepherdScheduler}.
 *
 * <p>This class translates and executes; it decides nothing. Every scheduler
 * event becomes an engine event in a batch; every node heartbeat is one JNI
 * crossing that flushes the batch and returns the Rust engine's allocations
 * for that node, which are carried out with YARN's own machinery
 * ({@code FifoAppAttempt.allocate}, {@code FiCaSchedulerNode.allocateContainer})
 * exactly as YARN's FifoScheduler does.
 *
 * <p>It extends {@link FifoScheduler} because the RM web UI scheduler page and
 * {@code GET /ws/v1/cluster/scheduler} only render CapacityScheduler,
 * FairScheduler and FifoScheduler instances; every FifoScheduler behaviour
 * that decides anything is overridden here.
 *
 * <p>This class is what YARN calls and what holds the pieces together (the
 * id maps, the engine link, the heartbeat); the work is done by
 * package-private collaborators it owns: {@link EventTranslator} and
 * {@link AskTranslator} (YARN's events and asks as engine events),
 * {@link DecisionExecutor} (the engine's decisions carried out),
 * {@link Recovery} (RM restart and engine rebuild), {@link QueueTree}
 * (queues and ACLs), {@link AppPriorities} and {@link FifoInternals} (YARN
 * internals opened by reflection).
 */
public class ShepherdScheduler extends FifoScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(ShepherdScheduler.class);

  public static final String PREFIX = "yarn.scheduler.shepherd.";
  /** Path of Shepherd's TOML config; unset means all defaults. */
  public static final String CONFIG_FILE = PREFIX + "config-file";
  /** Absolute path of libshepherd.so; unset means java.library.path. */
  public static final String NATIVE_LIBRARY = PREFIX + "native-library";
  /** How long to run on the safe FIFO before rebuilding a failed engine. */
  public static final String ENGINE_RETRY_MS = PREFIX + "engine-retry-ms";
  public static final long DEFAULT_ENGINE_RETRY_MS = 30_000L;
  /**
   * Records of the engine's activity log (finished containers and apps,
   * heartbeats) to keep for calibrating the simulator; 0 (default) = none.
   */
  public static final String ACTIVITY_LOG = PREFIX + "activity-log";
  /**
   * Which measured use of a NodeManager the engine gets (ROSE reads it):
   * {@code node} (default), the machine; {@code containers}, the sum of the
   * NM's containers, for NMs that share a machine (docs/configuration.md).
   */
  public static final String UTILIZATION = PREFIX + "utilization";
  /**
   * Asynchronous scheduling: every this many ms a scheduling round places
   * outstanding asks on nodes with room, between their heartbeats (as the
   * CapacityScheduler's {@code schedule-asynchronously}); 0 (default) =
   * only when a node heartbeats, as before.
   */
  public static final String ASYNC_INTERVAL_MS = PREFIX + "async-scheduling.interval-ms";
  /**
   * Most nodes one round visits (0 = all): bounds how long a round holds the
   * scheduler's lock; the next round goes on where it stopped.
   */
  public static final String ASYNC_MAX_NODES = PREFIX + "async-scheduling.max-nodes";
  public static final int DEFAULT_ASYNC_MAX_NODES = 100;
  /**
   * Whether a heartbeat also runs the engine's pass on its node while rounds
   * run (default true); false = only rounds allocate, as the
   * CapacityScheduler under {@code schedule-asynchronously}. Needs
   * {@link #ASYNC_INTERVAL_MS} &gt; 0 (docs/configuration.md).
   */
  public static final String ASYNC_HEARTBEATS_ALLOCATE = PREFIX + "async-scheduling.heartbeats-allocate";

  /** Keys for containers the shim itself placed or recovered (wire.rs). */
  private static final long SHIM_KEY_BIT = 1L << 62;

  static {
    FifoInternals.open();
  }

  private final ResourceCalculator calculator = new DominantResourceCalculator();
  /** YARN ids ↔ the engine's, shared with the collaborators. */
  private final EngineIds ids = new EngineIds();
  /**
   * Speculative (over-subscribed, ROSE) containers still running: YARN's
   * node view counts them, the engine's allocated view does not.
   */
  private final Set<ContainerId> speculative = ConcurrentHashMap.newKeySet();
  private final AtomicLong nextShimKey = new AtomicLong(1);
  private final QueueTree queues = new QueueTree(this);
  private final Resource usedResource = Resource.newInstance(0, 0);
  private final ShepherdMetrics shimMetrics = ShepherdMetrics.create();
  /** Engine failures already added to {@code shimMetrics.engineFailures}. */
  private long publishedFailures;
  private volatile EngineLink engine;
  // The collaborators (see the class comment), built once the engine is.
  private EventTranslator events;
  private AskTranslator asks;
  private DecisionExecutor executor;
  private Recovery recovery;
  private AppPriorities priorities;
  /** The engine's and policy's gauges in metrics2 (RM /jmx, /prom). */
  private ShepherdPolicyMetrics policyMetrics;
  private String[] resourceNames;
  /** Path of Shepherd's config file ({@link #CONFIG_FILE}); empty = defaults. */
  private String configPath = "";
  /** The asynchronous scheduling thread, if {@link #ASYNC_INTERVAL_MS} &gt; 0. */
  private AsyncScheduling async;
  private int asyncMaxNodes;
  /** {@link #ASYNC_HEARTBEATS_ALLOCATE}. */
  private boolean heartbeatsAllocate = true;

  public ShepherdScheduler() {
    super();
  }

  // ---------------------------------------------------------------- lifecycle

  @Override
  public void serviceInit(Configuration conf) throws Exception {
    super.serviceInit(conf);
    boolean usePortForNodeName = conf.getBoolean(
        YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_USE_PORT_FOR_NODE_NAME);
    boolean containersUtilization = EventTranslator.containersUtilization(conf);
    boolean nodeLabelsEnabled = YarnConfiguration.areNodeLabelsEnabled(conf);
    long asyncIntervalMs = AsyncScheduling.nonNegative(conf, ASYNC_INTERVAL_MS, 0);
    asyncMaxNodes =
        (int) AsyncScheduling.nonNegative(conf, ASYNC_MAX_NODES, DEFAULT_ASYNC_MAX_NODES);
    async = asyncIntervalMs > 0 ? new AsyncScheduling(this, asyncIntervalMs) : null;
    heartbeatsAllocate = AsyncScheduling.heartbeatsAllocate(conf, asyncIntervalMs);
    ResourceInformation[] types = ResourceUtils.getResourceTypesArray();
    resourceNames = new String[types.length];
    for (int i = 0; i < types.length; i++) {
      resourceNames[i] = types[i].getName();
    }
    try {
      NativeEngine.load(NATIVE_LIBRARY, conf.getTrimmed(NATIVE_LIBRARY));
      configPath = conf.getTrimmed(CONFIG_FILE, "");
      engine = new EngineLink(EngineLink.readConfig(configPath), resourceNames,
          conf.getLong(ENGINE_RETRY_MS, DEFAULT_ENGINE_RETRY_MS));
    } catch (ShepherdEngineException | YarnRuntimeException e) {
      throw new YarnRuntimeException("Shepherd scheduler cannot start: " + e.getMessage(), e);
    }
    int n = resourceNames.length;
    asks = new AskTranslator(engine, ids, n);
    events = new EventTranslator(this, engine, queues, ids, n, usePortForNodeName,
        containersUtilization, nodeLabelsEnabled);
    executor = new DecisionExecutor(this, engine, asks, ids, speculative, shimMetrics, n);
    recovery = new Recovery(this, engine, events, asks, ids, shimMetrics);
    priorities = new AppPriorities(this, engine, ids);
    queues.build(conf, engine.stateJson());
    engine.enableActivityLog(conf.getInt(ACTIVITY_LOG, 0));
    policyMetrics = ShepherdPolicyMetrics.register(() -> engine);
    LOG.info("Shepherd scheduler started: native engine " + NativeEngine.version()
        + ", resource types " + String.join(",", resourceNames) + ", queues "
        + queues.leafNames());
  }

  @Override
  public void serviceStart() throws Exception {
    super.serviceStart();
    if (async != null) {
      async.start();
      LOG.info("Shepherd asynchronous scheduling: a round every "
          + getConfig().get(ASYNC_INTERVAL_MS) + " ms, "
          + (asyncMaxNodes == 0 ? "every node with room" : "at most " + asyncMaxNodes + " nodes") + " each"
          + (heartbeatsAllocate ? "" : "; heartbeats only report (only rounds allocate)"));
    }
  }

  @Override
  public void serviceStop() throws Exception {
    if (async != null) {
      async.stop();
    }
    super.serviceStop();
    if (policyMetrics != null) {
      policyMetrics.unregister();
      policyMetrics = null;
    }
    EngineLink e = engine;
    if (e != null) {
      e.close();
    }
  }

  /**
   * {@code yarn rmadmin -refreshQueues}: re-read Shepherd's config and apply
   * it to the live engine in place. New queues appear, existing ones take
   * their new capacities, weights, ACLs and policy (pipeline); running
   * containers, outstanding asks and what the plugins learned (estimator
   * history, DRESS's reserve) stay. A queue can be dropped only when no
   * application uses it. A bad or unreadable config is refused with the
   * key at fault, and the old one stays in force.
   */
  @Override
  public synchronized void reinitialize(Configuration conf, RMContext rmContext)
      throws IOException {
    super.reinitialize(conf, rmContext);
    String text;
    String next;
    try {
      // -refreshQueues hands over a freshly loaded yarn-site.xml; the file
      // it names is re-read (the one named at start if it names none).
      configPath = conf.getTrimmed(CONFIG_FILE, configPath);
      text = EngineLink.readConfig(configPath);
      next = engine.probe(text);
    } catch (ShepherdEngineException | YarnRuntimeException e) {
      throw new IOException("Shepherd: refused new config: " + e.getMessage(), e);
    }
    queues.checkDroppable(QueueTree.queueNames(next));
    try {
      engine.reconfigure(text, System.currentTimeMillis());
    } catch (ShepherdEngineException e) {
      throw new IOException("Shepherd: refused new config: " + e.getMessage(), e);
    }
    queues.build(conf, next);
    LOG.info("Shepherd config applied in place; queues " + queues.leafNames() + ", pipelines "
        + QueueTree.pipelines(engine.stateJson()));
  }

  // ---------------------------------------------------------------- events

  /** Every scheduler event, translated by {@link EventTranslator}. */
  @Override
  public void handle(SchedulerEvent event) {
    events.handle(event);
  }

  /**
   * The queue submit ACL, checked where and as YARN checks a
   * CapacityScheduler's: RMAppManager#createAndPopulateNewRMApp checks the
   * queue's SUBMIT_APPLICATIONS / ADMINISTER_QUEUE ACL only for the
   * CapacityScheduler and FairScheduler (by instanceof), right after it asks
   * the scheduler for the app's priority, for every new (not recovering) app.
   * This is that call: a refusal here fails ClientRMService#submitApplication
   * with the CapacityScheduler's exception and message, before the RM
   * creates the app. The priority follows {@link AppPriorities}.
   */
  @Override
  public Priority checkAndGetApplicationPriority(Priority priorityRequestedByApp,
      UserGroupInformation user, String queuePath, ApplicationId applicationId)
      throws YarnException {
    String denied = queues.submitDenied(user, queuePath, applicationId);
    if (denied != null) {
      LOG.info(denied);
      throw RPCUtil.getRemoteException(new AccessControlException(denied));
    }
    return priorities.effective(priorityRequestedByApp);
  }

  /** An app's usage report without the CapacityScheduler cast ({@link FifoInternals#usageReport}). */
  @Override
  public ApplicationResourceUsageReport getAppResourceUsageReport(ApplicationAttemptId id) {
    FifoAppAttempt attempt = getApplicationAttempt(id);
    return attempt == null ? null
        : FifoInternals.usageReport(attempt, getClusterResource(), calculator);
  }

  /** {@code yarn application -updatePriority}: see {@link AppPriorities}. */
  @Override
  public synchronized Priority updateApplicationPriority(Priority newPriority,
      ApplicationId applicationId, SettableFuture<Object> future, UserGroupInformation user)
      throws YarnException {
    return priorities.update(newPriority, applicationId, future);
  }

  /** Into a Shepherd leaf queue whose ACL admits the user ({@link EventTranslator}). */
  @Override
  public synchronized void addApplication(ApplicationId appId, String queueName, String user,
      boolean isAppRecovering, boolean unmanagedAM) {
    events.addApplication(appId, queueName, user, isAppRecovering, unmanagedAM);
  }

  @Override
  public synchronized void addApplicationAttempt(ApplicationAttemptId attemptId,
      boolean transferStateFromPreviousAttempt, boolean isAttemptRecovering) {
    events.addApplicationAttempt(attemptId, transferStateFromPreviousAttempt,
        isAttemptRecovering);
  }

  /**
   * {@code yarn application -movetoqueue}: YARN's RMAppManager asks this
   * first, before it records the new queue in the RM state store. As the
   * CapacityScheduler checks: the app is known, the target is one of
   * Shepherd's leaf queues, and the target's submit ACL admits the app's
   * user. As there too, the app's usage may exceed the target's maximum
   * capacity (the FairScheduler refuses that); the engine holds only new
   * containers to it.
   */
  @Override
  public synchronized void preValidateMoveApplication(ApplicationId appId, String newQueue)
      throws YarnException {
    queues.moveTarget(appId, newQueue);
  }

  /**
   * The move: YARN's queue metrics (live containers, pending asks, active
   * users) through the attempt's own {@code move}, Shepherd's queue usage,
   * and the engine's AppMoved, after which the target queue's pipeline
   * schedules the app. Returns the queue's path ({@code root.<leaf>}), as
   * the RM records a submitted app's queue.
   */
  @Override
  public synchronized String moveApplication(ApplicationId appId, String newQueue)
      throws YarnException {
    ShepherdQueue target = queues.moveTarget(appId, newQueue);
    SchedulerApplication<FifoAppAttempt> app = applications.get(appId);
    ShepherdQueue source = (ShepherdQueue) app.getQueue();
    if (target == source) {
      return target.getQueuePath();
    }
    QueueTree.move(app, source, target);
    events.appMoved(appId, target);
    LOG.info("Moved application " + appId + " from queue " + source.getQueuePath() + " to "
        + target.getQueuePath());
    return target.getQueuePath();
  }

  // ---------------------------------------------------------------- asks

  @Override
  public Allocation allocate(ApplicationAttemptId attemptId, List<ResourceRequest> ask,
      List<SchedulingRequest> schedulingRequests, List<ContainerId> release,
      List<String> blacklistAdditions, List<String> blacklistRemovals,
      ContainerUpdates updateRequests) {
    FifoAppAttempt attempt = getApplicationAttempt(attemptId);
    if (attempt == null || !attempt.getApplicationAttemptId().equals(attemptId)) {
      LOG.error("allocate called for a removed or stale attempt " + attemptId);
      return EMPTY_ALLOCATION;
    }
    ask = asks.withSchedulingRequests(attemptId, ask, schedulingRequests);
    normalizeResourceRequests(ask);
    releaseContainers(release, attempt);
    synchronized (attempt) {
      if (attempt.isStopped()) {
        return EMPTY_ALLOCATION;
      }
      if (!ask.isEmpty()) {
        attempt.updateResourceRequests(ask);
        asks.recordAsks(attempt, ask);
      }
      attempt.updateBlacklist(blacklistAdditions, blacklistRemovals);
      Resource headroom = headroom(attempt);
      attempt.setHeadroom(headroom);
      // FiCaSchedulerApp's own assembly: new containers, containers carried
      // over from a previous attempt, containers marked for preemption.
      return attempt.getAllocation(calculator, getClusterResource(),
          getMinimumResourceCapability());
    }
  }

  /**
   * With {@code yarn.resourcemanager.placement-constraints.handler = scheduler}
   * the RM hands SchedulingRequests to the scheduler only if it says it
   * handles them; Shepherd's engine matches them (the `constraints` filter).
   */
  @Override
  public boolean placementConstraintEnabled() {
    return true;
  }

  private Resource headroom(FifoAppAttempt attempt) {
    Resource cluster = getClusterResource();
    Resource free;
    synchronized (usedResource) {
      free = Resources.subtract(cluster, usedResource);
    }
    ShepherdQueue q = (ShepherdQueue) attempt.getQueue();
    Resource queueRoom = Resources.subtract(Resources.multiply(cluster, q.getMaxCapacity()),
        q.getUsed());
    return Resources.componentwiseMax(Resources.none(),
        Resources.componentwiseMin(free, queueRoom));
  }

  // ---------------------------------------------------------------- heartbeat

  /**
   * One NodeManager heartbeat: YARN's own bookkeeping (completed and launched
   * containers, utilization), then one crossing into the engine, then its
   * decisions carried out; if the engine fails, the safe FIFO places instead.
   */
  @Override
  protected synchronized void nodeUpdate(RMNode nm) {
    FifoInternals.baseNodeUpdate(this, nm);
    FiCaSchedulerNode node = (FiCaSchedulerNode) getNode(nm.getNodeID());
    int idx = ids.nodes.find(nm.getNodeID());
    if (node == null || idx < 0) {
      return;
    }
    events.nodeHeartbeat(nm, node, idx);
    executor.nodeReported(node);
    long now = System.currentTimeMillis();
    if (engine.dueForRebuild(now)) {
      engine.rebuild(now, recovery::replayState);
      shimMetrics.engineRebuilds.incr();
    }
    boolean mayAllocate = mayAllocate();
    long started = System.nanoTime();
    long[] decisions = engine.step(now, mayAllocate && heartbeatsAllocate ? idx : -1);
    shimMetrics.crossingNanos.add(System.nanoTime() - started);
    publishFailures();
    // A heartbeat without decisions is one the fallback schedules, whether
    // the engine failed now or is still degraded from an earlier failure.
    if (decisions == null) {
      shimMetrics.fallbackHeartbeats.incr();
      if (mayAllocate) {
        int placed = executor.safeFifo(node);
        shimMetrics.fallbackAllocations.incr(placed);
      }
    } else {
      executor.execute(decisions);
    }
  }

  /**
   * One scheduling round between heartbeats (the {@link AsyncScheduling}
   * thread): the engine places outstanding asks on nodes with room, and the
   * decisions are carried out under the scheduler's lock exactly as a
   * heartbeat's are — YARN's node re-checks each placement, and one it
   * refuses goes back to the engine as rejected. While the engine is
   * failed or degraded a round does nothing (heartbeats fall back).
   */
  synchronized void asyncRound() {
    if (!mayAllocate()) {
      return;
    }
    long[] decisions = engine.round(System.currentTimeMillis(), asyncMaxNodes);
    publishFailures();
    if (decisions == null) {
      return;
    }
    shimMetrics.asyncRounds.incr();
    if (decisions.length > 0) {
      shimMetrics.asyncAllocations.incr(executor.execute(decisions));
    }
  }

  /**
   * Whether containers may be allocated now: after a work-preserving
   * restart, not until the RM says the NodeManagers have re-registered.
   */
  private boolean mayAllocate() {
    return !(rmContext.isWorkPreservingRecoveryEnabled()
        && !rmContext.isSchedulerReadyForAllocatingContainers());
  }

  /**
   * The link counts failures of every engine call (steps, rounds, rebuilds,
   * refreshes); publish what it counted since the last time.
   */
  private void publishFailures() {
    long failures = engine.failures();
    if (failures > publishedFailures) {
      shimMetrics.engineFailures.incr(failures - publishedFailures);
      publishedFailures = failures;
    }
  }

  // ---------------------------------------------------------------- containers

  /** A fresh key for a container the shim itself placed (safe FIFO) or recovered. */
  long shimKey() {
    return SHIM_KEY_BIT | nextShimKey.getAndIncrement();
  }

  @Override
  protected void containerLaunchedOnNode(ContainerId containerId,
      org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode node) {
    super.containerLaunchedOnNode(containerId, node);
    events.containerLaunched(containerId);
  }

  /**
   * When a container ends before its AM pulled it (allocated, not yet
   * acquired — e.g. ROSE evicts a speculative container placed a moment
   * ago, or its node is lost), YARN gives the application its ask back
   * behind the AM's back, in {@code AbstractYarnScheduler.completedContainer}
   * after {@link #completedContainerInternal}. Send the engine that key's
   * ask again, or it would never place the container YARN still owes.
   */
  @Override
  public void completedContainer(RMContainer rmContainer, ContainerStatus status,
      RMContainerEventType event) {
    boolean askComesBack = rmContainer != null && rmContainer.getContainerRequest() != null;
    super.completedContainer(rmContainer, status, event);
    if (!askComesBack) {
      return;
    }
    FifoAppAttempt attempt = getCurrentAttemptForContainer(rmContainer.getContainerId());
    if (attempt != null) {
      asks.recordAsks(attempt, Collections.singleton(rmContainer.getAllocatedSchedulerKey()));
    }
  }

  /** YARN's books and the engine's give the container up ({@link DecisionExecutor}). */
  @Override
  protected synchronized void completedContainerInternal(RMContainer rmContainer,
      ContainerStatus status, RMContainerEventType event) {
    executor.release(rmContainer, status, event);
  }

  /**
   * Work-preserving RM restart: YARN rebuilds the containers NodeManagers
   * report; the engine learns each as a recovered container ({@link Recovery}).
   */
  @Override
  public synchronized void recoverContainersOnNode(List<NMContainerStatus> reports, RMNode nm) {
    super.recoverContainersOnNode(reports, nm);
    recovery.recoverContainersOnNode(nm);
  }

  // ---------------------------------------------------------------- queries

  @Override
  public QueueInfo getQueueInfo(String queueName, boolean includeChildQueues,
      boolean recursive) {
    return queues.queueInfo(queueName, includeChildQueues, recursive);
  }

  @Override
  public List<QueueUserACLInfo> getQueueUserAclInfo() {
    return queues.queueUserAclInfo();
  }

  @Override
  public synchronized boolean checkAccess(UserGroupInformation callerUGI, QueueACL acl,
      String queueName) {
    return queues.checkAccess(callerUGI, acl, queueName);
  }

  @Override
  public synchronized List<ApplicationAttemptId> getAppsInQueue(String queueName) {
    return queues.appsInQueue(queueName);
  }

  @Override
  public QueueMetrics getRootQueueMetrics() {
    return queues.root().getMetrics();
  }

  @Override
  public ResourceCalculator getResourceCalculator() {
    return calculator;
  }

  @Override
  public Resource getUsedResource() {
    synchronized (usedResource) {
      return Resources.clone(usedResource);
    }
  }

  /**
   * Book a container's resources as used ({@code add}) or released, and
   * refresh the root queue's availableMB at once: YARN has just moved
   * allocatedMB (attempt.allocate / containerCompleted), and the RM reports
   * totalMB as availableMB + allocatedMB, so the two must not drift apart
   * for a whole heartbeat (SidecarTest on CI, 2026-11-25, read totalMB a
   * container high; FederationTest once a container short).
   */
  void changeUsed(Resource r, boolean add) {
    synchronized (usedResource) {
      if (add) {
        Resources.addTo(usedResource, r);
      } else {
        Resources.subtractFrom(usedResource, r);
      }
    }
    updateAvailableResourcesMetrics();
  }

  void updateAvailableResourcesMetrics() {
    queues.root().getMetrics().setAvailableResourcesToQueue(
        Resources.subtract(getClusterResource(), getUsedResource()));
  }

  /** The RM's context, for the collaborators (YARN keeps it in a protected field). */
  RMContext context() {
    return rmContext;
  }

  // ---------------------------------------------------------------- metrics

  /** Allocations the engine decided and the shim carried out. */
  public long getEngineAllocations() {
    return shimMetrics.engineAllocations.value();
  }

  /** Allocations made by the safe FIFO while the engine was unavailable. */
  public long getFallbackAllocations() {
    return shimMetrics.fallbackAllocations.value();
  }

  /** Containers recovered from NodeManagers after a work-preserving restart. */
  public long getRecoveredContainers() {
    return shimMetrics.recoveredContainers.value();
  }

  public long getEngineFailures() {
    return engine.failures();
  }

  /** Engines rebuilt (and the cluster state replayed) after a failure. */
  public long getEngineRebuilds() {
    return shimMetrics.engineRebuilds.value();
  }

  /** Containers placed by scheduling rounds between heartbeats. */
  public long getAsyncAllocations() {
    return shimMetrics.asyncAllocations.value();
  }

  /** NodeManager heartbeats the safe FIFO scheduled instead of the engine. */
  public long getFallbackHeartbeats() {
    return shimMetrics.fallbackHeartbeats.value();
  }

  /** The engine's own counters; see {@link NativeEngine#counters}. */
  public long[] getEngineCounters() {
    return engine.counters();
  }

  /**
   * Entries in the shim's id tables (nodes, apps, containers, placement
   * tags): what a drained cluster must bring back to zero apart from nodes.
   */
  public Map<String, Integer> getIdTableSizes() {
    return ids.sizes();
  }

  /**
   * The value of the engine gauge named {@code name} (the engine's gauges,
   * {@link NativeEngine#gauges}, also published through metrics2), or NaN.
   */
  public double getEngineGauge(String name) {
    return ShepherdPolicyMetrics.valueOf(engine.gauges(), name);
  }

  /**
   * The engine's activity log (finished containers and apps, heartbeats) as
   * JSON, or {@code null} unless {@link #ACTIVITY_LOG} is set.
   */
  public String getEngineActivityJson() {
    return engine.activityJson();
  }

  /** JSON view of the engine's state, including the policy's. */
  public String getEngineStateJson() {
    return engine.stateJson();
  }
}
