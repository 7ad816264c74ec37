package org.shepherd.yarn;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationResourceUsageReport;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.AbstractYarnScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ActiveUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoAppAttempt;
import org.apache.hadoop.yarn.util.resource.ResourceCalculator;

/**
 * The pieces of YARN's scheduler classes the shim opens by reflection:
 * FifoAppAttempt's package-private constructor, AbstractYarnScheduler's
 * heartbeat bookkeeping called past FifoScheduler's override, and
 * SchedulerApplicationAttempt's usage report called past FiCaSchedulerApp's. Separate from {@link ShepherdScheduler} so that
 * everything that depends on YARN's internals rather than its API sits in
 * one place, to check when the Hadoop version changes.
 */
final class FifoInternals {
  private static final MethodHandle BASE_NODE_UPDATE = baseNodeUpdate();
  private static final Constructor<FifoAppAttempt> NEW_ATTEMPT = attemptConstructor();
  private static final MethodHandle BASE_USAGE_REPORT = baseUsageReport();

  private FifoInternals() {
  }

  /**
   * Nothing: calling it loads this class, and so opens both members. {@link
   * ShepherdScheduler} calls it when it loads, so a Hadoop whose internals
   * moved fails the RM at start, not at the first attempt or heartbeat.
   */
  static void open() {
  }

  static FifoAppAttempt newAttempt(ApplicationAttemptId id, String user, Queue queue,
      ActiveUsersManager users, RMContext ctx) {
    try {
      return NEW_ATTEMPT.newInstance(id, user, queue, users, ctx);
    } catch (ReflectiveOperationException e) {
      throw new YarnRuntimeException("Shepherd cannot create a FifoAppAttempt", e);
    }
  }

  /** AbstractYarnScheduler.nodeUpdate on {@code scheduler}, non-virtually. */
  static void baseNodeUpdate(ShepherdScheduler scheduler, RMNode nm) {
    try {
      BASE_NODE_UPDATE.invoke(scheduler, nm);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new YarnRuntimeException(t);
    }
  }

  /**
   * The attempt's usage report as SchedulerApplicationAttempt builds it
   * (containers, resources, memory- and vcore-seconds), with the share of
   * the cluster it uses. FiCaSchedulerApp's override, which FifoAppAttempt
   * inherits, adds its queue's share by casting the queue to a
   * CapacityScheduler queue; under Shepherd (and the FifoScheduler) that
   * throws once the node-label manager gives the app's partition a resource,
   * and the RM then fails the AM's unregistration (YARN's own
   * TestDecommissioningNodesWatcher). The queue's share stays 0 here.
   */
  static ApplicationResourceUsageReport usageReport(FifoAppAttempt attempt, Resource cluster,
      ResourceCalculator calc) {
    ApplicationResourceUsageReport r;
    try {
      r = (ApplicationResourceUsageReport) BASE_USAGE_REPORT.invoke(attempt);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new YarnRuntimeException(t);
    }
    if (r != null && !calc.isInvalidDivisor(cluster)) {
      r.setClusterUsagePercentage(
          calc.divide(cluster, attempt.getCurrentConsumption(), cluster) * 100);
    }
    return r;
  }

  /** SchedulerApplicationAttempt.getResourceUsageReport, non-virtually. */
  private static MethodHandle baseUsageReport() {
    try {
      MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(
          SchedulerApplicationAttempt.class, MethodHandles.lookup());
      return lookup.findSpecial(SchedulerApplicationAttempt.class, "getResourceUsageReport",
          MethodType.methodType(ApplicationResourceUsageReport.class),
          SchedulerApplicationAttempt.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * FifoAppAttempt's constructor is package-private; it is the attempt type
   * FifoScheduler's typed maps hold, so it is opened once here.
   */
  private static Constructor<FifoAppAttempt> attemptConstructor() {
    try {
      Constructor<FifoAppAttempt> c = FifoAppAttempt.class.getDeclaredConstructor(
          ApplicationAttemptId.class, String.class, Queue.class, ActiveUsersManager.class,
          RMContext.class);
      c.setAccessible(true);
      return c;
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * AbstractYarnScheduler.nodeUpdate does YARN's heartbeat bookkeeping;
   * FifoScheduler.nodeUpdate adds its own FIFO assignment on top. Shepherd
   * needs the first without the second, so it calls the grandparent's method
   * non-virtually.
   */
  private static MethodHandle baseNodeUpdate() {
    try {
      MethodHandles.Lookup lookup =
          MethodHandles.privateLookupIn(AbstractYarnScheduler.class, MethodHandles.lookup());
      return lookup.findSpecial(AbstractYarnScheduler.class, "nodeUpdate",
          MethodType.methodType(void.class, RMNode.class), AbstractYarnScheduler.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }
}
