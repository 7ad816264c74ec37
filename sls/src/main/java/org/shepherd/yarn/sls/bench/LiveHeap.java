package org.shepherd.yarn.sls.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.MemoryPoolMXBean;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The JVM's memory over a run, three ways, since each misleads alone:
 * heap used sampled once a second (includes garbage not yet collected, so it
 * depends on the collector's timing); heap still in use right after each
 * garbage collection (the live set, what the RM really holds); and the
 * process's peak resident set (VmHWM), which also counts memory outside the
 * Java heap — the Rust engine's, for Shepherd.
 */
final class LiveHeap {
  private final AtomicLong peakUsed = new AtomicLong();
  private final AtomicLong peakAfterGc = new AtomicLong();
  private final Set<String> heapPools = new HashSet<>();

  LiveHeap() {
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        heapPools.add(p.getName());
      }
    }
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter) {
        ((NotificationEmitter) gc).addNotificationListener((n, handback) -> {
          if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION
              .equals(n.getType())) {
            return;
          }
          GarbageCollectionNotificationInfo info =
              GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
          long live = 0;
          for (Map.Entry<String, MemoryUsage> e
              : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(e.getKey())) {
              live += e.getValue().getUsed();
            }
          }
          final long l = live;
          peakAfterGc.accumulateAndGet(l, Math::max);
        }, null, null);
      }
    }
  }

  /** Heap used now; also kept as the peak. */
  long sample() {
    long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    peakUsed.accumulateAndGet(used, Math::max);
    return used;
  }

  long peakUsedBytes() {
    return peakUsed.get();
  }

  long peakAfterGcBytes() {
    return peakAfterGc.get();
  }

  /** The process's peak resident set size in bytes (Linux), or -1. */
  static long peakRssBytes() {
    return procStatusKb("VmHWM:");
  }

  static long rssBytes() {
    return procStatusKb("VmRSS:");
  }

  private static long procStatusKb(String key) {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
        if (line.startsWith(key)) {
          return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]) * 1024;
        }
      }
    } catch (Exception e) {
      // Not Linux: no figure.
    }
    return -1;
  }
}
