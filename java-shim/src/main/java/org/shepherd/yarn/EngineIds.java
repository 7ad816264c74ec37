package org.shepherd.yarn;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;

/**
 * The shim's one table between YARN's ids and the engine's: dense indices
 * for nodes and applications, the engine's key for every container the
 * engine books, and the placement tags of SchedulingRequest asks. One
 * instance per scheduler, shared by the {@link EventTranslator} (which adds
 * and removes nodes and apps), the {@link AskTranslator}, the
 * {@link DecisionExecutor} (which binds and unbinds containers) and
 * {@link Recovery}; every map is concurrent, since asks arrive on IPC
 * threads and events on the dispatcher.
 */
final class EngineIds {
  /** NodeId ↔ the engine's node index. */
  final IdMap<NodeId> nodes = new IdMap<>();
  /** ApplicationId ↔ the engine's app index. */
  final IdMap<ApplicationId> apps = new IdMap<>();
  /**
   * Engine app index → scheduler key → {allocation tags, constraint text}
   * of the asks that came as SchedulingRequests, re-sent with every update
   * of that key's ask; dropped with the app.
   */
  final Map<Integer, Map<SchedulerRequestKey, String[]>> placements = new ConcurrentHashMap<>();
  private final Map<ContainerId, Long> keyOfContainer = new ConcurrentHashMap<>();
  private final Map<Long, ContainerId> containerOfKey = new ConcurrentHashMap<>();

  /** Record that the engine knows container {@code id} by {@code key}. */
  void bindContainer(ContainerId id, long key) {
    keyOfContainer.put(id, key);
    containerOfKey.put(key, id);
  }

  /** Forget container {@code id}; returns the engine's key it had, or null. */
  Long unbindContainer(ContainerId id) {
    Long key = keyOfContainer.remove(id);
    if (key != null) {
      containerOfKey.remove(key);
    }
    return key;
  }

  /** The engine's key of container {@code id}, or null if the engine does not book it. */
  Long keyOf(ContainerId id) {
    return keyOfContainer.get(id);
  }

  /** The container the engine knows by {@code key}, or null. */
  ContainerId containerOf(long key) {
    return containerOfKey.get(key);
  }

  /** Entries per map, for checks that nothing is left behind (the soak test). */
  Map<String, Integer> sizes() {
    Map<String, Integer> out = new LinkedHashMap<>();
    out.put("nodes", nodes.size());
    out.put("apps", apps.size());
    out.put("containers", keyOfContainer.size());
    out.put("containerKeys", containerOfKey.size());
    out.put("placements", placements.size());
    return out;
  }
}
