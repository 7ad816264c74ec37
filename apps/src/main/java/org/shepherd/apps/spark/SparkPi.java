package org.shepherd.apps.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * Monte Carlo estimate of pi, the classic first Spark application: {@code
 * slices} tasks each throw {@code perSlice} darts at the unit square. Fails
 * (exception, so the YARN application's final status is FAILED) if the
 * estimate is off.
 */
public final class SparkPi {
  private SparkPi() {
  }

  public static void main(String[] args) {
    int slices = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    int perSlice = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    SparkSession spark = SparkSession.builder().appName("SparkPi").getOrCreate();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      List<Integer> seeds = new ArrayList<>();
      for (int i = 0; i < slices; i++) {
        seeds.add(i);
      }
      long inside = sc.parallelize(seeds, slices).map(seed -> {
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed * 7919L + 1);
        long hits = 0;
        for (int i = 0; i < perSlice; i++) {
          double x = r.nextDouble() * 2 - 1;
          double y = r.nextDouble() * 2 - 1;
          if (x * x + y * y <= 1) {
            hits++;
          }
        }
        return hits;
      }).reduce(Long::sum);
      double pi = 4.0 * inside / ((long) slices * perSlice);
      System.out.println("Pi is roughly " + pi);
      if (pi < 3.1 || pi > 3.2) {
        throw new IllegalStateException("pi estimate out of range: " + pi);
      }
    } finally {
      spark.stop();
    }
  }
}
