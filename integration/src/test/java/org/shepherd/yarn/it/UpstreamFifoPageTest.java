package org.shepherd.yarn.it;

import static org.junit.Assert.assertTrue;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoScheduler;
import org.junit.Test;
import org.shepherd.yarn.cluster.ShepherdCluster;

/**
 * Documents an upstream limitation rather than Shepherd behaviour: with YARN's
 * own FifoScheduler, Hadoop 3.4.3's /cluster/scheduler web page fails too, so
 * Shepherd (rendered through the same FifoScheduler page) cannot do better.
 * If a Hadoop upgrade fixes it, this test fails and RealJobsTest should check
 * the page again.
 */
public class UpstreamFifoPageTest {
  @Test(timeout = 120_000)
  public void stockFifoSchedulerPageFailsInThisHadoopLine() throws Exception {
    Configuration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RM_SCHEDULER, FifoScheduler.class.getName());
    MiniYARNCluster c = new MiniYARNCluster("stockfifo", 1, 1, 1);
    try {
      c.init(conf);
      c.start();
      ShepherdCluster.routeWebRequestsToResourceManager(c.getResourceManager());
      String addr = c.getConfig().get(YarnConfiguration.RM_WEBAPP_ADDRESS);
      java.net.HttpURLConnection h = (java.net.HttpURLConnection)
          new java.net.URL("http://" + addr + "/cluster/scheduler").openConnection();
      int code;
      try {
        code = h.getResponseCode();
      } catch (IOException e) {
        code = 500;
      }
      assertTrue("stock FifoScheduler page answered " + code, code >= 500);
    } finally {
      c.stop();
    }
  }
}
