package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

/**
 * Serial scheduling rounds between heartbeats (the default one proposer) on
 * a real cluster, under the default pipeline, whose rounds keep one
 * candidate heap over every node they visit (`composed`: DRESS's pools,
 * each by remaining work; src/engine/pass.rs, MainQueue).
 * Rounds run every 20 ms over every node with room
 * ({@code async-scheduling.max-nodes = 0}) and heartbeats only report
 * ({@code async-scheduling.heartbeats-allocate = false}, as the
 * CapacityScheduler's under asynchronous scheduling), so rounds place every
 * container; two users' jobs at once keep several apps in the heap. Checks
 * that no heartbeat ran a pass, rounds placed every container, YARN carried
 * them out, and the jobs succeed; not how fast.
 */
public class SerialRoundsTest {
  private static ShepherdCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = ShepherdCluster.start("serial-rounds", "[scheduler]\npolicy = \"composed\"\n", conf -> {
      conf.setLong(ShepherdScheduler.ASYNC_INTERVAL_MS, 20);
      conf.setInt(ShepherdScheduler.ASYNC_MAX_NODES, 0);
      conf.setBoolean(ShepherdScheduler.ASYNC_HEARTBEATS_ALLOCATE, false);
    });
  }

  @AfterClass
  public static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 300_000)
  public void keptCandidateRoundsPlaceContainersAndJobsFinish() throws Exception {
    ShepherdScheduler s = cluster.scheduler();
    boolean[] ok = new boolean[2];
    Thread bob = new Thread(() -> {
      try {
        ok[1] = Workloads.sleep(cluster.jobConf(), "bob", "default", 3, 1, 1_000, 500);
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    bob.start();
    ok[0] = Workloads.sleep(cluster.jobConf(), "alice", "default", 4, 1, 1_000, 500);
    bob.join();
    assertTrue("alice's SleepJob succeeds", ok[0]);
    assertTrue("bob's SleepJob succeeds", ok[1]);
    long[] counters = s.getEngineCounters();
    long heartbeatPasses = counters[1];
    long allocations = counters[2];
    long rounds = counters[6];
    long roundAllocations = counters[7];
    long proposals = counters[8];
    long carriedOut = s.getAsyncAllocations();
    System.out.printf("rounds %d, containers placed by rounds %d, carried out by YARN %d%n",
        rounds, roundAllocations, carriedOut);
    assertTrue("the engine ran rounds: " + rounds, rounds > 0);
    assertTrue("rounds placed containers: " + roundAllocations, roundAllocations > 0);
    assertEquals("no heartbeat ran a pass", 0, heartbeatPasses);
    assertEquals("rounds placed every container", allocations, roundAllocations);
    assertEquals("serial rounds: no proposers", 0, proposals);
    assertTrue("YARN carried out what rounds placed (" + carriedOut + " of " + roundAllocations + ")",
        carriedOut > 0 && carriedOut <= roundAllocations);
    assertEquals("nothing fell back to the safe FIFO", 0, s.getFallbackAllocations());
    assertEquals("the engine never failed", 0, s.getEngineFailures());
  }
}
