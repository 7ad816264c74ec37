package org.shepherd.yarn.it;

import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.applications.distributedshell.ApplicationMaster;
import org.apache.hadoop.yarn.applications.distributedshell.Client;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.shepherd.yarn.cluster.ShepherdCluster;

/**
 * Hadoop's DistributedShell, unmodified, run on a test cluster with a
 * {@code -placement_spec}: its AM sends its containers as SchedulingRequests
 * with allocation tags. Started on a thread of its own; {@link #close}
 * restores what starting it changed.
 */
final class DistributedShell implements AutoCloseable {
  final String name;
  final Future<Boolean> run;
  private final ShepherdCluster cluster;
  private final String classPath;
  private final ExecutorService pool = Executors.newSingleThreadExecutor();

  DistributedShell(ShepherdCluster cluster, String name, String spec, String command)
      throws Exception {
    this.cluster = cluster;
    this.name = name;
    // The AM is a separate JVM launched by a NodeManager. On a minicluster
    // the DistributedShell client puts this JVM's class path on the AM's;
    // the AM reads the RM's address from a yarn-site.xml found on it.
    File confDir = new File(cluster.workDir, "ds-conf");
    assertTrue(confDir.mkdirs() || confDir.isDirectory());
    try (OutputStream out = new FileOutputStream(new File(confDir, "yarn-site.xml"))) {
      cluster.conf.writeXml(out);
    }
    classPath = System.getProperty("java.class.path");
    System.setProperty("java.class.path", confDir.getAbsolutePath() + File.pathSeparator + classPath);
    String amJar = new File(ApplicationMaster.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI()).getAbsolutePath();
    Client client = new Client(new Configuration(cluster.conf));
    assertTrue(client.init(new String[] {
        "--jar", amJar,
        "--shell_command", command,
        "--placement_spec", spec,
        "--master_memory", "512",
        "--container_memory", "256",
        "--appname", name,
    }));
    run = pool.submit(client::run);
  }

  /** This app's reports (one once submitted). */
  List<ApplicationReport> reports() throws Exception {
    List<ApplicationReport> out = new ArrayList<>();
    for (ApplicationReport r : cluster.yarnClient().getApplications()) {
      if (r.getName().equals(name)) {
        out.add(r);
      }
    }
    return out;
  }

  /** The scheduler's current attempt of this app, or null before it has one. */
  SchedulerApplicationAttempt attempt() throws Exception {
    for (ApplicationReport r : reports()) {
      ApplicationAttemptId id = r.getCurrentApplicationAttemptId();
      SchedulerApplicationAttempt a = id == null ? null : cluster.scheduler().getApplicationAttempt(id);
      if (a != null) {
        return a;
      }
    }
    return null;
  }

  /**
   * Containers this app's AM still asks for (its ANY requests). 0 until the
   * AM container is placed: before that the only request is YARN's own, for
   * the AM.
   */
  int pending() throws Exception {
    SchedulerApplicationAttempt a = attempt();
    int pending = 0;
    if (a != null && !a.getLiveContainers().isEmpty()) {
      for (ResourceRequest rr : a.getAppSchedulingInfo().getAllResourceRequests()) {
        if (ResourceRequest.ANY.equals(rr.getResourceName())) {
          pending += rr.getNumContainers();
        }
      }
    }
    return pending;
  }

  /** Adds tag -> container -> node for each tagged live container of this app. */
  void recordTagged(Map<String, Map<String, NodeId>> placed) throws Exception {
    SchedulerApplicationAttempt a = attempt();
    if (a == null) {
      return;
    }
    for (RMContainer c : a.getLiveContainers()) {
      if (c.getAllocationTags() == null) {
        continue;
      }
      for (String tag : c.getAllocationTags()) {
        placed.computeIfAbsent(tag, t -> new HashMap<>())
            .put(c.getContainerId().toString(), c.getAllocatedNode());
      }
    }
  }

  /** Containers tagged {@code tag} that YARN's own AllocationTagsManager counts, over all nodes. */
  static long countedByYarn(ResourceManager rm, String tag) {
    long n = 0;
    for (NodeId node : rm.getRMContext().getRMNodes().keySet()) {
      Map<String, Long> counts = rm.getRMContext().getAllocationTagsManager().getAllocationTagsWithCount(node);
      n += counts == null ? 0 : counts.getOrDefault(tag, 0L);
    }
    return n;
  }

  @Override
  public void close() {
    System.setProperty("java.class.path", classPath);
    pool.shutdownNow();
  }
}
