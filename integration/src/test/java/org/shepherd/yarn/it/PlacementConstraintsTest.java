package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.applications.distributedshell.ApplicationMaster;
import org.apache.hadoop.yarn.applications.distributedshell.Client;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
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
 * run; the app must succeed.
 */
public class PlacementConstraintsTest {
  private static ShepherdCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = ShepherdCluster.start("placement", "[scheduler]\npolicy = \"drf\"\n", conf ->
        // YARN's default handler (disabled) rejects every SchedulingRequest;
        // "scheduler" hands them to the scheduler, as yarn-site-shepherd.xml does.
        conf.set(YarnConfiguration.RM_PLACEMENT_CONSTRAINTS_HANDLER,
            YarnConfiguration.SCHEDULER_RM_PLACEMENT_CONSTRAINTS_HANDLER));
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 300_000)
  public void distributedShellConstraintsAreHonoured() throws Exception {
    // The AM is a separate JVM launched by a NodeManager. On a minicluster
    // the DistributedShell client puts this JVM's class path on the AM's;
    // the AM reads the RM's address from a yarn-site.xml found on it.
    File confDir = new File(cluster.workDir, "ds-conf");
    assertTrue(confDir.mkdirs() || confDir.isDirectory());
    try (OutputStream out = new FileOutputStream(new File(confDir, "yarn-site.xml"))) {
      cluster.conf.writeXml(out);
    }
    String classPath = System.getProperty("java.class.path");
    System.setProperty("java.class.path", confDir.getAbsolutePath() + File.pathSeparator + classPath);
    String amJar = new File(ApplicationMaster.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI()).getAbsolutePath();

    Client client = new Client(new Configuration(cluster.conf));
    assertTrue(client.init(new String[] {
        "--jar", amJar,
        "--shell_command", "sleep 6",
        "--placement_spec", "zk(2),notin,node,zk:db(1):web(2),in,node,db",
        "--master_memory", "512",
        "--container_memory", "256",
        "--appname", "placement-constraints",
    }));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Boolean> run = pool.submit(client::run);
      // Tag -> nodes of the tagged containers seen live, per container.
      Map<String, Map<String, NodeId>> placed = new HashMap<>();
      ShepherdScheduler s = cluster.scheduler();
      while (!run.isDone()) {
        for (ApplicationReport r : cluster.yarnClient().getApplications()) {
          ApplicationAttemptId attempt = r.getCurrentApplicationAttemptId();
          SchedulerApplicationAttempt a = attempt == null ? null : s.getApplicationAttempt(attempt);
          if (a == null) {
            continue;
          }
          for (RMContainer c : a.getLiveContainers()) {
            if (c.getAllocationTags() == null) {
              continue;
            }
            for (String tag : c.getAllocationTags()) {
              placed.computeIfAbsent(tag, t -> new HashMap<>())
                  .put(c.getContainerId().toString(), c.getAllocatedNode());
            }
          }
        }
        Thread.sleep(200);
      }
      assertTrue("DistributedShell succeeded (its containers all ran and exited 0)",
          run.get(0, TimeUnit.SECONDS));
      ApplicationReport report = cluster.yarnClient().getApplications().stream()
          .filter(r -> r.getName().equals("placement-constraints")).findFirst().get();
      assertEquals(FinalApplicationStatus.SUCCEEDED, report.getFinalApplicationStatus());

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
      assertEquals("nothing fell back to the safe FIFO", 0, s.getFallbackAllocations());
      assertEquals("the engine never failed", 0, s.getEngineFailures());
    } finally {
      System.setProperty("java.class.path", classPath);
      pool.shutdownNow();
    }
  }
}
