package org.shepherd.yarn;

import java.util.function.Consumer;
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
 */
final class EngineLink {
  private static final Logger LOG = LoggerFactory.getLogger(EngineLink.class);

  private String configText;
  private final String[] resourceNames;
  private final long retryMs;
  /** Records the activity log keeps (0 = off), re-applied to rebuilt engines. */
  private int activityLog;
  private final EventBatch batch = new EventBatch();
  private long handle;
  private boolean degraded;
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

  int resourceTypes() {
    return resourceNames.length;
  }

  /** Append events unless degraded (then the replay will carry them). */
  synchronized void record(Consumer<EventBatch> writer) {
    if (!degraded) {
      writer.accept(batch);
    }
  }

  /**
   * One crossing: flush the batch, schedule {@code node} (or only flush when
   * node &lt; 0). Returns the decisions, or null when the engine failed or is
   * degraded — the caller then uses its fallback.
   */
  synchronized long[] step(long nowMs, int node) {
    return cross(nowMs, () -> NativeEngine.step(handle, batch.array(), batch.length(), nowMs, node));
  }

  /**
   * One crossing of asynchronous scheduling: flush the batch and run a
   * scheduling round between heartbeats on at most {@code maxNodes} nodes.
   * Returns the decisions, or null when the engine failed or is degraded
   * (the next heartbeat then falls back as usual).
   */
  synchronized long[] round(long nowMs, int maxNodes) {
    return cross(nowMs, () -> NativeEngine.round(handle, batch.array(), batch.length(), nowMs, maxNodes));
  }

  /** A crossing that flushes the batch: null if degraded or if it failed. */
  private long[] cross(long nowMs, java.util.function.Supplier<long[]> call) {
    if (degraded) {
      return null;
    }
    try {
      return call.get();
    } catch (ShepherdEngineException | Error e) {
      fail(nowMs, e);
      return null;
    } finally {
      batch.clear();
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
        NativeEngine.step(handle, batch.array(), batch.length(), nowMs, -1);
      } catch (ShepherdEngineException | Error e) {
        fail(nowMs, e);
        configText = text;
        return;
      } finally {
        batch.clear();
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
    long old = handle;
    handle = fresh;
    degraded = false;
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
        NativeEngine.step(handle, batch.array(), batch.length(), System.currentTimeMillis(), -1);
        batch.clear();
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
