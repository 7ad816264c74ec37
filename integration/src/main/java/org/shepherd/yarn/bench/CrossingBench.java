package org.shepherd.yarn.bench;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import org.shepherd.yarn.engine.EventBatch;
import org.shepherd.yarn.engine.NativeEngine;

/**
 * JNI crossing cost, measured from the JVM side: an engine holding 1 000
 * nodes and 10 000 pending asks, then (a) empty crossings — the fixed cost of
 * one {@code step} call with nothing to apply — and (b) full heartbeats that
 * report finished containers and take new allocations, as the shim does.
 *
 * <p>Usage: {@code CrossingBench /path/to/libshepherd.so [iterations]}
 */
public final class CrossingBench {
  private CrossingBench() {
  }

  public static void main(String[] args) {
    NativeEngine.load("argument", args[0]);
    int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    int nodes = 1000;
    int apps = 500;
    int pendingPerApp = 20;
    long h = NativeEngine.create("[scheduler]\npolicy = \"drf\"\n",
        new String[] {"memory-mb", "vcores"});
    EventBatch b = new EventBatch();
    for (int n = 0; n < nodes; n++) {
      b.nodeAdded(n, "nm" + n, "/rack" + (n / 40), new long[] {64 * 1024, 32},
          Collections.emptySet(), Collections.emptyMap());
    }
    for (int a = 0; a < apps; a++) {
      b.appAdded(a, "default", "user" + (a % 50), "job" + a, "MAPREDUCE", null, a, 0,
          "application_0_" + a);
      b.attemptAdded(a, 1);
      b.askUpdated(a, 20, 0, new long[] {4096, 1}, pendingPerApp + nodes * 16 / apps + 1, true,
          0, "", new LinkedHashMap<>());
    }
    NativeEngine.step(h, b.array(), b.length(), 0, -1);
    b.clear();

    // Empty crossings: the JNI fixed cost.
    for (int i = 0; i < 100_000; i++) {
      NativeEngine.step(h, b.array(), 0, 0, -1);
    }
    long[] samples = new long[iterations];
    for (int i = 0; i < iterations; i++) {
      long t = System.nanoTime();
      NativeEngine.step(h, b.array(), 0, 0, -1);
      samples[i] = System.nanoTime() - t;
    }
    report("empty crossing (JNI call, batch copy, decision array)", samples);

    // Heartbeats: fill every node once, then each heartbeat finishes one
    // node's containers and refills it.
    long[][] onNode = new long[nodes][];
    for (int n = 0; n < nodes; n++) {
      onNode[n] = containers(NativeEngine.step(h, b.array(), 0, 0, n));
    }
    int beats = Math.min(iterations, 20_000);
    long[] beatSamples = new long[beats];
    for (int i = 0; i < beats; i++) {
      int n = i % nodes;
      b.clear();
      for (long c : onNode[n]) {
        b.containerFinished(c, 0, i);
      }
      long t = System.nanoTime();
      long[] d = NativeEngine.step(h, b.array(), b.length(), i, n);
      beatSamples[i] = System.nanoTime() - t;
      onNode[n] = containers(d);
      if (i % 50 == 0) {
        b.clear();
        for (int a = 0; a < apps; a++) {
          b.askUpdated(a, 20, 0, new long[] {4096, 1}, pendingPerApp, true, 0, "",
              new LinkedHashMap<>());
        }
        NativeEngine.step(h, b.array(), b.length(), i, -1);
      }
    }
    b.clear();
    report("heartbeat crossing incl. decision (1000 nodes, 10000 pending asks)", beatSamples);
    NativeEngine.destroy(h);
  }

  private static long[] containers(long[] d) {
    int count = (int) d[0];
    long[] out = new long[count];
    int pos = 1;
    for (int i = 0; i < count; i++) {
      out[i] = d[pos + 1];
      pos += d[pos] == 1 ? 10 : 2;
    }
    return out;
  }

  private static void report(String what, long[] ns) {
    long[] s = ns.clone();
    Arrays.sort(s);
    System.out.printf("%s: n=%d  p50 %.2f us  p90 %.2f us  p99 %.2f us  mean %.2f us%n", what,
        s.length, s[s.length / 2] / 1000.0, s[(int) (s.length * 0.9)] / 1000.0,
        s[(int) (s.length * 0.99)] / 1000.0, Arrays.stream(s).average().orElse(0) / 1000.0);
  }
}
