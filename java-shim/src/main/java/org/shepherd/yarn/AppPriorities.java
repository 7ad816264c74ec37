package org.shepherd.yarn;

import org.apache.hadoop.thirdparty.com.google.common.util.concurrent.SettableFuture;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.records.ApplicationStateData;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoAppAttempt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * YARN application priorities under Shepherd, with the CapacityScheduler's
 * rules: an app submitted without a priority gets 0 (Shepherd's queues
 * have no default priority of their own), and no app's priority exceeds
 * the cluster's maximum ({@code yarn.cluster.max-application-priority}).
 * An update ({@code yarn application -updatePriority}) is written to the
 * RM state store, so it survives a restart, and reaches the engine as an
 * {@code AppPriorityChanged} event: FIFO and every order that breaks ties
 * by priority see it from the next pass. Priority ACLs
 * ({@code acl_application_max_priority}) are a CapacityScheduler queue
 * setting Shepherd does not read.
 */
final class AppPriorities {
  /** Logs under the scheduler's name, as the rest of the shim. */
  private static final Logger LOG = LoggerFactory.getLogger(ShepherdScheduler.class);

  private final ShepherdScheduler scheduler;
  private final EngineLink engine;
  private final EngineIds ids;

  AppPriorities(ShepherdScheduler scheduler, EngineLink engine, EngineIds ids) {
    this.scheduler = scheduler;
    this.engine = engine;
    this.ids = ids;
  }

  /** What an app asking for {@code requested} (null: nothing) is given. */
  Priority effective(Priority requested) {
    int max = scheduler.getMaxClusterLevelAppPriority().getPriority();
    int p = requested == null ? 0 : requested.getPriority();
    return Priority.newInstance(Math.min(p, max));
  }

  /**
   * Change a submitted app's priority; {@code future} learns when the
   * state store has the change (at once when nothing changes).
   */
  Priority update(Priority requested, ApplicationId appId, SettableFuture<Object> future)
      throws YarnException {
    SchedulerApplication<FifoAppAttempt> app = scheduler.getSchedulerApplications().get(appId);
    RMContext rmContext = scheduler.context();
    RMApp rmApp = rmContext.getRMApps().get(appId);
    if (app == null || rmApp == null) {
      throw new YarnException("Application '" + appId
          + "' is not present, hence could not change priority.");
    }
    Priority p = effective(requested);
    if (p.equals(app.getPriority())) {
      future.set(null);
      return p;
    }
    rmApp.getApplicationSubmissionContext().setPriority(p);
    ApplicationStateData state = ApplicationStateData.newInstance(rmApp.getSubmitTime(),
        rmApp.getStartTime(), rmApp.getApplicationSubmissionContext(), rmApp.getUser(),
        rmApp.getCallerContext());
    state.setApplicationTimeouts(rmApp.getApplicationTimeouts());
    rmContext.getStateStore().updateApplicationStateSynchronously(state, false, future);
    app.setPriority(p);
    int idx = ids.apps.find(appId);
    if (idx >= 0) {
      engine.record(b -> b.appPriorityChanged(idx, p.getPriority()));
    }
    LOG.info("Priority of " + appId + " in queue " + rmApp.getQueue() + " is now "
        + p.getPriority());
    return p;
  }
}
