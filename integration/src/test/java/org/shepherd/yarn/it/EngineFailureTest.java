package org.shepherd.yarn.it;

import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.math.BigDecimal;
import java.nio.file.Files;
import org.apache.hadoop.service.Service;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;

/**
 * An engine that fails on every scheduling call (a deliberate panic inside
 * Rust) must not take the ResourceManager down: the panic becomes a Java
 * exception, the shim falls back to its safe FIFO, and the job still finishes.
 */
public class EngineFailureTest {
  static final String PANICKING = String.join("\n",
      "[scheduler]",
      "policy = \"fifo\"",
      "fault_injection = \"panic-on-schedule\"",
      "");

  @Test(timeout = 600_000)
  public void jobsFinishThroughTheFallbackWhenTheEnginePanics() throws Exception {
    try (ShepherdCluster cluster = ShepherdCluster.start("panicking", PANICKING)) {
      File dir = Files.createTempDirectory(cluster.workDir.toPath(), "jobs").toFile();
      BigDecimal pi = Workloads.pi(cluster.jobConf(), "alice", "default", 2, 1000,
          new File(dir, "pi"));
      assertTrue("pi estimate " + pi, pi.doubleValue() > 2.9 && pi.doubleValue() < 3.4);

      ShepherdScheduler s = cluster.scheduler();
      assertEquals(Service.STATE.STARTED, cluster.rm().getServiceState());
      assertTrue("engine failures counted", s.getEngineFailures() > 0);
      assertTrue("fallback placed containers", s.getFallbackAllocations() > 0);
      assertEquals("the panicking engine placed nothing", 0, s.getEngineAllocations());
    }
  }
}
