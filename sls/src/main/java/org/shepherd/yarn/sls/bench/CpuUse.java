package org.shepherd.yarn.sls.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * CPU used during a run: by this JVM (RM, simulated NMs and AMs together) and
 * by the whole machine. SLS runs in real time, so anything else running on
 * the machine slows the simulation and lowers every throughput figure; the
 * difference between the two flags such runs.
 */
final class CpuUse {
  private final long processNanos;
  private final long[] machineTicks;
  private final long wallNanos;

  private CpuUse(long processNanos, long[] machineTicks, long wallNanos) {
    this.processNanos = processNanos;
    this.machineTicks = machineTicks;
    this.wallNanos = wallNanos;
  }

  static CpuUse now() {
    long process = -1;
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean) {
      process = ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
    }
    return new CpuUse(process, machineTicks(), System.nanoTime());
  }

  /** Cores this JVM used on average since {@code start}. */
  double processCores(CpuUse start) {
    return (processNanos - start.processNanos) / (double) (wallNanos - start.wallNanos);
  }

  /** Cores the whole machine used (busy, incl. steal) on average since {@code start}; -1 unknown. */
  double machineCores(CpuUse start) {
    if (machineTicks == null || start.machineTicks == null) {
      return -1;
    }
    long busy = busy(machineTicks) - busy(start.machineTicks);
    long all = total(machineTicks) - total(start.machineTicks);
    return all <= 0 ? -1 : busy / (double) all * Runtime.getRuntime().availableProcessors();
  }

  /** user nice system idle iowait irq softirq steal, from /proc/stat's "cpu" line. */
  private static long[] machineTicks() {
    try {
      String[] f = Files.readAllLines(Paths.get("/proc/stat")).get(0).trim().split("\\s+");
      long[] t = new long[8];
      for (int i = 0; i < t.length && i + 1 < f.length; i++) {
        t[i] = Long.parseLong(f[i + 1]);
      }
      return t;
    } catch (Exception e) {
      return null;
    }
  }

  private static long total(long[] t) {
    long sum = 0;
    for (long v : t) {
      sum += v;
    }
    return sum;
  }

  private static long busy(long[] t) {
    return total(t) - t[3] - t[4];
  }
}
