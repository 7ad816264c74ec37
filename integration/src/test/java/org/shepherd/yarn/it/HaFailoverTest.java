package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ha.HAServiceProtocol;
import org.apache.hadoop.ha.HAServiceProtocol.RequestSource;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.SleepJob;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.recovery.FileSystemRMStateStore;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * ResourceManager HA failover with Shepherd in both RMs (issue
 * "Reliability", item 2): two RMs sharing a file-system state store, manual
 * failover (no ZooKeeper here), real NodeManagers and MapReduce jobs that
 * reach the RMs through YARN's failover proxies. While three SleepJobs run,
 * the active RM is made standby (its scheduler and engine stop) and the
 * other becomes active, recovers the apps and the NodeManagers' running
 * containers into its own engine and places the rest. Checked as for a
 * restart: every running container recovered, nothing allocated twice or
 * beyond a node, every job SUCCEEDED.
 *
 * <p>The sidecar ({@code shepherd sidecar}, the real binary; path from
 * {@code -Dshepherd.sidecar.binary}, default beside the native library) is
 * given both RMs' web addresses and follows the active one: before the
 * failover its API reports rm0 as the active RM and serves rm0's running
 * jobs, after it rm1 and the same jobs, now read from rm1, and its metrics
 * count the switch ({@code shepherd_sidecar_rm_failovers_total}).
 */
public class HaFailoverTest {
  private static MiniYARNCluster cluster;
  private static Configuration conf;
  private static File work;
  private static SidecarProcess sidecar;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HAServiceProtocol.StateChangeRequestInfo BY_USER =
      new HAServiceProtocol.StateChangeRequestInfo(RequestSource.REQUEST_BY_USER);

  @BeforeClass
  public static void startCluster() throws Exception {
    work = Files.createTempDirectory("shepherd-it-ha").toFile();
    conf = ShepherdCluster.commonConf(4096, 4);
    ShepherdCluster.useShepherd(conf, "[scheduler]\npolicy = \"composed\"\n", work);
    // MapReduce on a plain MiniYARNCluster (MiniMRYarnCluster has one RM).
    conf.set(MRConfig.FRAMEWORK_NAME, MRConfig.YARN_FRAMEWORK_NAME);
    conf.set(MRJobConfig.MR_AM_STAGING_DIR, new File(work, "staging").getAbsolutePath());
    conf.set("fs.permissions.umask-mode", "000");
    conf.setStrings(YarnConfiguration.NM_AUX_SERVICES, ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID);
    conf.setClass(String.format(YarnConfiguration.NM_AUX_SERVICE_FMT,
        ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID), ShuffleHandler.class, Service.class);
    conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
    // Two RMs on fixed loopback addresses, manual failover, one state store.
    conf.setBoolean(YarnConfiguration.RM_HA_ENABLED, true);
    conf.set(YarnConfiguration.RM_HA_IDS, "rm0,rm1");
    conf.setBoolean(YarnConfiguration.AUTO_FAILOVER_ENABLED, false);
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, true);
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_USE_RPC, true);
    for (String id : new String[] {"rm0", "rm1"}) {
      for (String key : new String[] {YarnConfiguration.RM_ADDRESS,
          YarnConfiguration.RM_SCHEDULER_ADDRESS, YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS,
          YarnConfiguration.RM_ADMIN_ADDRESS, YarnConfiguration.RM_WEBAPP_ADDRESS}) {
        conf.set(key + "." + id, "127.0.0.1:" + ShepherdCluster.freePort());
      }
    }
    conf.setBoolean(YarnConfiguration.RECOVERY_ENABLED, true);
    conf.setBoolean(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_ENABLED, true);
    conf.set(YarnConfiguration.RM_STORE, FileSystemRMStateStore.class.getName());
    conf.set(YarnConfiguration.FS_RM_STATE_STORE_URI, new File(work, "rm-store").toURI().toString());
    conf.setLong(YarnConfiguration.RM_WORK_PRESERVING_RECOVERY_SCHEDULING_WAIT_MS, 5_000);
    // Clients, AMs and NodeManagers fail over quickly.
    conf.setLong(YarnConfiguration.CLIENT_FAILOVER_SLEEPTIME_BASE_MS, 200);
    conf.setLong(YarnConfiguration.CLIENT_FAILOVER_SLEEPTIME_MAX_MS, 2_000);

    // The sidecar polls both RMs every 500 ms: keep their request logs out of the output.
    org.apache.log4j.Logger.getLogger("http.requests.resourcemanager")
        .setLevel(org.apache.log4j.Level.WARN);
    cluster = new MiniYARNCluster("ha", 2, ShepherdCluster.NODE_MANAGERS, 1, 1);
    cluster.init(conf);
    cluster.start();
    rm(0).getRMContext().getRMAdminService().transitionToActive(BY_USER);
    assertTrue("NodeManagers registered with rm0", cluster.waitForNodeManagersToConnect(120_000));
    // Two RMs in one JVM: make each RM's web address answer for that RM
    // (its cluster/info says ACTIVE or STANDBY), as separate daemons do.
    for (int i = 0; i < 2; i++) {
      ShepherdCluster.pinWebServerToResourceManager(rm(i));
    }
    startSidecar();
  }

  /** The sidecar with both RMs' web addresses (HA list), polling every 500 ms. */
  private static void startSidecar() throws Exception {
    int port = ShepherdCluster.freePort();
    String cfg = String.join("\n",
        "[server]", "listen = \"127.0.0.1:" + port + "\"",
        "[rm]", "addresses = [\"" + webAddress(0) + "\", \"" + webAddress(1) + "\"]",
        "poll_interval_ms = 500", "timeout_ms = 2000", "backoff_initial_ms = 250",
        "backoff_max_ms = 1000", "stale_after_ms = 3000", "");
    sidecar = SidecarProcess.start(work.toPath(), cfg, port);
  }

  @AfterClass
  public static void stopCluster() throws Exception {
    if (sidecar != null) {
      sidecar.close();
    }
    if (cluster != null) {
      cluster.stop();
    }
  }

  private static String webAddress(int i) {
    return "http://" + conf.get(YarnConfiguration.RM_WEBAPP_ADDRESS + ".rm" + i);
  }

  /** Unfinished MapReduce apps' ids as the sidecar's API serves them. */
  private static Set<String> sidecarJobs() throws IOException {
    Set<String> ids = new TreeSet<>();
    String body = sidecar.get("/api/v1/apps?state=unfinished");
    if (body != null) {
      for (JsonNode a : JSON.readTree(body).path("apps")) {
        ids.add(a.path("id").asText());
      }
    }
    return ids;
  }

  /** The MapReduce apps rm {@code i} has not finished. */
  private static Set<String> rmJobs(int i) {
    Set<String> ids = new TreeSet<>();
    rm(i).getRMContext().getRMApps().values().forEach(a -> {
      if ("MAPREDUCE".equals(a.getApplicationType()) && !EnumSet.of(RMAppState.FINISHED,
          RMAppState.FAILED, RMAppState.KILLED).contains(a.getState())) {
        ids.add(a.getApplicationId().toString());
      }
    });
    return ids;
  }

  /**
   * Waits until the sidecar's {@code /api/v1/status} names rm {@code i} as the
   * active RM (ACTIVE) and its API serves exactly {@code jobs}; prints what
   * it saw. Returns the status.
   */
  private static JsonNode awaitSidecarFollows(int i, Set<String> jobs, String when)
      throws Exception {
    long until = System.currentTimeMillis() + 30_000;
    JsonNode rmStatus = null;
    Set<String> served = null;
    while (System.currentTimeMillis() < until) {
      String body = sidecar.get("/api/v1/status");
      rmStatus = body == null ? null : JSON.readTree(body).path("rm");
      served = sidecarJobs();
      if (rmStatus != null && webAddress(i).equals(rmStatus.path("active_address").asText()
          .replaceAll("/$", "")) && "ACTIVE".equals(rmStatus.path("ha_state").asText())
          && !rmStatus.path("stale").asBoolean() && served.equals(jobs)) {
        System.out.printf("sidecar %s: active RM rm%d %s (%s), serves %d running jobs %s%n",
            when, i, rmStatus.path("active_address").asText(), rmStatus.path("ha_state").asText(),
            served.size(), served);
        return rmStatus;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("sidecar " + when + ": expected rm" + i + " (" + webAddress(i)
        + ") active serving " + jobs + "; status " + rmStatus + ", serves " + served);
  }

  /** The value of the sidecar's series {@code name} (with its labels as written), or NaN. */
  private static double sidecarMetric(String name) {
    return SidecarProcess.metric(sidecar.get("/metrics"), name);
  }

  /** The sidecar's {@code shepherd_sidecar_rm_active} series for rm {@code i}, ACTIVE. */
  private static String activeSeries(int i) {
    return "shepherd_sidecar_rm_active{address=\"" + webAddress(i) + "/\",ha_state=\"ACTIVE\"}";
  }

  private static ResourceManager rm(int i) {
    return cluster.getResourceManager(i);
  }

  @Test(timeout = 900_000)
  public void jobsSurviveAFailoverToTheStandbyRm() throws Exception {
    Configuration clientConf = new YarnConfiguration(cluster.getConfig());
    JobConf jobConf = new JobConf(clientConf);
    jobConf.set("mapreduce.jobhistory.address", "");
    ExecutorService pool = Executors.newFixedThreadPool(3);
    List<Future<Boolean>> jobs = new ArrayList<>();
    try {
      // Submitted as the test's own user: the MR AMs here read their
      // configuration from the job alone, without the proxy-user grants
      // MiniMRYarnCluster makes available to them.
      for (int i = 0; i < 3; i++) {
        jobs.add(pool.submit(() -> {
          SleepJob job = new SleepJob();
          job.setConf(Workloads.ownJobConf(jobConf));
          return job.createJob(2, 1, 45_000, 1, 1_000, 1).waitForCompletion(false);
        }));
      }
      Set<ContainerId> before = RecoveryChecks.awaitRunning(rm(0), 7);
      long allocatedBefore = ((ShepherdScheduler) rm(0).getResourceScheduler())
          .getEngineAllocations();
      Set<String> running = rmJobs(0);
      assertEquals("three jobs run on rm0", 3, running.size());
      awaitSidecarFollows(0, running, "before the failover");
      double failoversBefore = sidecarMetric("shepherd_sidecar_rm_failovers_total");
      assertEquals(activeSeries(0) + " in the sidecar's metrics", 1.0,
          sidecarMetric(activeSeries(0)), 0.0);

      rm(0).getRMContext().getRMAdminService().transitionToStandby(BY_USER);
      rm(1).getRMContext().getRMAdminService().transitionToActive(BY_USER);
      long activeAt = System.currentTimeMillis();
      assertEquals("rm1 is active", 1, cluster.getActiveRMIndex());
      awaitSidecarFollows(1, running, "after the failover");
      long followedMs = System.currentTimeMillis() - activeAt;
      double failovers = sidecarMetric("shepherd_sidecar_rm_failovers_total");
      System.out.printf("sidecar followed rm1 %d ms after it became active (polls every 500 ms);"
          + " metrics: shepherd_sidecar_rm_failovers_total %.0f -> %.0f, %s %.0f%n", followedMs,
          failoversBefore, failovers, activeSeries(1), sidecarMetric(activeSeries(1)));
      assertEquals("the sidecar counted one RM failover", failoversBefore + 1, failovers, 0.0);
      assertEquals(activeSeries(1) + " in the sidecar's metrics", 1.0,
          sidecarMetric(activeSeries(1)), 0.0);
      assertTrue("rm0 is no longer the active series",
          Double.isNaN(sidecarMetric(activeSeries(0))));
      RecoveryChecks.assertTakeover("failover", rm(1), jobs, before.size(), allocatedBefore);

      try (YarnClient client = YarnClient.createYarnClient()) {
        client.init(clientConf);
        client.start();
        int mapreduce = 0;
        for (ApplicationReport r : client.getApplications()) {
          if ("MAPREDUCE".equals(r.getApplicationType())) {
            mapreduce++;
            assertEquals(r.getApplicationId().toString(), FinalApplicationStatus.SUCCEEDED,
                r.getFinalApplicationStatus());
          }
        }
        assertEquals("rm1 knows all three jobs", 3, mapreduce);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
