package org.shepherd.yarn;

import static org.shepherd.yarn.ShepherdScheduler.CONFIG_FILE;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.function.Consumer;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.shepherd.yarn.engine.EventBatch;
import org.shepherd.yarn.engine.NativeEngine;
import org.shepherd.yarn.engine.ShepherdEngineException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shim's connection to one native engine: the pending event batch, the
 * crossing, and what happens when the engine fails.
 *
 * <p>On any engine failure the link turns <em>degraded</em>: events stop being
 * batched (they would be lost anyway) and {@link #step} returns null so the
 * scheduler places containers with its safe built-in FIFO. After
 * {@code retryMs} the scheduler rebuilds a fresh engine and replays the whole
 * cluster state into it ({@link #rebuild}), so nothing the old engine knew is
 * lost.
 *
 * <p>Two locks. This object's monitor serializes every call into the engine
 * (its state is single-threaded). The event batch has a lock of its own,
 * held only to append to it or to swap it for an empty one at a crossing,
 * so an AM's {@code allocate} recording its asks never waits for a
 * scheduling pass (SLS at 1 000 NMs: 15.6 s of {@code allocate} threads
 * blocked 10 ms or more on this object, when one lock did both). Order:
 * this monitor, then the batch lock, never the other way round.
 */
final class EngineLink {
  private static final Logger LOG = LoggerFactory.getLogger(EngineLink.class);

  private String configText;
  private final String[] resourceNames;
  private final long retryMs;
  /** Records the activity log keeps (0 = off), re-applied to rebuilt engines. */
  private int activityLog;
  /** Guards {@link #batch} (and {@link #spare} at a swap). */
  private final Object batchLock = new Object();
  /** Events recorded since the last crossing. */
  private EventBatch batch = new EventBatch();
  /** The other buffer: the one a crossing is sending, empty otherwise. */
  private EventBatch spare = new EventBatch();
  private long handle;
  /** Read under the batch lock by {@link #record}, written under this monitor. */
  private volatile boolean degraded;
  private long retryAtMs;
  private long failures;
  private long rebuilds;
  private long gaugeFailures;
  private String lastError = "";

  /** Creates the engine; a bad config fails here, at RM start. */
  EngineLink(String configText, String[] resourceNames, long retryMs) {
    this.configText = configText;
    this.resourceNames = resourceNames;
    this.retryMs = retryMs;
    this.handle = NativeEngine.create(configText, resourceNames);
  }

  /** Shepherd's TOML text at {@code path}; empty (all defaults) when no path is set. */
  static String readConfig(String path) {
    if (path == null || path.isEmpty()) {
      return "";
    }
    try {
      return new String(Files.readAllBytes(Paths.get(path)), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new YarnRuntimeException("Shepherd config " + CONFIG_FILE + " = " + path
          + " cannot be read: " + e);
    }
  }

  int resourceTypes() {
    return resourceNames.length;
  }

  /** Append events unless degraded (then the replay will carry them). */
  void record(Consumer<EventBatch> writer) {
    synchronized (batchLock) {
      if (!degraded) {
        writer.accept(batch);
      }
    }
  }

  /**
   * Append events encoded beforehand, outside any lock (an AM's asks with
   * their host and rack counts), in one copy; unless degraded.
   */
  void recordAll(EventBatch events) {
    synchronized (batchLock) {
      if (!degraded) {
        batch.append(events);
      }
    }
  }

  /**
   * The events recorded so far, for a crossing to send: the batch is
   * swapped for the empty spare, so recording goes on meanwhile. The caller
   * holds this monitor and clears the returned batch when it is sent.
   */
  private EventBatch takeBatch() {
    synchronized (batchLock) {
      EventBatch out = batch;
      batch = spare;
      spare = out;
      return out;
    }
  }

  /**
   * One crossing: flush the batch, schedule {@code node} (or only flush when
   * node &lt; 0). Returns the decisions, or null when the engine failed or is
   * degraded — the caller then uses its fallback.
   */
  synchronized long[] step(long nowMs, int node) {
    return cross(nowMs, b -> NativeEngine.step(handle, b.array(), b.length(), nowMs, node));
  }

  /**
   * One crossing of asynchronous scheduling: flush the batch and run a
   * scheduling round between heartbeats on at most {@code maxNodes} nodes.
   * Returns the decisions, or null when the engine failed or is degraded
   * (the next heartbeat then falls back as usual).
   */
  synchronized long[] round(long nowMs, int maxNodes) {
    return cross(nowMs, b -> NativeEngine.round(handle, b.array(), b.length(), nowMs, maxNodes));
  }

  /**
   * Apply the events recorded so far without scheduling; throws what the
   * engine throws (the caller decides whether that degrades the link).
   */
  private void applyBatch(long nowMs) {
    EventBatch sent = takeBatch();
    try {
      NativeEngine.step(handle, sent.array(), sent.length(), nowMs, -1);
    } finally {
      sent.clear();
    }
  }

  /** A crossing that flushes the batch: null if degraded or if it failed. */
  private long[] cross(long nowMs, java.util.function.Function<EventBatch, long[]> call) {
    if (degraded) {
      return null;
    }
    EventBatch sent = takeBatch();
    try {
      return call.apply(sent);
    } catch (ShepherdEngineException | Error e) {
      fail(nowMs, e);
      return null;
    } finally {
      sent.clear();
    }
  }

  private void fail(long nowMs, Throwable e) {
    failures++;
    lastError = e.getMessage();
    degraded = true;
    retryAtMs = nowMs + retryMs;
    if (failures <= 3 || failures % 100 == 0) {
      LOG.error("Shepherd engine failed (failure #" + failures + "); scheduling with the safe"
          + " built-in FIFO until the engine is rebuilt in " + retryMs + " ms", e);
    }
  }

  /**
   * Build a throwaway engine from {@code text} and return its state JSON
   * (queues, ACLs, pipelines): checks a config without touching this one.
   * Throws {@link ShepherdEngineException} naming the bad key.
   */
  String probe(String text) {
    long h = NativeEngine.create(text, resourceNames);
    try {
      return NativeEngine.stateJson(h);
    } finally {
      NativeEngine.destroy(h);
    }
  }

  /**
   * {@code -refreshQueues}: apply new config text. A healthy engine applies
   * it in place, after the events batched so far (so it knows every app the
   * RM has), and keeps every running container and what its plugins
   * learned. A degraded engine is rebuilt with it later. Throws
   * {@link ShepherdEngineException} (naming the key) and keeps the old
   * config when the engine refuses it.
   */
  synchronized void reconfigure(String text, long nowMs) {
    if (!degraded) {
      try {
        applyBatch(nowMs);
      } catch (ShepherdEngineException | Error e) {
        fail(nowMs, e);
        configText = text;
        return;
      }
      NativeEngine.reconfigure(handle, text);
    }
    configText = text;
  }

  synchronized boolean isDegraded() {
    return degraded;
  }

  synchronized boolean dueForRebuild(long nowMs) {
    return degraded && nowMs >= retryAtMs;
  }

  /**
   * Replace the engine with a fresh one and replay the cluster state the
   * {@code replay} callback writes. On failure stay degraded and retry later.
   */
  synchronized void rebuild(long nowMs, Consumer<EventBatch> replay) {
    long fresh = 0;
    // The batch lock is held throughout: an event recorded while the replay
    // reads the scheduler's state waits, and lands after it in the fresh
    // engine's next batch rather than being dropped as a degraded link's.
    synchronized (batchLock) {
      try {
        fresh = NativeEngine.create(configText, resourceNames);
        batch.clear();
        replay.accept(batch);
        NativeEngine.step(fresh, batch.array(), batch.length(), nowMs, -1);
      } catch (ShepherdEngineException | Error e) {
        if (fresh != 0) {
          NativeEngine.destroy(fresh);
        }
        fail(nowMs, e);
        return;
      } finally {
        batch.clear();
      }
      degraded = false;
    }
    long old = handle;
    handle = fresh;
    if (activityLog > 0) {
      NativeEngine.enableActivityLog(handle, activityLog);
    }
    rebuilds++;
    try {
      NativeEngine.destroy(old);
    } catch (ShepherdEngineException | Error e) {
      LOG.warn("Could not free the failed Shepherd engine", e);
    }
    LOG.info("Shepherd engine rebuilt from the scheduler's state (rebuild #" + rebuilds + ")");
  }

  /** Keep the engine's activity log of {@code limit} records (0 = off). */
  synchronized void enableActivityLog(int limit) {
    activityLog = limit;
    if (!degraded && handle != 0) {
      NativeEngine.enableActivityLog(handle, limit);
    }
  }

  /**
   * The activity log, after applying the events batched since the last
   * heartbeat (an app that just finished is in it).
   */
  synchronized String activityJson() {
    try {
      if (!degraded) {
        applyBatch(System.currentTimeMillis());
      }
      return NativeEngine.activityJson(handle);
    } catch (ShepherdEngineException | Error e) {
      return "null";
    }
  }

  synchronized long[] counters() {
    try {
      return NativeEngine.counters(handle);
    } catch (ShepherdEngineException | Error e) {
      return new long[6];
    }
  }

  synchronized String stateJson() {
    try {
      return NativeEngine.stateJson(handle);
    } catch (ShepherdEngineException | Error e) {
      return "{\"error\": \"engine unavailable\"}";
    }
  }

  /**
   * The engine's gauges ({@link NativeEngine#gauges}); empty while degraded,
   * when the engine's figures would be stale. Serialized with every other
   * engine call by this object's lock, so a metrics scrape never runs
   * inside a scheduling pass.
   */
  synchronized String gauges() {
    if (degraded || handle == 0) {
      return "";
    }
    try {
      return NativeEngine.gauges(handle);
    } catch (ShepherdEngineException | Error e) {
      gaugeFailures++;
      if (gaugeFailures <= 3 || gaugeFailures % 100 == 0) {
        LOG.warn("Shepherd engine could not report its gauges (failure #" + gaugeFailures + ")", e);
      }
      return "";
    }
  }

  synchronized long failures() {
    return failures;
  }

  synchronized long rebuilds() {
    return rebuilds;
  }

  synchronized String lastError() {
    return lastError;
  }

  synchronized void close() {
    if (handle != 0) {
      NativeEngine.destroy(handle);
      handle = 0;
    }
  }
}
