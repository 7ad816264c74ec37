package org.shepherd.yarn.engine;

import java.io.File;

/**
 * The JNI surface of the Rust engine ({@code src/bridge/jni_entry.rs}).
 * Few crossings: one {@link #step} per node heartbeat carries every event
 * batched since the last crossing and returns that node's decisions.
 */
public final class NativeEngine {
  /** Library name for {@link System#loadLibrary}: libshepherd.so. */
  public static final String LIBRARY_NAME = "shepherd";

  private static volatile boolean loaded = false;

  private NativeEngine() {
  }

  /**
   * Load the native library from {@code explicitPath} if given, else from
   * {@code java.library.path}. Throws with a message that names what is
   * missing and where it looked.
   */
  public static synchronized void load(String configKey, String explicitPath) {
    boolean explicit = explicitPath != null && !explicitPath.trim().isEmpty();
    File f = explicit ? new File(explicitPath.trim()) : null;
    // Checked even when a library is already loaded in this JVM: a wrong
    // setting is an operator error worth failing on either way.
    if (explicit && !f.isFile()) {
      throw new ShepherdEngineException("Shepherd native engine not found: " + configKey
          + " = " + explicitPath + " is not a file (build it with `cargo build --release`,"
          + " it is target/release/libshepherd.so)");
    }
    if (loaded) {
      return;
    }
    try {
      if (explicit) {
        System.load(f.getAbsolutePath());
      } else {
        System.loadLibrary(LIBRARY_NAME);
      }
      loaded = true;
    } catch (UnsatisfiedLinkError e) {
      throw new ShepherdEngineException("Shepherd native engine could not be loaded: "
          + (explicitPath == null || explicitPath.trim().isEmpty()
              ? "lib" + LIBRARY_NAME + ".so is not on java.library.path ("
                  + System.getProperty("java.library.path") + ") and " + configKey + " is not set"
              : configKey + " = " + explicitPath)
          + ": " + e.getMessage(), e);
    }
  }

  /** Create an engine from Shepherd TOML config text; returns a handle. */
  public static native long create(String configToml, String[] resourceTypeNames);

  public static native void destroy(long handle);

  /**
   * {@code null} when the engine matches this placement-constraint text
   * (see {@code PlacementText}); otherwise the message naming the form it
   * does not support.
   */
  public static native String checkPlacement(String constraint);

  /**
   * Apply {@code events[0..len)} (wire format v1, see {@link EventBatch}) and,
   * when {@code node >= 0}, run a scheduling pass for that node.
   * Returns decisions as read by {@link Decisions}.
   */
  public static native long[] step(long handle, byte[] events, int len, long nowMs, int node);

  /**
   * Apply {@code events[0..len)}, then run one scheduling round between
   * heartbeats (asynchronous scheduling): a pass on each node that has room
   * for an outstanding ask, at most {@code maxNodes} of them (0 = all),
   * continuing where the last round stopped. Does nothing when nothing
   * changed since the last complete round. Returns decisions as read by
   * {@link Decisions}.
   */
  public static native long[] round(long handle, byte[] events, int len, long nowMs, int maxNodes);

  /**
   * Apply new Shepherd TOML config text to the live engine in place (queues
   * and their pipelines; plugins whose configuration is unchanged keep what
   * they learned). Throws {@link ShepherdEngineException} naming the key on
   * a bad config or a dropped queue that still has applications, changing
   * nothing.
   */
  public static native void reconfigure(long handle, String configToml);

  /**
   * Keep the engine's activity log (containers and apps that are gone,
   * node heartbeats; at most {@code limit} records of each), or drop it
   * with 0. What {@code shepherd calibrate} fits the simulator to.
   */
  public static native void enableActivityLog(long handle, int limit);

  /** The activity log as JSON, {@code null} when it is not kept. */
  public static native String activityJson(long handle);

  /** JSON view of the engine state (cluster, queues, apps, pipelines and their plugins' state). */
  public static native String stateJson(long handle);

  /**
   * {@code [events, passes, allocations, preemptions, rejectedAllocations,
   * unknownReferences, rounds, roundAllocations, roundProposals,
   * roundConflicts]}: the last four count scheduling rounds between
   * heartbeats, the containers they placed, and (with several proposers)
   * the placements proposed and those rejected as conflicting.
   */
  public static native long[] counters(long handle);

  /**
   * The engine's and the policy's metrics as a JSON array of
   * {@code {"name", "labels": [[k, v], ...], "value", "help", "kind"}}
   * ({@code policy::Gauge} in {@code src/policy/gauge.rs}; the sidecar reads
   * the same JSON), kind {@code gauge} or {@code counter}, a value that is
   * not finite sent as {@code null}.
   */
  public static native String gauges(long handle);

  public static native String version();
}
