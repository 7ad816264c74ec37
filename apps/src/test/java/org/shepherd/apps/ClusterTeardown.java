package org.shepherd.apps;

import java.io.File;
import java.util.concurrent.ExecutorService;
import org.apache.hadoop.fs.FileUtil;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;

/** How the apps tests end a class-level cluster: one place for the Spark and the Tez tests. */
final class ClusterTeardown {
  private ClusterTeardown() {
  }

  /**
   * Stops {@code background}, prints the engine's and the RM's container
   * counts, stops {@code cluster} and deletes {@code workDir} (unless
   * {@code -Dshepherd.keep.workdir=true}); any of them may be null.
   */
  static void stop(ExecutorService background, ShepherdCluster cluster, File workDir) {
    try {
      if (background != null) {
        background.shutdownNow();
      }
      if (cluster != null) {
        ShepherdScheduler s = cluster.scheduler();
        System.out.println("engine allocations " + s.getEngineAllocations()
            + ", containers allocated by the RM "
            + s.getRootQueueMetrics().getAggregateAllocatedContainers()
            + ", fallback " + s.getFallbackAllocations()
            + ", engine failures " + s.getEngineFailures());
        cluster.close();
      }
    } finally {
      if (workDir != null && !Boolean.getBoolean("shepherd.keep.workdir")) {
        FileUtil.fullyDelete(workDir);
      }
    }
  }
}
