package org.shepherd.apps.spark;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * Word count with a shuffle: reads a text file, counts words with {@code
 * reduceByKey} into {@code reducers} partitions (map outputs are served by
 * the NodeManagers' external shuffle service when it is enabled), writes
 * "word count" lines to the output directory and checks that the counts add
 * up to the number of words read.
 */
public final class WordCount {
  private WordCount() {
  }

  public static void main(String[] args) {
    String input = args[0];
    String output = args[1];
    int reducers = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    SparkSession spark = SparkSession.builder().appName("WordCount").getOrCreate();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      JavaPairRDD<String, Long> counts = sc.textFile(input, 4)
          .flatMap(line -> Arrays.asList(line.split("\\s+")).iterator())
          .filter(w -> !w.isEmpty())
          .mapToPair(w -> new Tuple2<>(w, 1L))
          .reduceByKey(Long::sum, reducers)
          .cache();
      long words = sc.textFile(input, 4)
          .flatMap(line -> Arrays.asList(line.split("\\s+")).iterator())
          .filter(w -> !w.isEmpty())
          .count();
      Map<String, Long> all = counts.collectAsMap();
      long total = all.values().stream().mapToLong(Long::longValue).sum();
      if (total != words || all.isEmpty()) {
        throw new IllegalStateException("counts add up to " + total + ", read " + words);
      }
      List<String> lines = counts.map(t -> t._1() + " " + t._2()).collect();
      System.out.println("distinct words " + lines.size() + ", words " + words);
      counts.map(t -> t._1() + " " + t._2()).saveAsTextFile(output);
    } finally {
      spark.stop();
    }
  }
}
