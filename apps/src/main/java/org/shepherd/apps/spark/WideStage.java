package org.shepherd.apps.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * For dynamic allocation: one wide stage of {@code tasks} tasks that each
 * sleep {@code taskMs} (its backlog makes Spark ask YARN for more
 * executors), then {@code idleMs} of driver-side idleness in which the
 * executors sit idle and Spark gives them back, then a small second job.
 */
public final class WideStage {
  private WideStage() {
  }

  public static void main(String[] args) throws InterruptedException {
    int tasks = Integer.parseInt(args[0]);
    long taskMs = Long.parseLong(args[1]);
    long idleMs = Long.parseLong(args[2]);
    SparkSession spark = SparkSession.builder().appName("WideStage").getOrCreate();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      List<Integer> ids = new ArrayList<>();
      for (int i = 0; i < tasks; i++) {
        ids.add(i);
      }
      long done = sc.parallelize(ids, tasks).map(i -> {
        Thread.sleep(taskMs);
        return i;
      }).count();
      System.out.println("wide stage: " + done + " tasks");
      Thread.sleep(idleMs);
      long after = sc.parallelize(ids, 2).count();
      if (done != tasks || after != tasks) {
        throw new IllegalStateException("counted " + done + " and " + after);
      }
    } finally {
      spark.stop();
    }
  }
}
