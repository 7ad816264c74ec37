package org.shepherd.apps.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * For over-subscription: one stage of {@code tasks} tasks that each keep a
 * core busy for {@code taskMs} of wall time, so the NodeManager measures an
 * executor's use near a whole core for as long as it runs tasks (ROSE's
 * controller evicts on measured use). Each task returns its index; fails
 * (exception, so the YARN application's final status is FAILED) unless
 * every index came back exactly once, however often a task was re-run.
 */
public final class BusyStage {
  private BusyStage() {
  }

  public static void main(String[] args) {
    int tasks = Integer.parseInt(args[0]);
    long taskMs = Long.parseLong(args[1]);
    SparkSession spark = SparkSession.builder().appName("BusyStage").getOrCreate();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      List<Integer> ids = new ArrayList<>();
      for (int i = 0; i < tasks; i++) {
        ids.add(i);
      }
      List<Long> back = sc.parallelize(ids, tasks).map(i -> {
        long end = System.currentTimeMillis() + taskMs;
        long x = i;
        while (System.currentTimeMillis() < end) {
          for (int k = 0; k < 100_000; k++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
          }
        }
        // x is used, so the loop is not optimised away; the index is the result.
        return x == 42 ? -1L : (long) i;
      }).collect();
      long sum = 0;
      for (long v : back) {
        sum += v;
      }
      System.out.println("busy stage: " + back.size() + " tasks, index sum " + sum);
      if (back.size() != tasks || sum != (long) tasks * (tasks - 1) / 2) {
        throw new IllegalStateException("tasks came back as " + back);
      }
    } finally {
      spark.stop();
    }
  }
}
