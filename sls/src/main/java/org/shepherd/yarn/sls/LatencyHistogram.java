package org.shepherd.yarn.sls;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Durations of one kind of scheduler call over a whole run, in nanoseconds.
 *
 * <p>SLS's own timers keep only the last {@code yarn.sls.metrics.timer.window.size}
 * (default 100) samples, so their percentiles describe the last moment, not
 * the run. This keeps every sample, in log-linear buckets (32 per power of
 * two, so a quantile is off by at most ~3 %), with lock-free recording:
 * allocate is called from many AM threads at once.
 */
public final class LatencyHistogram {
  /** 2^SUB_BITS buckets per power of two. */
  private static final int SUB_BITS = 5;
  private static final int SUB = 1 << SUB_BITS;
  private static final int BUCKETS = (64 - SUB_BITS + 1) * SUB;

  private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
  private final LongAdder count = new LongAdder();
  private final LongAdder sumNanos = new LongAdder();
  private final AtomicLong maxNanos = new AtomicLong();

  public void record(long nanos) {
    long v = Math.max(0, nanos);
    counts.incrementAndGet(bucketOf(v));
    count.increment();
    sumNanos.add(v);
    maxNanos.accumulateAndGet(v, Math::max);
  }

  public long count() {
    return count.sum();
  }

  /** Total time spent in these calls, ns. */
  public long sumNanos() {
    return sumNanos.sum();
  }

  public long maxNanos() {
    return maxNanos.get();
  }

  public double meanNanos() {
    long n = count();
    return n == 0 ? 0 : (double) sumNanos() / n;
  }

  /** The {@code q}-quantile (0..1), as the midpoint of its bucket; 0 when empty. */
  public double quantileNanos(double q) {
    long n = count();
    if (n == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(q * n));
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts.get(i);
      if (seen >= rank) {
        return Math.min((lowerBound(i) + upperBound(i)) / 2.0, maxNanos());
      }
    }
    return maxNanos();
  }

  /** Values below SUB get a bucket each; above, SUB buckets per power of two. */
  static int bucketOf(long v) {
    if (v < SUB) {
      return (int) v;
    }
    int exp = 63 - Long.numberOfLeadingZeros(v);
    int sub = (int) ((v >>> (exp - SUB_BITS)) & (SUB - 1));
    return (exp - SUB_BITS + 1) * SUB + sub;
  }

  static long lowerBound(int bucket) {
    if (bucket < SUB) {
      return bucket;
    }
    int block = bucket / SUB;
    int sub = bucket % SUB;
    int shift = block - 1;
    return ((long) (SUB | sub)) << shift;
  }

  static long upperBound(int bucket) {
    if (bucket < SUB) {
      return bucket;
    }
    int shift = bucket / SUB - 1;
    return lowerBound(bucket) + (1L << shift) - 1;
  }
}
