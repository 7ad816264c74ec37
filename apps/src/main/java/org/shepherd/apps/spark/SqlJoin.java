package org.shepherd.apps.spark;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark SQL query with a join and an aggregation: {@code orders} rows
 * (order id, customer, amount) joined to {@code customers} (id, region) and
 * summed per region. Both tables come from {@code spark.range}, so the
 * expected answer is known in closed form and checked; the result is also
 * written as CSV to the output directory. Broadcast joins are off, so the
 * join is a sort-merge join with a shuffle on both sides.
 */
public final class SqlJoin {
  private SqlJoin() {
  }

  public static void main(String[] args) {
    String output = args[0];
    long orders = args.length > 1 ? Long.parseLong(args[1]) : 20_000;
    int customers = 50;
    int regions = 5;
    SparkSession spark = SparkSession.builder().appName("SqlJoin")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate();
    try {
      spark.range(orders).selectExpr("id AS order_id", "id % " + customers + " AS customer_id",
          "(id % 10) + 1 AS amount").createOrReplaceTempView("orders");
      spark.range(customers).selectExpr("id", "concat('region-', id % " + regions + ") AS region")
          .createOrReplaceTempView("customers");
      Dataset<Row> result = spark.sql("SELECT c.region, count(*) AS orders, sum(o.amount) AS total"
          + " FROM orders o JOIN customers c ON o.customer_id = c.id"
          + " GROUP BY c.region ORDER BY c.region");
      List<Row> rows = result.collectAsList();
      // Expected: orders spread evenly over the regions (orders is a
      // multiple of customers and of 10 here), and the amounts 1..10 too.
      long totalOrders = 0;
      long totalAmount = 0;
      for (Row r : rows) {
        System.out.println(r.getString(0) + " " + r.getLong(1) + " " + r.getLong(2));
        totalOrders += r.getLong(1);
        totalAmount += r.getLong(2);
      }
      long expectedAmount = 0;
      for (long id = 0; id < orders; id++) {
        expectedAmount += (id % 10) + 1;
      }
      if (rows.size() != regions || totalOrders != orders || totalAmount != expectedAmount) {
        throw new IllegalStateException("wrong answer: " + rows.size() + " regions, "
            + totalOrders + " orders, amount " + totalAmount + " (expected " + expectedAmount + ")");
      }
      result.coalesce(1).write().option("header", "true").csv(output);
    } finally {
      spark.stop();
    }
  }
}
