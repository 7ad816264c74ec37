package org.shepherd.yarn.sls.bench;

import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.function.IntSupplier;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.SchedulerEventType;
import org.shepherd.yarn.sls.MeasuredScheduler;

/**
 * Once a second during a run: containers allocated so far (the root queue's
 * aggregate, which every YARN scheduler keeps), running containers, scheduler
 * calls handled, apps left, memory. Written to {@code series.csv}; the
 * per-second allocation peak comes from here.
 */
final class RunSampler implements Runnable {
  private final MeasuredScheduler scheduler;
  private final IntSupplier remainingApps;
  private final LiveHeap heap;
  private final EngineCrossingTime crossings = new EngineCrossingTime();
  private final File csv;
  private final long startNanos;
  private volatile boolean stop;
  private double peakAllocPerSecond;
  private long lastAllocated;
  private long lastNanos;

  RunSampler(MeasuredScheduler scheduler, IntSupplier remainingApps, LiveHeap heap, File csv,
      long startNanos) {
    this.scheduler = scheduler;
    this.remainingApps = remainingApps;
    this.heap = heap;
    this.csv = csv;
    this.startNanos = startNanos;
    this.lastNanos = startNanos;
  }

  long allocatedNow() {
    QueueMetrics root = scheduler.scheduler().getRootQueueMetrics();
    return root == null ? 0 : root.getAggregateAllocatedContainers();
  }

  EngineCrossingTime crossings() {
    return crossings;
  }

  synchronized double peakAllocPerSecond() {
    return peakAllocPerSecond;
  }

  void stop() {
    stop = true;
  }

  @Override
  public void run() {
    try (BufferedWriter w = Files.newBufferedWriter(csv.toPath(), StandardCharsets.UTF_8)) {
      w.write("t_s,allocated_total,alloc_per_s,running_containers,node_updates,allocate_calls,"
          + "apps_remaining,heap_used_mb,rss_mb\n");
      while (!stop) {
        Thread.sleep(1000);
        long now = System.nanoTime();
        crossings.poll();
        long allocated = allocatedNow();
        double rate;
        synchronized (this) {
          rate = (allocated - lastAllocated) / ((now - lastNanos) / 1e9);
          peakAllocPerSecond = Math.max(peakAllocPerSecond, rate);
          lastAllocated = allocated;
          lastNanos = now;
        }
        QueueMetrics root = scheduler.scheduler().getRootQueueMetrics();
        w.write(String.format(java.util.Locale.ROOT, "%.1f,%d,%.0f,%d,%d,%d,%d,%d,%d%n",
            (now - startNanos) / 1e9, allocated, rate,
            root == null ? 0 : root.getAllocatedContainers(),
            scheduler.callTimes().event(SchedulerEventType.NODE_UPDATE).count(),
            scheduler.callTimes().allocate().count(), remainingApps.getAsInt(),
            heap.sample() >> 20, LiveHeap.rssBytes() >> 20));
        w.flush();
      }
    } catch (IOException e) {
      System.err.println("sampler: cannot write " + csv + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
