package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;

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
 */
public class HaFailoverTest {
  private static MiniYARNCluster cluster;
  private static Configuration conf;
  private static final HAServiceProtocol.StateChangeRequestInfo BY_USER =
      new HAServiceProtocol.StateChangeRequestInfo(RequestSource.REQUEST_BY_USER);

  @BeforeClass
  public static void startCluster() throws Exception {
    File work = Files.createTempDirectory("shepherd-it-ha").toFile();
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

    cluster = new MiniYARNCluster("ha", 2, ShepherdCluster.NODE_MANAGERS, 1, 1);
    cluster.init(conf);
    cluster.start();
    rm(0).getRMContext().getRMAdminService().transitionToActive(BY_USER);
    assertTrue("NodeManagers registered with rm0", cluster.waitForNodeManagersToConnect(120_000));
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.stop();
    }
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
          job.setConf(new JobConf(jobConf));
          return job.createJob(2, 1, 90_000, 1, 1_000, 1).waitForCompletion(false);
        }));
      }
      Set<ContainerId> before = RecoveryChecks.awaitRunning(rm(0), 7);
      long allocatedBefore = ((ShepherdScheduler) rm(0).getResourceScheduler())
          .getEngineAllocations();

      rm(0).getRMContext().getRMAdminService().transitionToStandby(BY_USER);
      rm(1).getRMContext().getRMAdminService().transitionToActive(BY_USER);
      assertEquals("rm1 is active", 1, cluster.getActiveRMIndex());
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
