package org.shepherd.apps.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * Spark's counterpart of Hadoop's SleepJob, for the comparison harness's
 * trace jobs: {@code maps} tasks that each sleep {@code mapMs}, then, when
 * {@code reduces} > 0, a shuffle into {@code reduces} partitions whose tasks
 * each sleep {@code reduceMs}. The shuffle makes the second stage wait for
 * the first (a stage barrier, as a trace's reduce stage with slow-start 1).
 *
 * <pre>SleepStages maps mapMs reduces reduceMs</pre>
 */
public final class SleepStages {
  private SleepStages() {
  }

  public static void main(String[] args) {
    int maps = Integer.parseInt(args[0]);
    long mapMs = Long.parseLong(args[1]);
    int reduces = Integer.parseInt(args[2]);
    long reduceMs = Long.parseLong(args[3]);
    SparkSession spark = SparkSession.builder().appName("SleepStages").getOrCreate();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      List<Integer> ids = new ArrayList<>();
      for (int i = 0; i < maps; i++) {
        ids.add(i);
      }
      long records;
      if (reduces == 0) {
        records = sc.parallelize(ids, maps).map(i -> sleep(mapMs, i)).count();
      } else {
        records = sc.parallelize(ids, maps)
            .mapToPair(i -> new Tuple2<>(sleep(mapMs, i) % reduces, 1L))
            .reduceByKey(Long::sum, reduces)
            .mapPartitions(it -> {
              Thread.sleep(reduceMs);
              long n = 0;
              while (it.hasNext()) {
                n += it.next()._2();
              }
              return java.util.Collections.singletonList(n).iterator();
            })
            .reduce(Long::sum);
      }
      if (records != maps) {
        throw new IllegalStateException("counted " + records + " records of " + maps);
      }
      System.out.println("sleep stages: " + maps + " maps, " + reduces + " reduces");
    } finally {
      spark.stop();
    }
  }

  private static int sleep(long ms, int value) throws InterruptedException {
    Thread.sleep(ms);
    return value;
  }
}
