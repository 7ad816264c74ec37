package org.shepherd.yarn.compare;

import java.io.File;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.shepherd.yarn.cluster.ShepherdCluster;

/**
 * How the harness runs the trace jobs of one YARN application type (the
 * trace's {@code app_type}): MapReduce is built in ({@link MapReduceFramework});
 * Spark and Tez live in the apps module, whose client libraries must not reach
 * this module's classpath, and are found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/org.shepherd.yarn.compare.AppFramework}).
 *
 * <p>Every scheduler's cluster is configured by the same frameworks, so a
 * framework's needs (Spark's shuffle service on the NodeManagers) are the
 * same for all of them.
 */
public interface AppFramework {
  /** YARN's application type of this framework's jobs: MAPREDUCE, SPARK, TEZ. */
  String appType();

  /** Writes the input files {@code jobs} read, before any cluster starts. */
  void prepareInputs(List<TraceJob> jobs, HiBenchInputs inputs) throws IOException;

  /** The cluster's configuration with what this framework's jobs need added. */
  default Configuration clusterConf(Configuration conf) throws IOException {
    return conf;
  }

  /** A submitter on a started cluster; {@code work} is the run's scratch directory. */
  Submitter open(ShepherdCluster cluster, File work, HiBenchInputs inputs) throws Exception;

  /** Runs one job. */
  interface Submitter {
    /**
     * Submits {@code job} as its user, to its queue, with the application tag
     * {@link TraceJob#tag()}, and waits for it; true when it succeeded.
     */
    boolean run(TraceJob job) throws Exception;
  }
}
