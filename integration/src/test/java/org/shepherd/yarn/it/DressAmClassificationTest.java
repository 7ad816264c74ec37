package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.api.protocolrecords.RefreshQueuesRequest;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * DRESS's small/large rule on a real cluster with real ApplicationMasters.
 * Two NodeManagers of 4 GiB / 8 vcores: a one-map MapReduce job is its AM
 * (768 MiB, 1 vcore) plus one 512 MiB map — 1/16 of the vcores without the
 * AM, 2/16 = 12.5 % > θ = 10 % with it. The shipped DRESS config counts a
 * job's task containers, as the paper does, so the job is small-demand;
 * {@code am_in_request = true} (applied at runtime by -refreshQueues, which
 * rebuilds the DRESS plugin) makes it large-demand.
 */
public class DressAmClassificationTest {
  private static ShepherdCluster cluster;
  private static String shipped;

  @BeforeClass
  public static void startCluster() throws Exception {
    Path toml = Paths.get(System.getProperty("basedir", "."), "..", "hadoop-conf",
        "shepherd-dress.toml");
    shipped = new String(Files.readAllBytes(toml), StandardCharsets.UTF_8);
    cluster = ShepherdCluster.start("dressam", shipped, conf -> {
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
  public void oneMapJobsAreSmallDemandUnlessTheAmCounts() throws Exception {
    ShepherdScheduler s = cluster.scheduler();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Boolean> job = pool.submit(() ->
          Workloads.sleep(cluster.jobConf(), "alice", "default", 1, 0, 20_000, 0));
      String pool1 = waitForPool(s, "the one-map job classified");
      assertEquals("one map + AM on 16 vcores, AM not counted", "small", pool1);

      File file = new File(cluster.conf.get(ShepherdScheduler.CONFIG_FILE));
      String counted = shipped.replace("am_in_request = false", "am_in_request = true");
      assertTrue("the shipped config names am_in_request", !counted.equals(shipped));
      Files.write(file.toPath(), counted.getBytes(StandardCharsets.UTF_8));
      cluster.rm().getRMContext().getRMAdminService()
          .refreshQueues(RefreshQueuesRequest.newInstance());
      // The new [dress] rebuilds the plugin; the running job is re-decided.
      long deadline = System.currentTimeMillis() + 60_000;
      String pool2 = waitForPool(s, "the job re-classified");
      while (!"large".equals(pool2) && System.currentTimeMillis() < deadline) {
        Thread.sleep(200);
        pool2 = waitForPool(s, "the job re-classified");
      }
      assertEquals("with the AM counted: 2/16 > θ", "large", pool2);
      assertTrue("the job succeeded", job.get());
    } finally {
      pool.shutdownNow();
    }
    assertEquals(0, s.getEngineFailures());
  }

  /** The DRESS pool of the only MapReduce app, once its map is asked for. */
  private static String waitForPool(ShepherdScheduler s, String what) throws Exception {
    long deadline = System.currentTimeMillis() + 120_000;
    while (System.currentTimeMillis() < deadline) {
      for (JsonNode app : new ObjectMapper().readTree(s.getEngineStateJson()).path("apps")) {
        JsonNode pool = app.path("pipeline").path("pool");
        // Decided once the map is asked for (the AM alone is not counted).
        if (pool.isTextual() && app.path("pending_containers").asInt()
            + app.path("running_containers").asInt() >= 2) {
          return pool.asText();
        }
      }
      Thread.sleep(200);
    }
    fail(what + ": " + s.getEngineStateJson());
    return null;
  }
}
