package org.shepherd.yarn.it;

import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;

/** A malformed config stops the RM at start with a message naming key and value. */
public class BadConfigTest {
  private static String startFailure(Configuration conf) {
    ResourceManager rm = new ResourceManager();
    try {
      rm.init(conf);
      rm.start();
      fail("the ResourceManager must not start");
      return "";
    } catch (Exception e) {
      StringBuilder all = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        all.append(t.getMessage()).append('\n');
      }
      return all.toString();
    } finally {
      rm.stop();
    }
  }

  /** The start-up failure's message names every one of {@code parts}. */
  private static void assertNames(String msg, String... parts) {
    for (String part : parts) {
      assertTrue(msg, msg.contains(part));
    }
  }

  /** An RM config with Shepherd and its built-in policy defaults. */
  private static Configuration defaultShepherdConf() throws Exception {
    return ShepherdCluster.baseConf("", Files.createTempDirectory("shepherd-badconf").toFile());
  }

  @Test(timeout = 120_000)
  public void unknownPolicyNamesKeyAndValue() throws Exception {
    File dir = Files.createTempDirectory("shepherd-badconf").toFile();
    Configuration conf = ShepherdCluster.baseConf("[scheduler]\npolicy = \"lottery\"\n", dir);
    String msg = startFailure(conf);
    assertNames(msg, "scheduler.policy", "lottery");
  }

  @Test(timeout = 120_000)
  public void missingNativeLibraryNamesTheKey() throws Exception {
    Configuration conf = defaultShepherdConf();
    conf.set(ShepherdScheduler.NATIVE_LIBRARY, "/nonexistent/libshepherd.so");
    String msg = startFailure(conf);
    assertTrue(msg, msg.contains(ShepherdScheduler.NATIVE_LIBRARY) || msg.contains("lib"));
  }

  @Test(timeout = 120_000)
  public void negativeAsyncIntervalNamesKeyAndValue() throws Exception {
    Configuration conf = defaultShepherdConf();
    conf.set(ShepherdScheduler.ASYNC_INTERVAL_MS, "-5");
    String msg = startFailure(conf);
    assertNames(msg, ShepherdScheduler.ASYNC_INTERVAL_MS, "-5");
  }

  @Test(timeout = 120_000)
  public void malformedHeartbeatsAllocateNamesKeyAndValue() throws Exception {
    Configuration conf = defaultShepherdConf();
    conf.set(ShepherdScheduler.ASYNC_INTERVAL_MS, "20");
    conf.set(ShepherdScheduler.ASYNC_HEARTBEATS_ALLOCATE, "sometimes");
    String msg = startFailure(conf);
    assertNames(msg, ShepherdScheduler.ASYNC_HEARTBEATS_ALLOCATE, "sometimes");
  }

  /** Heartbeats that do not allocate, without rounds: nothing would ever allocate. */
  @Test(timeout = 120_000)
  public void heartbeatsThatDoNotAllocateNeedRounds() throws Exception {
    Configuration conf = defaultShepherdConf();
    conf.set(ShepherdScheduler.ASYNC_HEARTBEATS_ALLOCATE, "false");
    String msg = startFailure(conf);
    assertNames(msg, ShepherdScheduler.ASYNC_HEARTBEATS_ALLOCATE, ShepherdScheduler.ASYNC_INTERVAL_MS);
  }

  @Test(timeout = 120_000)
  public void missingConfigFileNamesKeyAndPath() throws Exception {
    Configuration conf = defaultShepherdConf();
    conf.set(ShepherdScheduler.CONFIG_FILE, "/nonexistent/shepherd.toml");
    String msg = startFailure(conf);
    assertNames(msg, ShepherdScheduler.CONFIG_FILE, "/nonexistent/shepherd.toml");
  }
}
