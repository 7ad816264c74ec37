package org.shepherd.yarn;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ExecutionType;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.SchedulingRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoAppAttempt;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.shepherd.yarn.engine.EventBatch;

/**
 * An AM's asks as the engine sees them: every scheduler key an
 * {@code allocate} touched is sent as its current ask (the ANY request's
 * count, size, relax-locality, execution type and label, with host and rack
 * counts), and SchedulingRequests become the ResourceRequests YARN books
 * them under, their allocation tags and placement constraint kept to go
 * with every update of that key's ask. Separate from
 * {@link EventTranslator}, which translates the scheduler's other events,
 * because asks are the one event stream that arrives on the AMs' own
 * threads ({@code allocate}) rather than the scheduler's event dispatcher,
 * is encoded before it takes the engine link's lock, and carries the
 * placement constraints the engine matches.
 */
final class AskTranslator {
  private final EngineLink engine;
  private final EngineIds ids;
  private final int resourceTypes;

  AskTranslator(EngineLink engine, EngineIds ids, int resourceTypes) {
    this.engine = engine;
    this.ids = ids;
    this.resourceTypes = resourceTypes;
  }

  /**
   * {@code ask} with each of {@code schedulingRequests} added as the
   * ResourceRequest YARN books it under; {@code ask} itself when there are
   * none.
   */
  List<ResourceRequest> withSchedulingRequests(ApplicationAttemptId attemptId,
      List<ResourceRequest> ask, List<SchedulingRequest> schedulingRequests) {
    if (schedulingRequests != null && !schedulingRequests.isEmpty()) {
      // Placement constraints are matched by the engine (its `constraints`
      // filter); YARN books the containers through the ResourceRequest each
      // SchedulingRequest becomes. Unsupported forms throw here, to the AM,
      // as YARN's SingleConstraintAppPlacementAllocator does.
      List<ResourceRequest> all = new ArrayList<>(ask);
      for (SchedulingRequest sr : schedulingRequests) {
        all.add(fromSchedulingRequest(attemptId, sr));
      }
      ask = all;
    }
    return ask;
  }

  /**
   * A SchedulingRequest as the ResourceRequest YARN books it under (same
   * priority and allocation request id, so the AM matches the containers),
   * after the engine accepted its constraint; its tags and constraint are
   * kept for {@link #writeAsk}.
   */
  private ResourceRequest fromSchedulingRequest(ApplicationAttemptId attemptId,
      SchedulingRequest sr) {
    String where = "AppId=" + attemptId.getApplicationId() + " Key=(priority="
        + sr.getPriority() + ", allocationRequestId=" + sr.getAllocationRequestId()
        + "). Exception message:";
    if (sr.getResourceSizing() == null || sr.getResourceSizing().getResources() == null) {
      throw InvalidSchedulingRequest.of(where
          + "No ResourceSizing found in the scheduling request");
    }
    if (sr.getExecutionType() != null
        && sr.getExecutionType().getExecutionType() != ExecutionType.GUARANTEED) {
      throw InvalidSchedulingRequest.of(where
          + "Only GUARANTEED execution type is supported with placement constraints");
    }
    PlacementText.Result text = PlacementText.of(sr.getPlacementConstraint());
    String unsupported;
    try {
      unsupported = org.shepherd.yarn.engine.NativeEngine.checkPlacement(text.text);
    } catch (RuntimeException | UnsatisfiedLinkError e) {
      unsupported = "the Shepherd engine cannot check placement constraints now: " + e;
    }
    if (unsupported != null) {
      throw InvalidSchedulingRequest.of(where + unsupported);
    }
    ResourceRequest rr = ResourceRequest.newBuilder()
        .priority(sr.getPriority())
        .allocationRequestId(sr.getAllocationRequestId())
        .resourceName(ResourceRequest.ANY)
        .capability(sr.getResourceSizing().getResources())
        .numContainers(sr.getResourceSizing().getNumAllocations())
        .relaxLocality(true)
        .nodeLabelExpression(text.partition.isEmpty() ? null : text.partition)
        .build();
    int idx = ids.apps.find(attemptId.getApplicationId());
    if (idx >= 0) {
      Set<String> tags = sr.getAllocationTags() == null ? new HashSet<>() : sr.getAllocationTags();
      ids.placements.computeIfAbsent(idx, k -> new java.util.concurrent.ConcurrentHashMap<>())
          .put(SchedulerRequestKey.create(rr), new String[] {String.join(",", new java.util.TreeSet<>(tags)), text.text});
    }
    return rr;
  }

  /** Send the engine the new state of every scheduler key the AM touched. */
  void recordAsks(FifoAppAttempt attempt, List<ResourceRequest> ask) {
    Set<SchedulerRequestKey> keys = new HashSet<>();
    for (ResourceRequest rr : ask) {
      keys.add(SchedulerRequestKey.create(rr));
    }
    recordAsks(attempt, keys);
  }

  /** Send the engine the current state of these scheduler keys of the attempt. */
  void recordAsks(FifoAppAttempt attempt, Collection<SchedulerRequestKey> keys) {
    int idx = ids.apps.find(attempt.getApplicationId());
    if (idx < 0) {
      return;
    }
    // Encoded here, on the AM's thread and outside the engine link's lock
    // (an ask carries a count per host and rack: thousands of entries for
    // a wide job on a large cluster), then appended in one copy.
    EventBatch events = new EventBatch();
    for (SchedulerRequestKey key : keys) {
      writeAsk(events, idx, key, Asks.of(attempt, key));
    }
    engine.recordAll(events);
  }

  /**
   * One scheduler key's ask as the engine sees it: the ANY request's count,
   * size, relax-locality, execution type and label, plus host/rack counts.
   * An empty map (the AM withdrew the key) is sent as count 0.
   */
  void writeAsk(EventBatch b, int app, SchedulerRequestKey key,
      Map<String, ResourceRequest> rrs) {
    ResourceRequest any = rrs.get(ResourceRequest.ANY);
    Map<String, Integer> locations = new LinkedHashMap<>();
    rrs.forEach((name, rr) -> {
      if (!ResourceRequest.ANY.equals(name)) {
        locations.put(name, rr.getNumContainers());
      }
    });
    int count = any == null ? 0 : any.getNumContainers();
    long[] cap = any == null ? new long[resourceTypes]
        : EventTranslator.toLongs(any.getCapability(), resourceTypes);
    boolean relax = any == null || any.getRelaxLocality();
    int exec = any != null && any.getExecutionTypeRequest() != null
        && any.getExecutionTypeRequest().getExecutionType() == ExecutionType.OPPORTUNISTIC ? 1 : 0;
    String label = any == null || any.getNodeLabelExpression() == null ? ""
        : any.getNodeLabelExpression();
    b.askUpdated(app, key.getPriority().getPriority(), key.getAllocationRequestId(), cap, count,
        relax, exec, label, locations);
    Map<SchedulerRequestKey, String[]> own = ids.placements.get(app);
    String[] placement = own == null ? null : own.get(key);
    if (placement != null) {
      b.askPlacement(app, key.getPriority().getPriority(), key.getAllocationRequestId(),
          placement[0].isEmpty() ? new ArrayList<>() : java.util.Arrays.asList(placement[0].split(",")),
          placement[1]);
    }
  }

  /**
   * The allocation tags of a container placed for a SchedulingRequest under
   * {@code key}, or null for an ask that came as a ResourceRequest. YARN
   * carries them in the container token and the NodeManagers' reports after
   * an RM restart, and counts them in its AllocationTagsManager.
   */
  Set<String> placementTags(FifoAppAttempt attempt, SchedulerRequestKey key) {
    Map<SchedulerRequestKey, String[]> own = ids.placements.get(ids.apps.find(attempt.getApplicationId()));
    String[] placement = own == null ? null : own.get(key);
    if (placement == null || placement[0].isEmpty()) {
      return null;
    }
    return new HashSet<>(java.util.Arrays.asList(placement[0].split(",")));
  }
}
