package org.shepherd.apps;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceBlacklistRequest;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
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
 * Placements YARN would refuse, at the scheduler alone (YARN's MockRM with
 * Shepherd). What Spark's dynamic allocation exposed: an AM releases a
 * running container; YARN's node keeps its resources until the NodeManager
 * reports it gone. The engine must not place another app's ask on that room
 * before then (it did: YARN refused, and the engine, having dropped the
 * fully placed ask, never placed it again). And a refusal the engine cannot
 * foresee (a node the app blacklisted) must not lose the ask either.
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
      // it gone yet, so YARN's node still holds its 2 GiB, and so does the
      // engine's view of the node.
      am1.allocate(new ArrayList<>(), Collections.singletonList(executor));
      // App 2 asks for two 1 GiB containers: nothing is free for them yet.
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
      assertEquals("the engine placed nothing on room YARN still held", 0,
          engineCounter(s, "rejected_allocations"));
      assertEquals("no fallback allocations", 0, s.getFallbackAllocations());
      assertEquals("no engine failures", 0, s.getEngineFailures());
    } finally {
      rm.stop();
      FileUtil.fullyDelete(dir);
    }
  }

  @Test(timeout = 120_000)
  public void askRefusedOnABlacklistedNodeIsPlacedOnceTheNodeIsAllowed() throws Exception {
    File dir = Files.createTempDirectory("shepherd-blacklist").toFile();
    YarnConfiguration conf = new YarnConfiguration(ShepherdCluster.baseConf(
        "[scheduler]\npolicy = \"fifo\"\nrefused_placement_backoff_ms = 0\n", dir));
    MockRM rm = new MockRM(conf);
    try {
      rm.start();
      MockNM nm = rm.registerNode("localhost:1234", 4096, 4);
      RMApp app = MockRMAppSubmitter.submitWithMemory(1024, rm);
      MockAM am = MockRM.launchAndRegisterAM(app, rm, nm);
      String host = nm.getNodeId().getHost();

      // One container (a re-run task, as MapReduce asks after a failure),
      // with the only node blacklisted: the engine, which does not hear of
      // blacklists, places it there and YARN refuses, heartbeat after
      // heartbeat.
      ResourceRequest one = ResourceRequest.newInstance(Priority.newInstance(5),
          ResourceRequest.ANY, Resource.newInstance(1024, 1), 1);
      am.allocate(AllocateRequest.newInstance(0, 0f, Collections.singletonList(one),
          new ArrayList<>(), ResourceBlacklistRequest.newInstance(
              Collections.singletonList(host), new ArrayList<>())));
      ShepherdScheduler s = (ShepherdScheduler) rm.getResourceScheduler();
      for (int i = 0; i < 50 && engineCounter(s, "rejected_allocations") < 2; i++) {
        assertEquals("no container on a blacklisted node", 0, allocate(am, nm, 1, 1).size());
      }
      assertTrue("YARN refused the blacklisted node twice",
          engineCounter(s, "rejected_allocations") >= 2);

      // The AM lifts the blacklist: the ask, refused while fully placed,
      // is still the engine's and gets its container.
      am.allocate(AllocateRequest.newInstance(0, 0f, new ArrayList<>(), new ArrayList<>(),
          ResourceBlacklistRequest.newInstance(new ArrayList<>(),
              Collections.singletonList(host))));
      assertEquals(1, allocate(am, nm, 1).size());
      assertEquals("no fallback allocations", 0, s.getFallbackAllocations());
    } finally {
      rm.stop();
      FileUtil.fullyDelete(dir);
    }
  }

  /** A counter of the engine's state view ({@code counters} in its JSON). */
  private static long engineCounter(ShepherdScheduler s, String name) throws Exception {
    return new ObjectMapper().readTree(s.getEngineStateJson()).path("counters").path(name)
        .asLong(-1);
  }

  private static List<Container> allocate(MockAM am, MockNM nm, int n) throws Exception {
    return allocate(am, nm, n, 50);
  }

  /** Heartbeats the node and polls the AM until it has {@code n} containers (or {@code tries} times). */
  private static List<Container> allocate(MockAM am, MockNM nm, int n, int tries)
      throws Exception {
    List<Container> got = new ArrayList<>();
    for (int i = 0; i < tries && got.size() < n; i++) {
      nm.nodeHeartbeat(true);
      got.addAll(am.allocate(new ArrayList<>(), new ArrayList<>()).getAllocatedContainers());
      Thread.sleep(100);
    }
    return got;
  }
}
