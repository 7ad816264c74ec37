package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * ROSE on a real cluster (issue 13): speculative containers run on capacity
 * that is allocated but idle. Two NodeManagers of 4 GiB / 4 vcores measure
 * their containers' use. Alice's SleepJob allocates three 2 GiB maps (with
 * its 768 MiB AM, 6.9 of 8 GiB) that sleep; Bob's job then gets its AM in
 * the room left, but its two 1 GiB maps fit nowhere in the allocated view.
 * Only over-subscription runs them before Alice's maps end (it may be
 * Alice's last map that goes speculative and leaves Bob room): the test
 * checks that Bob's job finishes while Alice's maps still run, that the
 * engine placed speculative containers, and that both jobs succeed.
 */
public class RoseOversubscriptionTest {
  private static final String TOML = String.join("\n",
      "[scheduler]",
      "policy = \"rose\"",
      "",
      "[[queue]]",
      "name = \"default\"",
      "capacity = 1.0",
      "",
      "# Two nodes: excluding the K = 3 most penalised would exclude both.",
      "[rose]",
      "top_k = 0",
      "evict_after_ms = 10000",
      "");
  private static ShepherdCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = ShepherdCluster.start("rose", TOML,
        conf -> ShepherdCluster.measureContainerUse(conf, ShepherdCluster.NODE_MANAGERS));
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 300_000)
  public void idleAllocatedCapacityRunsAnotherJobsMaps() throws Exception {
    Job hog = Workloads.submitSleep(sized(2048), "alice", "default", 3, 0, 45_000, 0);
    waitForRunningContainers("alice", 4);

    boolean ok = Workloads.sleep(sized(1024), "bob", "default", 2, 0, 3_000, 0);
    // (A SleepJob map reports progress 1 once it read its one record, before
    // it sleeps: count alice's running containers instead.)
    int hogContainers = runningContainers("alice");
    JsonNode rose = roseState();
    assertTrue("bob's job succeeded", ok);
    assertEquals("bob's job finished while alice's AM and 3 maps still ran: only speculative"
        + " containers had room for its maps; ROSE state " + rose, 4, hogContainers);
    // Which containers went speculative depends on the order of the asks
    // (alice's last map, or bob's maps); without any, bob's maps wait.
    assertTrue("speculative containers were placed: " + rose,
        rose.path("speculative_total").asInt() >= 1);

    assertTrue("alice's job succeeded", Workloads.as("alice", () -> hog.waitForCompletion(false)));
    assertEquals(0, cluster.scheduler().getEngineFailures());
  }

  /** The job configuration with {@code mb} MiB map containers. */
  private static JobConf sized(int mb) {
    JobConf conf = cluster.jobConf();
    conf.setInt(MRJobConfig.MAP_MEMORY_MB, mb);
    conf.set(MRJobConfig.MAP_JAVA_OPTS, "-Xmx" + (mb * 3 / 4) + "m "
        + System.getProperty("shepherd.jdk17.opens", ""));
    return conf;
  }

  private static void waitForRunningContainers(String user, int containers) throws Exception {
    long deadline = System.currentTimeMillis() + 120_000;
    int seen = 0;
    while (System.currentTimeMillis() < deadline) {
      seen = runningContainers(user);
      if (seen >= containers) {
        return;
      }
      Thread.sleep(250);
    }
    fail(user + "'s job never ran " + containers + " containers (last seen " + seen + ")");
  }

  /** Containers the RM reports running for {@code user}'s running apps. */
  private static int runningContainers(String user) throws Exception {
    int n = 0;
    for (JsonNode a : cluster.rest("/ws/v1/cluster/apps?states=RUNNING&user=" + user)
        .path("apps").path("app")) {
      n += Math.max(0, a.path("runningContainers").asInt());
    }
    return n;
  }

  private static JsonNode roseState() throws Exception {
    ShepherdScheduler s = cluster.scheduler();
    JsonNode state = new ObjectMapper().readTree(s.getEngineStateJson());
    return state.path("pipelines").path(0).path("plugins").path("oversubscribe").path("state");
  }
}
