package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.server.api.protocolrecords.RefreshQueuesRequest;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * A queue's policy is switched at runtime with {@code yarn rmadmin
 * -refreshQueues} (the RM's AdminService, as the command calls it) while
 * real jobs run in both queues: the engine applies the new config in place,
 * no container is lost, the estimator keeps its history, a new queue
 * appears, a bad config is refused naming the key, and every job succeeds.
 */
public class PolicySwitchTest {
  static String config(String alphaPolicy, String betaPolicy, boolean gamma) {
    return String.join("\n",
        "[scheduler]",
        "policy = \"drf\"",
        "queue_order = \"drf\"",
        // An operator's pipeline that, like 3sigma, estimates with `history`.
        "[pipeline.sized]",
        "estimate = \"history\"",
        "reserve = \"dress\"",
        "app_order = \"srtf\"",
        "[[queue]]",
        "name = \"alpha\"",
        "capacity = 0.5",
        "policy = \"" + alphaPolicy + "\"",
        "[[queue]]",
        "name = \"beta\"",
        "capacity = 0.5",
        "policy = \"" + betaPolicy + "\"",
        gamma ? "[[queue]]\nname = \"gamma\"\ncapacity = 0.0\n" : "",
        "");
  }

  private static ShepherdCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = ShepherdCluster.start("policyswitch", config("3sigma", "drf", false));
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 600_000)
  public void switchQueuePoliciesWhileJobsRun() throws Exception {
    ShepherdScheduler s = cluster.scheduler();
    File toml = new File(cluster.conf.get(ShepherdScheduler.CONFIG_FILE));

    // One short job in alpha finishes first: the history estimator learns it.
    assertTrue(Workloads.sleep(cluster.jobConf(), "alice", "alpha", 1, 0, 500, 0));
    // The app's removal reaches the engine with the next heartbeat's batch.
    long learnBy = System.currentTimeMillis() + 60_000;
    while (historySamples(s) < 1 && System.currentTimeMillis() < learnBy) {
      Thread.sleep(200);
    }
    assertEquals(1, historySamples(s));

    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Boolean> a = pool.submit(() ->
          Workloads.sleep(cluster.jobConf(), "alice", "alpha", 4, 1, 6000, 2000));
      Future<Boolean> b = pool.submit(() ->
          Workloads.sleep(cluster.jobConf(), "bob", "beta", 4, 1, 6000, 2000));
      // Wait until both queues run task containers (beyond their AMs).
      long deadline = System.currentTimeMillis() + 180_000;
      while (runningContainers(s, "alpha") < 2 || runningContainers(s, "beta") < 2) {
        if (System.currentTimeMillis() > deadline) {
          fail("jobs did not start: " + s.getEngineStateJson());
        }
        Thread.sleep(200);
      }
      int before = runningContainers(s, "alpha") + runningContainers(s, "beta");

      // A config naming an unknown plugin is refused; nothing changes.
      write(toml, config("3sigma", "drf", false)
          + "[pipeline.broken]\napp_order = \"lottery\"\n");
      try {
        refreshQueues();
        fail("a config with an unknown plugin must be refused");
      } catch (Exception expected) {
        assertTrue(expected.toString(), expected.toString().contains("pipeline.broken.app_order"));
      }
      assertEquals("3sigma", pipelines(s).get("alpha"));

      // The real switch: alpha to another history-estimating pipeline, beta
      // to the composed default, and a new queue.
      write(toml, config("sized", "composed", true));
      refreshQueues();
      Map<String, String> now = pipelines(s);
      assertEquals("sized", now.get("alpha"));
      assertEquals("composed", now.get("beta"));
      assertEquals("drf", now.get("gamma"));
      assertEquals("the history estimator kept its sample", 1, historySamples(s));
      int after = runningContainers(s, "alpha") + runningContainers(s, "beta");
      assertTrue("containers kept: " + before + " -> " + after, after > 0);

      assertTrue("alpha job succeeded", a.get());
      assertTrue("beta job succeeded", b.get());
    } finally {
      pool.shutdownNow();
    }

    // The new queue is a real YARN queue and runs jobs.
    try (YarnClient client = YarnClient.createYarnClient()) {
      client.init(cluster.conf);
      client.start();
      Set<String> names = new HashSet<>();
      client.getAllQueues().forEach(q -> names.add(q.getQueueName()));
      assertTrue("queues " + names, names.contains("gamma"));
    }
    assertTrue(Workloads.sleep(cluster.jobConf(), "carol", "gamma", 2, 0, 500, 0));

    JsonNode state = new ObjectMapper().readTree(s.getEngineStateJson());
    assertEquals("one config applied in place (the broken one was refused)", 1,
        state.path("counters").path("reconfigurations").asInt());
    assertEquals("no engine failures", 0, s.getEngineFailures());
    assertEquals("no fallback allocations", 0, s.getFallbackAllocations());
    for (JsonNode app : cluster.rest("/ws/v1/cluster/apps").path("apps").path("app")) {
      assertEquals(app.path("id").asText(), "SUCCEEDED", app.path("finalStatus").asText());
    }
  }

  private static void refreshQueues() throws Exception {
    cluster.rm().getRMContext().getRMAdminService().refreshQueues(RefreshQueuesRequest.newInstance());
  }

  private static void write(File f, String text) throws Exception {
    Files.write(f.toPath(), text.getBytes(StandardCharsets.UTF_8));
  }

  private static Map<String, String> pipelines(ShepherdScheduler s) throws Exception {
    Map<String, String> out = new HashMap<>();
    for (JsonNode p : new ObjectMapper().readTree(s.getEngineStateJson()).path("pipelines")) {
      out.put(p.path("queue").asText(), p.path("policy").asText());
    }
    return out;
  }

  private static int historySamples(ShepherdScheduler s) throws Exception {
    for (JsonNode p : new ObjectMapper().readTree(s.getEngineStateJson()).path("pipelines")) {
      JsonNode est = p.path("plugins").path("estimate");
      if (est.path("name").asText().equals("history")) {
        return est.path("state").path("samples").asInt();
      }
    }
    return -1;
  }

  private static int runningContainers(ShepherdScheduler s, String queue) throws Exception {
    int n = 0;
    for (JsonNode app : new ObjectMapper().readTree(s.getEngineStateJson()).path("apps")) {
      if (app.path("queue").asText().equals(queue)) {
        n += app.path("running_containers").asInt();
      }
    }
    return n;
  }
}
