package org.shepherd.yarn.engine;

/**
 * Reader of the {@code long[]} decisions {@link NativeEngine#step} returns:
 * {@code [count, record...]}; see {@code src/bridge/wire.rs}.
 */
public final class Decisions {
  public static final int ALLOCATE = 1;
  public static final int PREEMPT = 2;
  /** Tell the AM (YARN's PreemptionMessage) the container will be taken back. */
  public static final int MARK_FOR_PREEMPTION = 3;

  /** YARN NodeType order: node-local, rack-local, off-switch. */
  public static final int NODE_LOCAL = 0;
  public static final int RACK_LOCAL = 1;
  public static final int OFF_SWITCH = 2;

  private final long[] data;
  private final int resourceTypes;
  private int pos = 1;
  private int remaining;

  // Fields of the current record.
  public int kind;
  public long container;
  public int app;
  public int node;
  public int priority;
  public long allocationRequestId;
  public int locality;
  public int executionType;
  public final long[] resources;

  public Decisions(long[] data, int resourceTypes) {
    this.data = data;
    this.resourceTypes = resourceTypes;
    this.remaining = data == null || data.length == 0 ? 0 : (int) data[0];
    this.resources = new long[resourceTypes];
  }

  /** Advance to the next record; false when there is none. */
  public boolean next() {
    if (remaining <= 0) {
      return false;
    }
    remaining--;
    kind = (int) data[pos++];
    container = data[pos++];
    if (kind == ALLOCATE) {
      app = (int) data[pos++];
      node = (int) data[pos++];
      priority = (int) data[pos++];
      allocationRequestId = data[pos++];
      locality = (int) data[pos++];
      executionType = (int) data[pos++];
      for (int i = 0; i < resourceTypes; i++) {
        resources[i] = data[pos++];
      }
    } else if (kind != PREEMPT && kind != MARK_FOR_PREEMPTION) {
      throw new ShepherdEngineException("unknown decision kind " + kind);
    }
    return true;
  }
}
