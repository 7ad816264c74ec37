package org.shepherd.apps;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockNM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;

/**
 * What Spark's dynamic allocation exposed, at the scheduler alone (YARN's
 * MockRM with Shepherd): an AM releases a running container; YARN's node
 * keeps its resources until the NodeManager reports it gone, while the
 * engine frees them at once. Another app's whole ask placed there in
 * between is refused by YARN; once the node has let the container go, that
 * ask must still be placed. Before the shim re-sent refused asks, the
 * engine had dropped the fully placed ask and the app never got them.
 */
public class RefusedPlacementTest {
  @Test(timeout = 120_000)
  public void askRefusedOnAReleasedContainersNodeIsPlacedLater() throws Exception {
    File dir = Files.createTempDirectory("shepherd-refused").toFile();
    // No back-off after a refusal: the next heartbeat may place again.
    YarnConfiguration conf = new YarnConfiguration(ShepherdCluster.baseConf(
        "[scheduler]\npolicy = \"fifo\"\nrefused_placement_backoff_ms = 0\n", dir));
    MockRM rm = new MockRM(conf);
    try {
      rm.start();
      assertTrue(rm.getResourceScheduler() instanceof ShepherdScheduler);
      MockNM nm = rm.registerNode("localhost:1234", 4096, 4);

      // App 1 (an AM of 1 GiB) runs one 2 GiB container ("an executor").
      RMApp app1 = MockRMAppSubmitter.submitWithMemory(1024, rm);
      MockAM am1 = MockRM.launchAndRegisterAM(app1, rm, nm);
      am1.allocate("*", 2048, 1, new ArrayList<>());
      List<Container> got1 = allocate(am1, nm, 1);
      ContainerId executor = got1.get(0).getId();
      nm.nodeHeartbeat(am1.getApplicationAttemptId(), executor.getContainerId(),
          ContainerState.RUNNING);

      // App 2's AM takes the node's last 1 GiB.
      RMApp app2 = MockRMAppSubmitter.submitWithMemory(1024, rm);
      MockAM am2 = MockRM.launchAndRegisterAM(app2, rm, nm);

      // App 1 gives its container back; the NodeManager has not reported
      // it gone yet, so YARN's node still holds its 2 GiB.
      am1.allocate(new ArrayList<>(), Collections.singletonList(executor));
      // App 2 asks for two 1 GiB containers: its whole ask, and the engine
      // sees exactly that much free. YARN refuses both.
      am2.allocate("*", 1024, 2, new ArrayList<>());
      nm.nodeHeartbeat(true);
      ShepherdScheduler s = (ShepherdScheduler) rm.getResourceScheduler();
      assertEquals(0, am2.allocate(new ArrayList<>(), new ArrayList<>())
          .getAllocatedContainers().size());

      // The NodeManager reports the container gone: YARN's node frees it,
      // and app 2's two containers are placed.
      nm.nodeHeartbeat(am1.getApplicationAttemptId(), executor.getContainerId(),
          ContainerState.COMPLETE);
      List<Container> got2 = allocate(am2, nm, 2);
      assertEquals(2, got2.size());
      assertEquals("no fallback allocations", 0, s.getFallbackAllocations());
      assertEquals("no engine failures", 0, s.getEngineFailures());
    } finally {
      rm.stop();
      FileUtil.fullyDelete(dir);
    }
  }

  /** Heartbeats the node and polls the AM until it has {@code n} containers (or 50 tries). */
  private static List<Container> allocate(MockAM am, MockNM nm, int n) throws Exception {
    List<Container> got = new ArrayList<>();
    for (int i = 0; i < 50 && got.size() < n; i++) {
      nm.nodeHeartbeat(true);
      got.addAll(am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers());
      Thread.sleep(100);
    }
    return got;
  }
}
