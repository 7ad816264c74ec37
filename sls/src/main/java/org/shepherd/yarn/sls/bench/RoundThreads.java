package org.shepherd.yarn.sls.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;

/**
 * The threads that allocate between node heartbeats, off the RM's event
 * thread: Shepherd's scheduling-round thread ({@code
 * async-scheduling.interval-ms}), and the CapacityScheduler's asynchronous
 * scheduling threads with the committer thread that commits their proposals
 * ({@code schedule-asynchronously}). The event thread's busy time leaves
 * their work out, so with rounds the benchmark adds their CPU time to it.
 * Found by the names Shepherd's shim and Hadoop 3.4's CapacityScheduler give
 * them.
 */
final class RoundThreads {
  private static final String[] NAME_PREFIXES = {
      "Shepherd asynchronous scheduling", "AsyncCapacitySchedulerThread", "ResourceCommitterService"};

  private final List<Thread> threads = new ArrayList<>();
  private final long[] cpuAtStart;

  private RoundThreads() {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      for (String p : NAME_PREFIXES) {
        if (t.getName().startsWith(p)) {
          threads.add(t);
          break;
        }
      }
    }
    cpuAtStart = cpuNanos();
  }

  /** The round threads alive now (they start with the scheduler), and their CPU time so far. */
  static RoundThreads now() {
    return new RoundThreads();
  }

  List<String> names() {
    List<String> out = new ArrayList<>();
    threads.forEach(t -> out.add(t.getName()));
    return out;
  }

  /** CPU seconds the threads used since {@link #now()} (they live until the RM stops). */
  double cpuSecondsSinceStart() {
    long[] end = cpuNanos();
    long sum = 0;
    for (int i = 0; i < end.length; i++) {
      sum += Math.max(0, end[i] - cpuAtStart[i]);
    }
    return sum / 1e9;
  }

  private long[] cpuNanos() {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    long[] out = new long[threads.size()];
    for (int i = 0; i < out.length; i++) {
      long ns = mx.getThreadCpuTime(threads.get(i).getId());
      out[i] = Math.max(0, ns);
    }
    return out;
  }
}
