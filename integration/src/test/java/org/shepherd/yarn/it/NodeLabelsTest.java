package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * Node labels changed at run time (YARN's {@code rmadmin -replaceLabelsOnNode},
 * here through the RM's label manager) reach the engine on the node's next
 * heartbeat: a node put into an exclusive partition takes no unlabelled asks
 * (YARN's partition rule, the engine's filter), and takes them again once its
 * label is removed.
 *
 * <p>Each NodeManager has 4 GiB: the MapReduce AM (1.5 GiB) and five 512 MiB
 * maps fill one, so an 8-map SleepJob needs the second node whenever the
 * scheduler may use it. The containers on each node are sampled from YARN's
 * nodes while the job runs.
 */
public class NodeLabelsTest {
  private static ShepherdCluster cluster;
  private static final int MAPS = 8;

  @BeforeClass
  public static void startCluster() throws Exception {
    String store = Files.createTempDirectory("shepherd-it-labels").toUri().toString();
    cluster = ShepherdCluster.start("labels", "[scheduler]\npolicy = \"drf\"\n", conf -> {
      conf.setBoolean(YarnConfiguration.NODE_LABELS_ENABLED, true);
      conf.set(YarnConfiguration.FS_NODE_LABELS_STORE_ROOT_DIR, store);
    });
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 300_000)
  public void relabelledNodesMovePartition() throws Exception {
    ShepherdScheduler s = cluster.scheduler();
    List<NodeId> nodes = new ArrayList<>(cluster.rm().getRMContext().getRMNodes().keySet());
    assertEquals(ShepherdCluster.NODE_MANAGERS, nodes.size());
    nodes.sort(Comparator.comparing(NodeId::toString));
    NodeId gpu = nodes.get(0);
    NodeId plain = nodes.get(1);
    RMNodeLabelsManager labels = cluster.rm().getRMContext().getNodeLabelManager();
    labels.addToCluserNodeLabelsWithDefaultExclusivity(Set.of("gpu"));

    labels.replaceLabelsOnNode(Map.of(gpu, Set.of("gpu")));
    waitFor("the scheduler's node carries the label",
        () -> s.getSchedulerNode(gpu).getLabels().contains("gpu"));
    assertPartitions(s, gpu, "gpu");
    int[] peak = runSampling(gpu, plain, "alice");
    assertEquals("an exclusive gpu node took no unlabelled container", 0, peak[0]);
    assertTrue("the unlabelled node ran the job", peak[1] > 0);

    labels.replaceLabelsOnNode(Map.of(gpu, Set.of()));
    waitFor("the label is gone", () -> s.getSchedulerNode(gpu).getLabels().isEmpty());
    assertPartitions(s, gpu, "");
    peak = runSampling(gpu, plain, "bob");
    assertTrue("unlabelled again, the node takes unlabelled containers", peak[0] > 0);

    assertEquals("nothing fell back to the safe FIFO", 0, s.getFallbackAllocations());
    assertEquals("the engine never failed", 0, s.getEngineFailures());
  }

  /**
   * YARN's node tracker lists the node under its new partition and no longer
   * under the other one: removing a node looks it up there (a stale list made
   * the NodeManager's removal throw, found by YARN's TestClientRMService).
   */
  private static void assertPartitions(ShepherdScheduler s, NodeId node, String partition) {
    String other = partition.isEmpty() ? "gpu" : "";
    assertTrue("the tracker lists " + node + " under '" + partition + "'",
        s.getNodeTracker().getNodesPerPartition(partition).stream()
            .anyMatch(n -> n.getNodeID().equals(node)));
    assertTrue("the tracker no longer lists " + node + " under '" + other + "'",
        s.getNodeTracker().getNodesPerPartition(other).stream()
            .noneMatch(n -> n.getNodeID().equals(node)));
  }

  /** Runs an 8-map SleepJob; returns the most containers seen at once on each node. */
  private static int[] runSampling(NodeId gpu, NodeId plain, String user) throws Exception {
    ShepherdScheduler s = cluster.scheduler();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Boolean> job = pool.submit(() ->
          Workloads.sleep(cluster.jobConf(), user, "default", MAPS, 0, 3_000, 0));
      int[] peak = new int[2];
      while (!job.isDone()) {
        peak[0] = Math.max(peak[0], s.getSchedulerNode(gpu).getNumContainers());
        peak[1] = Math.max(peak[1], s.getSchedulerNode(plain).getNumContainers());
        Thread.sleep(100);
      }
      assertTrue("the SleepJob of " + user + " succeeded", job.get());
      return peak;
    } finally {
      pool.shutdownNow();
    }
  }

  private static void waitFor(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!done.getAsBoolean()) {
      assertTrue("timed out waiting: " + what, System.nanoTime() < deadline);
      Thread.sleep(50);
    }
  }
}
