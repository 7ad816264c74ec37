package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * Work-preserving ResourceManager restart with Shepherd as the scheduler
 * (issue "Reliability", item 1): a file-system RM state store, three
 * MapReduce SleepJobs from three users with their AMs and maps running, the
 * RM stopped and started again under them. The NodeManagers report their
 * live containers to the new RM; the new shim hands each to a fresh engine
 * as a recovered container; the AMs re-register and ask again; the new
 * engine places the rest (reduces). Checked: every job SUCCEEDED, the new
 * engine learned the recovered containers and made allocations of its own,
 * and while the jobs finished no NodeManager was ever allocated beyond its
 * capacity and no container was live on two nodes (nothing allocated twice).
 */
public class WorkPreservingRestartTest {
  private static ShepherdCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = ShepherdCluster.start("restart", "[scheduler]\npolicy = \"composed\"\n", conf -> {
      try {
        ShepherdCluster.fixedRmPorts(conf, ShepherdCluster.freePort());
        // The state store lives in the cluster's own work directory (where
        // its shepherd.toml is), so close() deletes it with the rest.
        File workDir = new File(conf.get(ShepherdScheduler.CONFIG_FILE)).getParentFile();
        File store = new File(workDir, "rm-store");
        // NodeManagers reach the RM over RPC (MiniYARNCluster's default
        // hands them the first RM's service object, which a restarted RM
        // does not replace): they resync with the new RM as real ones do.
        conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_USE_RPC, true);
        conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
        conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
        conf.set(YarnConfiguration.RM_STORE, FileSystemRMStateStore.class.getName());
        conf.set(YarnConfiguration.FS_RM_STATE_STORE_URI, store.toURI().toString());
        // The new RM waits this long for NodeManagers to report their
        // containers before it lets the scheduler allocate (YARN's default
        // is 10 s; both NMs re-register within a few heartbeats here).
        conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 5_000);
        // NodeManagers and AMs retry the RM every second, not every 30 s
        // (YARN's default), so they resync within seconds of the restart.
        conf.setLong(YarnConfiguration.RESOURCEMANAGER_CONNECT_RETRY_INTERVAL_MS, 1_000);
        // SchedulingRequests go to the scheduler (placementTagsSurviveARestart).
        conf.set(YarnConfiguration.RM_PLACEMENT_CONSTRAINTS_HANDLER,
            YarnConfiguration.SCHEDULER_RM_PLACEMENT_CONSTRAINTS_HANDLER);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 900_000)
  public void jobsSurviveAWorkPreservingRestartAndNothingIsAllocatedTwice() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    List<Future<Boolean>> jobs = new ArrayList<>();
    try {
      // Maps long enough to still run when the NodeManagers resync (they
      // retry the RM every second, see above); a reduce each, which only
      // the new engine can place.
      for (String user : new String[] {"alice", "bob", "carol"}) {
        jobs.add(pool.submit(() ->
            Workloads.sleep(cluster.jobConf(), user, "default", 2, 1, 40_000, 1_000)));
      }
      // Three AMs and at least four maps running on their NodeManagers.
      Set<ContainerId> before = RecoveryChecks.awaitRunning(cluster.rm(), 7);
      long allocatedBefore = cluster.scheduler().getEngineAllocations();

      cluster.stopResourceManager();
      Thread.sleep(2_000);
      cluster.restartResourceManager();
      RecoveryChecks.assertTakeover("restart", cluster.rm(), jobs, before.size(), allocatedBefore);

      JsonNode apps = cluster.rest("/ws/v1/cluster/apps").path("apps").path("app");
      int mapreduce = 0;
      for (JsonNode app : apps) {
        if ("MAPREDUCE".equals(app.path("applicationType").asText())) {
          mapreduce++;
          assertEquals(app.path("id").asText(), "SUCCEEDED", app.path("finalStatus").asText());
        }
      }
      assertEquals("the recovered RM knows all three jobs", 3, mapreduce);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Allocation tags outlive the RM that placed their containers: YARN keeps
   * them in the container token, the NodeManagers report them with the
   * containers they recover, and the new RM's RMContainers and
   * AllocationTagsManager carry them again (the shim also hands them to the
   * fresh engine, as {@code ContainerTags}, for the constraints of asks
   * still to come). DistributedShell's two anti-affine {@code zk}
   * containers run across a restart; the app must still succeed.
   *
   * <p>Then an ask made after the restart: a second app's {@code web}
   * container may not share a node with any app's {@code zk} ({@code
   * notin,node,all/zk}). Each of the two nodes holds a recovered zk, so the
   * new engine must keep it waiting until the first app's containers end,
   * and place it then. An engine that lost the recovered tags would place it
   * at once.
   */
  @Test(timeout = 600_000)
  public void placementTagsSurviveARestart() throws Exception {
    try (DistributedShell shell = new DistributedShell(cluster, "tags-across-restart",
        "zk(2),notin,node,zk", "sleep 45")) {
      Map<String, Map<String, NodeId>> before = new HashMap<>();
      long deadline = System.currentTimeMillis() + 300_000;
      Set<ContainerId> running = Set.of();
      while (zkRunning(before, running) < 2) {
        assertTrue("both zk containers running before the restart: " + before,
            System.currentTimeMillis() < deadline && !shell.run.isDone());
        Thread.sleep(250);
        before.clear();
        shell.recordTagged(before);
        running = RecoveryChecks.runningContainers(cluster.rm());
      }

      cluster.stopResourceManager();
      Thread.sleep(2_000);
      cluster.restartResourceManager();

      Map<String, Map<String, NodeId>> after = new HashMap<>();
      long zkInYarnsIndex = 0;
      deadline = System.currentTimeMillis() + 120_000;
      while (after.getOrDefault("zk", Map.of()).size() < 2 || zkInYarnsIndex < 2) {
        assertTrue("the new RM recovered both zk containers with their tags: " + after
            + ", AllocationTagsManager counts zk " + zkInYarnsIndex,
            System.currentTimeMillis() < deadline && !shell.run.isDone());
        Thread.sleep(250);
        after.clear();
        shell.recordTagged(after);
        zkInYarnsIndex = DistributedShell.countedByYarn(cluster.rm(), "zk");
      }
      System.out.println("WorkPreservingRestartTest zk before the restart " + before.get("zk")
          + ", recovered " + after.get("zk"));
      assertEquals("the same containers on the same nodes", before.get("zk"), after.get("zk"));

      boolean sawWebWaitBesideZk = false;
      long waitedFrom = 0;
      long waitedUntil = 0;
      Map<String, NodeId> webPlacedBesideZk = new HashMap<>();
      try (DistributedShell avoid = new DistributedShell(cluster, "avoids-recovered-tags",
          "web(1),notin,node,all/zk", "sleep 1")) {
        while (!avoid.run.isDone()) {
          // The web app's containers first, then the zk ones: a zk
          // container only ends after the restart, so one still live at the
          // second read was live at the first too, and a web container on
          // its node then shared the node with it. Read the other way
          // round, a zk container that ended between the reads (and freed
          // its node for the web one, rightly) would look live beside it.
          Map<String, Map<String, NodeId>> web = new HashMap<>();
          avoid.recordTagged(web);
          boolean webPending = avoid.pending() > 0;
          Map<String, Map<String, NodeId>> zk = new HashMap<>();
          shell.recordTagged(zk);
          Map<String, NodeId> zkLive = zk.getOrDefault("zk", Map.of());
          if (zkLive.size() == 2 && !web.containsKey("web") && webPending) {
            sawWebWaitBesideZk = true;
            waitedFrom = waitedFrom == 0 ? System.currentTimeMillis() : waitedFrom;
            waitedUntil = System.currentTimeMillis();
          }
          for (Map.Entry<String, NodeId> w : web.getOrDefault("web", Map.of()).entrySet()) {
            if (zkLive.containsValue(w.getValue())) {
              webPlacedBesideZk.put(w.getKey(), w.getValue());
            }
          }
          Thread.sleep(200);
        }
        assertTrue("the web app succeeded once the zk containers ended",
            avoid.run.get(0, TimeUnit.SECONDS));
        System.out.printf("WorkPreservingRestartTest web (notin,node,all/zk) seen waiting beside"
            + " the recovered zk for %.1f s; placed beside one: %s%n",
            (waitedUntil - waitedFrom) / 1000.0, webPlacedBesideZk);
      }
      assertTrue("the web ask was seen waiting while both recovered zk containers ran",
          sawWebWaitBesideZk);
      assertEquals("no web container beside a recovered zk", Map.of(), webPlacedBesideZk);
      assertTrue("DistributedShell succeeded across the restart", shell.run.get(300, TimeUnit.SECONDS));
      assertEquals(FinalApplicationStatus.SUCCEEDED, shell.reports().get(0).getFinalApplicationStatus());
    }
  }

  /** How many of the tagged zk containers have started on their NodeManagers. */
  private static int zkRunning(Map<String, Map<String, NodeId>> tagged, Set<ContainerId> running) {
    int n = 0;
    for (String id : tagged.getOrDefault("zk", Map.of()).keySet()) {
      if (running.contains(ContainerId.fromString(id))) {
        n++;
      }
    }
    return n;
  }
}
