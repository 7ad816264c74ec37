package org.shepherd.apps.compare;

import java.io.File;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.shepherd.apps.SparkOnYarn;
import org.shepherd.apps.SparkShuffleConf;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;
import org.shepherd.yarn.compare.AppFramework;
import org.shepherd.yarn.compare.HiBenchInputs;
import org.shepherd.yarn.compare.TraceJob;

/**
 * Trace jobs of type SPARK in the comparison harness: unmodified Spark
 * applications submitted in cluster mode with Spark's own client
 * ({@link SparkOnYarn}), with dynamic allocation on and Spark's external
 * shuffle service in every NodeManager, as an operator runs Spark on YARN.
 *
 * <ul>
 *   <li>a job named {@code wordcount*}: {@link org.shepherd.apps.spark.WordCount}
 *       over the job's maps' HiBench text files, shuffling into its reduces;</li>
 *   <li>any other name: {@link org.shepherd.apps.spark.SleepStages}, the
 *       trace's maps and reduces sleeping its mean task durations.</li>
 * </ul>
 *
 * <p>An executor's container is the stage's {@code memory_mb} (1 GiB at
 * least: Spark refuses a heap below 450 MiB, and adds its default memory
 * overhead, 384 MiB, to the heap): the heap is {@code memory_mb} − 384 MiB.
 * The driver, which is the AM in cluster mode, gets 512 MiB of heap and the
 * same overhead. Dynamic allocation keeps Spark's defaults (start from
 * none, ask after 1 s of backlog, give an executor back after 60 s idle).
 */
public final class SparkFramework implements AppFramework {
  /** Spark's default executor memory overhead (at least 384 MiB). */
  private static final int OVERHEAD_MB = 384;
  /** Spark's least heap (1.5 × its 300 MiB reserve, rounded up) plus the overhead, in YARN's 256 MiB steps. */
  private static final int MIN_EXECUTOR_MB = 1024;
  private int shufflePort;

  @Override
  public String appType() {
    return "SPARK";
  }

  @Override
  public void prepareInputs(List<TraceJob> jobs, HiBenchInputs inputs) throws IOException {
    // Word counts read HiBench's text; the other Spark jobs read nothing.
    inputs.prepareWidest(jobs,
        j -> j.kind == TraceJob.Kind.WORDCOUNT ? TraceJob.Kind.WORDCOUNT : null);
  }

  /** The NodeManagers run Spark's shuffle service as {@code spark_shuffle}, on a port of this run's. */
  @Override
  public Configuration clusterConf(Configuration conf) throws IOException {
    shufflePort = ShepherdCluster.freePort();
    return new SparkShuffleConf(conf, shufflePort);
  }

  @Override
  public Submitter open(ShepherdCluster cluster, File work, HiBenchInputs inputs)
      throws IOException {
    SparkOnYarn.writeHadoopConfDir(cluster.conf);
    Map<String, String> common = new HashMap<>();
    common.put("spark.dynamicAllocation.enabled", "true");
    common.put("spark.shuffle.service.enabled", "true");
    common.put("spark.shuffle.service.port", Integer.toString(shufflePort));
    common.put("spark.driver.memory", "512m");
    SparkOnYarn spark = new SparkOnYarn(cluster.conf, work, common);
    File outputs = new File(work, "output");
    return job -> Workloads.as(job.user, () -> {
      Map<String, String> conf = new HashMap<>();
      conf.put("spark.yarn.tags", job.tag());
      if (job.memoryMb < MIN_EXECUTOR_MB) {
        throw new IllegalArgumentException("job " + job.id + ": memory_mb " + job.memoryMb
            + " is below a Spark executor's least container, " + MIN_EXECUTOR_MB + " MiB");
      }
      conf.put("spark.executor.memory", (job.memoryMb - OVERHEAD_MB) + "m");
      conf.put("spark.executor.cores", Integer.toString(job.vcores));
      try {
        if (job.kind == TraceJob.Kind.WORDCOUNT) {
          spark.submit(job.name + "-" + job.id, job.queue, "org.shepherd.apps.spark.WordCount",
              conf, inputs.inputOf(job.kind, job.maps).toString(),
              new File(outputs, job.id).toURI().toString(), Integer.toString(Math.max(1,
                  job.reduces)));
        } else {
          spark.submit(job.name + "-" + job.id, job.queue, "org.shepherd.apps.spark.SleepStages",
              conf, Integer.toString(job.maps), Long.toString(job.mapMs),
              Integer.toString(job.reduces), Long.toString(job.reduceMs));
        }
        return true;
      } catch (Exception e) {
        // spark-submit throws when YARN reports the application failed; the
        // harness records it as a job that did not succeed.
        System.out.printf("    spark job %s: %s%n", job.id, e);
        return false;
      }
    });
  }
}
