package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeAttribute;
import org.apache.hadoop.yarn.api.records.NodeAttributeType;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;

/**
 * Placement constraints from a real, unmodified Hadoop AM (issue 14 item 1):
 * DistributedShell with {@code -placement_spec} sends its containers as
 * SchedulingRequests with allocation tags and node-scope constraints
 * through {@code allocate}; the engine matches them (Megha's bit-vectors at
 * the filter point) and the shim tags the containers it places.
 *
 * <p>The spec {@code zk(2),notin,node,zk:db(1):web(2),in,node,db} on two
 * NodeManagers: the two zk containers must land on different nodes
 * (anti-affinity), the two web containers on the node of the db container
 * (affinity; each node has room for all five, so only the constraints
 * decide). The containers' tags and nodes are read from the RM while they
 * run; the app must succeed. YARN's own AllocationTagsManager must count the
 * tags the shim sets.
 *
 * <p>A second run asks for a node attribute the operator sets only while the
 * asks wait ({@link #nodeAttributeConstraintWaitsForTheAttribute}).
 */
public class PlacementConstraintsTest {
  private static ShepherdCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    // Centralised node attributes persist in a store; a fresh one per run,
    // so no attribute survives from an earlier run (the default is in /tmp).
    String attributeStore = Files.createTempDirectory("shepherd-it-attributes").toUri().toString();
    cluster = ShepherdCluster.start("placement", "[scheduler]\npolicy = \"drf\"\n", conf -> {
      // YARN's default handler (disabled) rejects every SchedulingRequest;
      // "scheduler" hands them to the scheduler, as yarn-site-shepherd.xml does.
      conf.set(YarnConfiguration.RM_PLACEMENT_CONSTRAINTS_HANDLER,
          YarnConfiguration.SCHEDULER_RM_PLACEMENT_CONSTRAINTS_HANDLER);
      conf.set(YarnConfiguration.FS_NODE_ATTRIBUTE_STORE_ROOT_DIR, attributeStore);
      // Room on either node for the AM and all five containers, vcores
      // included (1 each; the default 4 per node would leave db's node no
      // room for both web containers when the AM also runs there, and only
      // the constraints must decide).
      conf.setInt(YarnConfiguration.NM_VCORES, 8);
    });
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 300_000)
  public void distributedShellConstraintsAreHonoured() throws Exception {
    // Most zk containers YARN's own tag index counted at once, over all nodes.
    long[] zkInYarnsIndex = {0};
    Map<String, Map<String, NodeId>> placed = runShell("placement-constraints",
        "zk(2),notin,node,zk:db(1):web(2),in,node,db", "sleep 6", shell ->
            zkInYarnsIndex[0] = Math.max(zkInYarnsIndex[0],
                DistributedShell.countedByYarn(cluster.rm(), "zk")));

    System.out.println("PlacementConstraintsTest placed (tag -> container -> node): " + placed);
    Map<String, NodeId> zk = placed.getOrDefault("zk", Map.of());
    Map<String, NodeId> db = placed.getOrDefault("db", Map.of());
    Map<String, NodeId> web = placed.getOrDefault("web", Map.of());
    assertEquals("both zk containers seen: " + placed, 2, zk.size());
    assertEquals("the db container seen: " + placed, 1, db.size());
    assertEquals("both web containers seen: " + placed, 2, web.size());
    NodeId[] zkNodes = zk.values().toArray(new NodeId[0]);
    assertNotEquals("zk(2),notin,node,zk: one zk per node " + placed, zkNodes[0], zkNodes[1]);
    NodeId dbNode = db.values().iterator().next();
    for (NodeId n : web.values()) {
      assertEquals("web(2),in,node,db: web beside db " + placed, dbNode, n);
    }
    // The tags the shim sets on the containers it places reach YARN's own
    // AllocationTagsManager (RMContainerImpl books them when the container
    // starts), which other RM components and a later CapacityScheduler read.
    assertEquals("YARN's AllocationTagsManager counted both zk containers", 2, zkInYarnsIndex[0]);
    assertEquals("nothing fell back to the safe FIFO", 0, cluster.scheduler().getFallbackAllocations());
    assertEquals("the engine never failed", 0, cluster.scheduler().getEngineFailures());
  }

  /**
   * A node-attribute constraint from a real AM, against attributes an
   * operator sets at run time (centralised, prefix {@code rm.yarn.io}, as
   * {@code yarn nodeattributes -replace} sets them). YARN's rule: such a constraint is
   * hard, and the ask waits until a node satisfies it.
   *
   * <p>The minicluster's NodeManagers share one host name, and YARN keys
   * attributes by host, so both nodes always carry the same attributes: the
   * test cannot ask for one node over the other. It checks the other half:
   * with {@code java=1.7} on the host the {@code java=1.8} asks get no
   * container while they are pending, and once the operator sets
   * {@code java=1.8} they are placed and the app succeeds.
   */
  @Test(timeout = 300_000)
  public void nodeAttributeConstraintWaitsForTheAttribute() throws Exception {
    String host = cluster.rm().getRMContext().getRMNodes().keySet().iterator().next().getHost();
    setJava(host, "1.7");
    ShepherdScheduler s = cluster.scheduler();
    long fallbackBefore = s.getFallbackAllocations();
    boolean[] sawPending = {false};
    boolean[] placedWhileUnsatisfied = {false};
    boolean[] attributeSet = {false};
    long[] pendingSince = {0};
    Map<String, Map<String, NodeId>> placed = runShell("attribute-constraint",
        "web(2),rm.yarn.io/java=1.8", "sleep 3", shell -> {
          int pending = shell.pending();
          Map<String, Map<String, NodeId>> live = new HashMap<>();
          shell.recordTagged(live);
          if (attributeSet[0]) {
            return;
          }
          if (live.containsKey("web")) {
            placedWhileUnsatisfied[0] = true;
          }
          if (pending >= 2 && !sawPending[0]) {
            sawPending[0] = true;
            pendingSince[0] = System.nanoTime();
          }
          // The asks have been pending for several NodeManager heartbeats
          // (1 s each) and scheduling passes: now satisfy them.
          if (sawPending[0] && System.nanoTime() - pendingSince[0] > TimeUnit.SECONDS.toNanos(5)) {
            setJava(host, "1.8");
            attributeSet[0] = true;
          }
        });
    System.out.println("PlacementConstraintsTest attribute placements: " + placed);
    assertTrue("the AM's two java=1.8 asks were seen pending", sawPending[0]);
    assertFalse("no web container while the host had java=1.7", placedWhileUnsatisfied[0]);
    assertTrue("the attribute was set while the asks waited", attributeSet[0]);
    assertEquals("both web containers ran once the host had java=1.8: " + placed,
        2, placed.getOrDefault("web", Map.of()).size());
    assertEquals("nothing fell back to the safe FIFO", fallbackBefore, s.getFallbackAllocations());
    assertEquals("the engine never failed", 0, s.getEngineFailures());
  }

  /**
   * Replaces the host's centralised attributes with {@code java=value}, as
   * {@code yarn nodeattributes -replace host:java=value} does (the admin
   * service hands it to the same manager).
   */
  private static void setJava(String host, String value) throws Exception {
    cluster.rm().getRMContext().getNodeAttributesManager().replaceNodeAttributes(
        NodeAttribute.PREFIX_CENTRALIZED, Map.of(host, Set.of(NodeAttribute.newInstance(
            NodeAttribute.PREFIX_CENTRALIZED, "java", NodeAttributeType.STRING, value))));
  }

  /** What a test checks on every poll while DistributedShell runs. */
  private interface Sampler {
    void sample(DistributedShell shell) throws Exception;
  }

  /**
   * Runs DistributedShell to completion with {@code spec}, calling
   * {@code sample} every 200 ms while it runs; returns tag -> container ->
   * node for every tagged container seen live. Asserts the app succeeded.
   */
  private static Map<String, Map<String, NodeId>> runShell(String name, String spec,
      String command, Sampler sample) throws Exception {
    try (DistributedShell shell = new DistributedShell(cluster, name, spec, command)) {
      Map<String, Map<String, NodeId>> placed = new HashMap<>();
      while (!shell.run.isDone()) {
        shell.recordTagged(placed);
        sample.sample(shell);
        Thread.sleep(200);
      }
      assertTrue(name + ": DistributedShell succeeded (its containers all ran and exited 0)",
          shell.run.get(0, TimeUnit.SECONDS));
      assertEquals(FinalApplicationStatus.SUCCEEDED,
          shell.reports().get(0).getFinalApplicationStatus());
      return placed;
    }
  }
}
