package org.shepherd.yarn.engine;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;

/**
 * Encoder of the JNI event batch, wire format v1. The authoritative spec and
 * the decoder are in {@code src/bridge/wire.rs}; a Rust round-trip test
 * checks the same layout. Little-endian throughout.
 */
public final class EventBatch {
  public static final byte NODE_ADDED = 1;
  public static final byte NODE_REMOVED = 2;
  public static final byte NODE_RESOURCE_UPDATED = 3;
  public static final byte NODE_UTILIZATION = 4;
  public static final byte APP_ADDED = 5;
  public static final byte APP_REMOVED = 6;
  public static final byte ATTEMPT_ADDED = 7;
  public static final byte ATTEMPT_REMOVED = 8;
  public static final byte ASK_UPDATED = 9;
  public static final byte CONTAINER_LAUNCHED = 10;
  public static final byte CONTAINER_FINISHED = 11;
  public static final byte CONTAINER_RECOVERED = 12;
  public static final byte ALLOCATION_REJECTED = 13;
  // 14, 15: sidecar inputs, never sent by the shim.
  public static final byte NODE_ATTRIBUTES_UPDATED = 16;
  public static final byte ASK_PLACEMENT = 17;
  public static final byte CONTAINER_TAGS = 18;
  public static final byte APP_MOVED = 19;
  public static final byte APP_PRIORITY_CHANGED = 20;

  private byte[] buf = new byte[4096];
  private int len = 0;

  public byte[] array() {
    return buf;
  }

  public int length() {
    return len;
  }

  public boolean isEmpty() {
    return len == 0;
  }

  public void clear() {
    len = 0;
  }

  /** Append every event of {@code other}, as they are (one copy). */
  public void append(EventBatch other) {
    ensure(other.len);
    System.arraycopy(other.buf, 0, buf, len, other.len);
    len += other.len;
  }

  private void ensure(int n) {
    if (len + n > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
    }
  }

  private EventBatch u8(int v) {
    ensure(1);
    buf[len++] = (byte) v;
    return this;
  }

  private EventBatch u16(int v) {
    ensure(2);
    buf[len++] = (byte) v;
    buf[len++] = (byte) (v >>> 8);
    return this;
  }

  private EventBatch i32(int v) {
    ensure(4);
    for (int i = 0; i < 4; i++) {
      buf[len++] = (byte) (v >>> (8 * i));
    }
    return this;
  }

  private EventBatch i64(long v) {
    ensure(8);
    for (int i = 0; i < 8; i++) {
      buf[len++] = (byte) (v >>> (8 * i));
    }
    return this;
  }

  private EventBatch str(String s) {
    byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
    int n = Math.min(b.length, 0xFFFF);
    u16(n);
    ensure(n);
    System.arraycopy(b, 0, buf, len, n);
    len += n;
    return this;
  }

  private EventBatch res(long[] r) {
    u8(r.length);
    for (long v : r) {
      i64(v);
    }
    return this;
  }

  private static String join(Collection<String> items) {
    return items == null ? "" : String.join(",", items);
  }

  /** {@code k=v} items, comma-separated (the wire's attribute lists). */
  private static String joinPairs(Map<String, String> pairs) {
    StringBuilder out = new StringBuilder();
    if (pairs != null) {
      for (Map.Entry<String, String> e : pairs.entrySet()) {
        if (out.length() > 0) {
          out.append(',');
        }
        out.append(e.getKey()).append('=').append(e.getValue());
      }
    }
    return out.toString();
  }

  public void nodeAdded(int node, String host, String rack, long[] capability,
      Collection<String> labels, Map<String, String> attributes) {
    u8(NODE_ADDED).i32(node).str(host).str(rack).res(capability).str(join(labels))
        .str(joinPairs(attributes));
  }

  public void nodeRemoved(int node) {
    u8(NODE_REMOVED).i32(node);
  }

  public void nodeResourceUpdated(int node, long[] capability) {
    u8(NODE_RESOURCE_UPDATED).i32(node).res(capability);
  }

  /** {@code used}: physical memory MB, CPU in milli-vcores. */
  public void nodeUtilization(int node, long[] used) {
    u8(NODE_UTILIZATION).i32(node).res(used);
  }

  /** {@code yarnId}: the YARN application id, e.g. {@code application_1700000000000_0001}. */
  public void appAdded(int app, String queue, String user, String name, String type,
      Collection<String> tags, long submitMs, int priority, String yarnId) {
    u8(APP_ADDED).i32(app).str(queue).str(user).str(name).str(type).str(join(tags))
        .i64(submitMs).i32(priority).str(yarnId);
  }

  public void appRemoved(int app) {
    u8(APP_REMOVED).i32(app);
  }

  /** {@code queue}: the leaf queue's name, as in {@link #appAdded}. */
  public void appMoved(int app, String queue) {
    u8(APP_MOVED).i32(app).str(queue);
  }

  /** The app's new YARN priority ({@code updateApplicationPriority}). */
  public void appPriorityChanged(int app, int priority) {
    u8(APP_PRIORITY_CHANGED).i32(app).i32(priority);
  }

  public void attemptAdded(int app, int attempt) {
    u8(ATTEMPT_ADDED).i32(app).i32(attempt);
  }

  public void attemptRemoved(int app, int attempt) {
    u8(ATTEMPT_REMOVED).i32(app).i32(attempt);
  }

  /** One scheduler key's ask; {@code locations}: host or rack name to count. */
  public void askUpdated(int app, int priority, long allocationRequestId, long[] capability,
      int count, boolean relaxLocality, int executionType, String label,
      Map<String, Integer> locations) {
    u8(ASK_UPDATED).i32(app).i32(priority).i64(allocationRequestId).res(capability).i32(count)
        .u8(relaxLocality ? 1 : 0).u8(executionType).str(label);
    u16(locations.size());
    for (Map.Entry<String, Integer> e : locations.entrySet()) {
      str(e.getKey()).i32(e.getValue());
    }
  }

  public void containerLaunched(long key, long atMs) {
    u8(CONTAINER_LAUNCHED).i64(key).i64(atMs);
  }

  public void containerFinished(long key, int exitStatus, long atMs) {
    u8(CONTAINER_FINISHED).i64(key).i32(exitStatus).i64(atMs);
  }

  public void containerRecovered(long key, int app, int node, int priority,
      long allocationRequestId, long[] resources, int executionType, long startMs) {
    u8(CONTAINER_RECOVERED).i64(key).i32(app).i32(node).i32(priority).i64(allocationRequestId)
        .res(resources).u8(executionType).i64(startMs);
  }

  public void allocationRejected(long key) {
    u8(ALLOCATION_REJECTED).i64(key);
  }

  /**
   * Completes the {@link #askUpdated} just written for the same app and key:
   * the ask came from a SchedulingRequest with these allocation tags and this
   * placement constraint (text form of {@code src/model/constraint/text.rs}).
   */
  public void askPlacement(int app, int priority, long allocationRequestId,
      Collection<String> tags, String constraint) {
    u8(ASK_PLACEMENT).i32(app).i32(priority).i64(allocationRequestId).str(join(tags))
        .str(constraint == null ? "" : constraint);
  }

  /** A node's labels or attributes changed: the new full sets. */
  public void nodeAttributesUpdated(int node, Collection<String> labels,
      Map<String, String> attributes) {
    u8(NODE_ATTRIBUTES_UPDATED).i32(node).str(join(labels)).str(joinPairs(attributes));
  }

  /** Allocation tags of a live container (recovered after an RM restart). */
  public void containerTags(long key, Collection<String> tags) {
    u8(CONTAINER_TAGS).i64(key).str(join(tags));
  }
}
