package org.shepherd.yarn;

import java.util.Collections;
import java.util.Map;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.AppPlacementAllocator;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;

/** Reads an attempt's current ResourceRequests for one scheduler key. */
final class Asks {
  private Asks() {
  }

  /** Resource name (host, rack or {@code *}) to request; empty if none. */
  static Map<String, ResourceRequest> of(SchedulerApplicationAttempt attempt,
      SchedulerRequestKey key) {
    AppPlacementAllocator<?> ap = attempt.getAppPlacementAllocator(key);
    if (ap == null) {
      return Collections.emptyMap();
    }
    Map<String, ResourceRequest> rrs = ap.getResourceRequests();
    return rrs == null ? Collections.emptyMap() : rrs;
  }
}
