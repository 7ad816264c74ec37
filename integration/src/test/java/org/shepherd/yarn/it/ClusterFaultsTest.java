package org.shepherd.yarn.it;

import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.TypeConverter;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.client.ClientRMProxy;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.cli.RMAdminCLI;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.ResourceManagerAdministrationProtocol;
import org.apache.hadoop.yarn.server.api.protocolrecords.RefreshQueuesRequest;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.apache.hadoop.yarn.server.nodemanager.NodeStatusUpdaterImpl;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;
import org.shepherd.yarn.ShepherdScheduler;

/**
 * Cluster faults under a running job (issue 15 item 3), on one real cluster
 * of three NodeManagers with Shepherd as the RM's scheduler: a NodeManager
 * lost mid-job (it stops heartbeating and the RM expires it), an MR
 * ApplicationMaster whose attempt fails and is retried, and a Shepherd config
 * file that is unreadable when {@code yarn rmadmin -refreshQueues} runs. Each
 * test prints its figures on one line.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class ClusterFaultsTest {
  static final int NODE_MANAGERS = 3;
  /** NM liveness expiry, short so a lost node is noticed within the test. */
  static final long EXPIRY_MS = 10_000;
  static final String CONFIG = String.join("\n",
      "[scheduler]",
      "policy = \"composed\"",
      "[[queue]]",
      "name = \"default\"",
      "capacity = 1.0",
      "");

  private static ShepherdCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    File workDir = Files.createTempDirectory("shepherd-it-clusterfaults").toFile();
    Configuration conf = ShepherdCluster.baseConf(CONFIG, workDir);
    conf.setLong(YarnConfiguration.RM_NM_EXPIRY_INTERVAL_MS, EXPIRY_MS);
    // The MR AM stops a lost node's containers before it reruns their tasks;
    // by default it retries the dead NodeManager for 3 minutes first.
    conf.setLong(YarnConfiguration.CLIENT_NM_CONNECT_MAX_WAIT_MS, 5_000);
    conf.setLong(YarnConfiguration.CLIENT_NM_CONNECT_RETRY_INTERVAL_MS, 1_000);
    // A stopping NodeManager (the lost one, then all at the end) waits
    // sigkill delay + process-kill wait + 1 s for its apps (6.25 s by default).
    conf.setLong(YarnConfiguration.NM_PROCESS_KILL_WAIT_MS, 1_000);
    cluster = ShepherdCluster.start("clusterfaults", conf, NODE_MANAGERS, workDir);
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * An AM attempt fails (YarnClient#failApplicationAttempt, as an operator or
   * a lost AM container would): the RM starts attempt 2, whose AM container
   * the engine places; the engine drops attempt 1's containers and the job
   * SUCCEEDED.
   */
  @Test(timeout = 300_000)
  public void amAttemptFailsAndTheRetrySucceeds() throws Exception {
    ResourceManager rm = cluster.rm();
    ShepherdScheduler s = cluster.scheduler();
    long fallbackBefore = s.getFallbackAllocations();
    Job job = Workloads.submitSleep(cluster.jobConf(), "alice", "default", 1, 0, 3_000, 0);
    ApplicationId appId = TypeConverter.toYarn(job.getJobID()).getAppId();
    RMApp app = rm.getRMContext().getRMApps().get(appId);
    // Attempt 1 registered and asked for its maps: fail it mid-job.
    await("attempt 1 running with task containers", 120_000, () ->
        app.getCurrentAppAttempt().getAppAttemptState() == RMAppAttemptState.RUNNING
            && liveContainers(rm, app.getCurrentAppAttempt().getAppAttemptId()) > 1);
    ApplicationAttemptId first = app.getCurrentAppAttempt().getAppAttemptId();
    long engineBefore = s.getEngineAllocations();
    try (YarnClient client = cluster.yarnClient()) {
      client.failApplicationAttempt(first);
    }
    await("attempt 2 has its AM container", 120_000, () -> {
      RMAppAttempt a = app.getCurrentAppAttempt();
      return a.getAppAttemptId().getAttemptId() == 2 && a.getMasterContainer() != null;
    });
    ApplicationAttemptId second = app.getCurrentAppAttempt().getAppAttemptId();
    // The engine follows: attempt 2, none of attempt 1's containers left
    // (in the RM or the engine's count of the app's running containers).
    await("engine sees attempt 2 and only its containers", 60_000, () -> {
      JsonNode e = cluster.engineApp(appId);
      return e != null && e.path("attempt").asInt() == 2 && liveContainers(rm, first) == 0
          && e.path("running_containers").asInt() == liveContainers(rm, second);
    });
    long engineAfterAm2 = s.getEngineAllocations();
    assertTrue("job SUCCEEDED after its AM attempt failed", job.waitForCompletion(false));
    assertEquals("two attempts", 2, app.getAppAttempts().size());
    assertTrue("the engine placed attempt 2's AM container: engine allocations "
        + engineBefore + " -> " + engineAfterAm2, engineAfterAm2 > engineBefore);
    assertEquals("no fallback allocations", fallbackBefore, s.getFallbackAllocations());
    awaitEngineEmpty();
    System.out.printf("am-retry: job SUCCEEDED, attempts=%d, am2=%s on %s, engine allocations"
        + " for attempt 2 (AM and its map)=%d, fallback allocations=0%n",
        app.getAppAttempts().size(), app.getAppAttempts().get(second).getMasterContainer().getId(),
        app.getAppAttempts().get(second).getMasterContainer().getNodeId(),
        s.getEngineAllocations() - engineBefore);
  }

  /**
   * A NodeManager with maps on it stops heartbeating (and its containers
   * die with it) mid-job: the RM expires it after {@link #EXPIRY_MS}, the
   * engine drops the node and every container on it, no remaining node is
   * allocated beyond its capacity, and the job SUCCEEDED with the lost maps
   * rerun.
   */
  @Test(timeout = 300_000)
  public void nodeManagerLostMidJob() throws Exception {
    ResourceManager rm = cluster.rm();
    ShepherdScheduler s = cluster.scheduler();
    assertEquals("all NodeManagers up", NODE_MANAGERS, liveNodes(rm));
    int maps = 6;
    Job job;
    NodeId victim;
    String violation;
    try (RecoveryChecks.Watcher watcher = new RecoveryChecks.Watcher(rm)) {
      job = Workloads.submitSleep(cluster.jobConf(), "bob", "default", maps, 0, 8_000, 0);
      ApplicationId appId = TypeConverter.toYarn(job.getJobID()).getAppId();
      RMApp app = rm.getRMContext().getRMApps().get(appId);
      NodeId[] found = new NodeId[1];
      await("a running map on a node without the AM", 120_000, () -> {
        RMAppAttempt a = app.getCurrentAppAttempt();
        if (a == null || a.getMasterContainer() == null) {
          return false;
        }
        NodeId amNode = a.getMasterContainer().getNodeId();
        for (RMNode n : rm.getRMContext().getRMNodes().values()) {
          SchedulerNode sn = s.getSchedulerNode(n.getNodeID());
          if (n.getNodeID().equals(amNode) || sn == null) {
            continue;
          }
          for (RMContainer c : sn.getCopiedListOfRunningContainers()) {
            if (c.getApplicationAttemptId().getApplicationId().equals(appId)
                && c.getState() == org.apache.hadoop.yarn.server.resourcemanager.rmcontainer
                    .RMContainerState.RUNNING) {
              found[0] = n.getNodeID();
              return true;
            }
          }
        }
        return false;
      });
      victim = found[0];
      long lostAt = System.currentTimeMillis();
      loseNodeManager(victim);
      await(victim + " expired as LOST", EXPIRY_MS + 60_000, () -> {
        RMNode n = rm.getRMContext().getInactiveRMNodes().get(victim);
        return n != null && n.getState() == NodeState.LOST;
      });
      long noticedMs = System.currentTimeMillis() - lostAt;
      // The engine's view: two nodes, their capacity, and exactly the
      // containers the RM still runs (none on the lost node).
      long nodeMemory = cluster.conf.getLong(YarnConfiguration.NM_PMEM_MB, 0);
      await("engine drops the lost node and its containers", 30_000, () -> {
        JsonNode c = cluster.engineState().path("cluster");
        return c.path("nodes").asInt() == NODE_MANAGERS - 1
            && c.path("capacity").path(0).asLong() == (NODE_MANAGERS - 1) * nodeMemory
            && c.path("containers").asInt() == rmLiveContainers(rm);
      });
      assertNull("the scheduler forgot " + victim, s.getSchedulerNode(victim));
      assertTrue("job SUCCEEDED after losing " + victim, job.waitForCompletion(false));
      violation = watcher.violation();
      long launched = job.getCounters().findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue();
      long killed = job.getCounters().findCounter(JobCounter.NUM_KILLED_MAPS).getValue();
      long failed = job.getCounters().findCounter(JobCounter.NUM_FAILED_MAPS).getValue();
      awaitEngineEmpty();
      System.out.printf("nm-lost: job SUCCEEDED, maps=%d launched=%d rerun=%d (attempts"
          + " killed=%d failed=%d), node %s expired as LOST after %d ms (expiry %d ms), engine nodes %d -> %d,"
          + " over-allocation: %s%n", maps, launched, launched - maps, killed, failed, victim,
          noticedMs, EXPIRY_MS, NODE_MANAGERS, NODE_MANAGERS - 1,
          violation == null ? "none" : violation);
    }
    assertNull("no node allocated beyond its capacity, no container twice", violation);
  }

  /**
   * Shepherd's config file is gone, or a directory, when
   * {@code yarn rmadmin -refreshQueues} runs: the refresh fails naming the
   * config key and path, the RM keeps scheduling with the config in force (a
   * job submitted then SUCCEEDED), and once the file is back a refresh
   * applies it (its new queue appears).
   */
  @Test(timeout = 300_000)
  public void unreadableConfigIsRefusedAtRefreshQueues() throws Exception {
    ShepherdScheduler s = cluster.scheduler();
    File toml = new File(cluster.conf.get(ShepherdScheduler.CONFIG_FILE));
    byte[] original = Files.readAllBytes(toml.toPath());
    int refused = 0;
    try {
      Files.delete(toml.toPath());
      assertRefreshRefused(toml);
      refused++;
      assertTrue(toml.mkdir());
      assertRefreshRefused(toml);
      refused++;
      assertEquals("yarn rmadmin -refreshQueues exits non-zero", -1,
          new RMAdminCLI(new YarnConfiguration(cluster.conf))
              .run(new String[] {"-refreshQueues"}));
      assertTrue("a job submitted with the old config in force SUCCEEDED",
          Workloads.sleep(cluster.jobConf(), "alice", "default", 1, 0, 200, 0));
    } finally {
      if (toml.isDirectory()) {
        Files.delete(toml.toPath());
      }
    }
    String restored = new String(original, StandardCharsets.UTF_8)
        .replace("capacity = 1.0", "capacity = 0.7")
        + "[[queue]]\nname = \"later\"\ncapacity = 0.3\n";
    Files.write(toml.toPath(), restored.getBytes(StandardCharsets.UTF_8));
    refreshQueues();
    assertNotNull("the restored config's new queue", s.getQueueInfo("later", false, false));
    assertTrue("the engine applied it", s.getEngineStateJson().contains("\"name\":\"later\""));
    // Leave the class's config as it was.
    Files.write(toml.toPath(), original);
    refreshQueues();
    System.out.printf("config-unreadable: refreshQueues refused=%d (deleted, directory),"
        + " jobs SUCCEEDED with the old config=1, refresh after restore applied=1%n", refused);
  }

  private static void assertRefreshRefused(File toml) throws Exception {
    try {
      refreshQueues();
      fail("-refreshQueues must fail while " + toml + " is unreadable");
    } catch (Exception e) {
      String msg = String.valueOf(e.getMessage());
      assertTrue(msg, msg.contains(ShepherdScheduler.CONFIG_FILE));
      assertTrue(msg, msg.contains(toml.getAbsolutePath()));
    }
  }

  /** {@code yarn rmadmin -refreshQueues} over the RM's admin RPC. */
  private static void refreshQueues() throws Exception {
    ResourceManagerAdministrationProtocol admin = ClientRMProxy.createRMProxy(cluster.conf,
        ResourceManagerAdministrationProtocol.class);
    try {
      admin.refreshQueues(RefreshQueuesRequest.newInstance());
    } finally {
      RPC.stopProxy(admin);
    }
  }

  /**
   * The NodeManager on {@code node} dies without a word to the RM: its
   * heartbeats stop and it does not unregister (NodeStatusUpdaterImpl skips
   * unRegisterNM once stopped), then it shuts down, killing its containers.
   * The RM learns of it only by the liveness expiry, as for a crashed host.
   */
  private static void loseNodeManager(NodeId node) throws Exception {
    for (int i = 0; i < NODE_MANAGERS; i++) {
      NodeManager nm = cluster.cluster.getNodeManager(i);
      if (nm.getNMContext().getNodeId().equals(node)) {
        Field stopped = NodeStatusUpdaterImpl.class.getDeclaredField("isStopped");
        stopped.setAccessible(true);
        stopped.setBoolean(nm.getNodeStatusUpdater(), true);
        nm.stop();
        return;
      }
    }
    fail("no NodeManager runs " + node);
  }

  private static int liveNodes(ResourceManager rm) {
    return rm.getRMContext().getRMNodes().size();
  }

  private static int liveContainers(ResourceManager rm, ApplicationAttemptId attempt) {
    int n = 0;
    for (NodeId id : rm.getRMContext().getRMNodes().keySet()) {
      SchedulerNode sn = cluster.scheduler().getSchedulerNode(id);
      if (sn == null) {
        continue;
      }
      for (RMContainer c : sn.getCopiedListOfRunningContainers()) {
        if (c.getApplicationAttemptId().equals(attempt)) {
          n++;
        }
      }
    }
    return n;
  }

  private static int rmLiveContainers(ResourceManager rm) {
    int n = 0;
    for (NodeId id : rm.getRMContext().getRMNodes().keySet()) {
      SchedulerNode sn = cluster.scheduler().getSchedulerNode(id);
      n += sn == null ? 0 : sn.getNumContainers();
    }
    return n;
  }

  /** Finished apps leave nothing in the engine: no app, no container. */
  private static void awaitEngineEmpty() throws Exception {
    await("engine holds no finished app or container", 30_000, () -> {
      JsonNode st = cluster.engineState();
      return st.path("apps").size() == 0 && st.path("cluster").path("containers").asInt() == 0;
    });
  }

  private static void await(String what, long timeoutMs, Callable<Boolean> done)
      throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (System.currentTimeMillis() < deadline) {
      try {
        if (done.call()) {
          return;
        }
      } catch (RuntimeException raced) {
        // An app, node or container changed while being read: look again.
      }
      Thread.sleep(100);
    }
    fail("timed out waiting for: " + what + "; engine state " + cluster.scheduler()
        .getEngineStateJson());
  }

}
