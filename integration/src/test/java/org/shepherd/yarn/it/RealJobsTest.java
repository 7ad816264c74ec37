package org.shepherd.yarn.it;

import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException;
import org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException;
import org.apache.hadoop.yarn.exceptions.ResourceNotFoundException;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.util.Records;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.ShepherdScheduler;

/**
 * Real MapReduce jobs (pi, wordcount) from two users in two queues run to
 * completion on a real YARN cluster whose scheduler is Shepherd, and the
 * containers were placed by the Rust engine.
 */
public class RealJobsTest {
  static final String CONFIG = String.join("\n",
      "[scheduler]",
      "policy = \"drf\"",
      "[[queue]]",
      "name = \"alpha\"",
      "capacity = 0.4",
      "[[queue]]",
      "name = \"beta\"",
      "capacity = 0.4",
      // Queue ACLs (issue 15 items 4 and 7): only alice submits to gamma,
      // carol administers it (and so may submit too, as in YARN).
      "[[queue]]",
      "name = \"gamma\"",
      "capacity = 0.2",
      "submit_acl = \"alice\"",
      "admin_acl = \"carol\"",
      "");

  /** Asks YARN must reject, per kind, tried in this class; printed at the end. */
  private static final Map<String, Integer> REJECTIONS = new ConcurrentSkipListMap<>();

  private static ShepherdCluster cluster;

  @BeforeClass
  public static void startCluster() throws Exception {
    cluster = ShepherdCluster.start("realjobs", CONFIG, conf -> {
      // YARN enforces queue and application ACLs only with this on; the
      // cluster's own user stays the YARN admin (the default admin ACL "*"
      // would make everyone an admin of every queue and app).
      conf.setBoolean(YarnConfiguration.YARN_ACL_ENABLE, true);
      conf.set(YarnConfiguration.YARN_ADMIN_ACL, System.getProperty("user.name"));
    });
  }

  @AfterClass
  public static void stopCluster() {
    StringBuilder line = new StringBuilder("rejections:");
    REJECTIONS.forEach((kind, n) -> line.append(' ').append(kind).append('=').append(n));
    System.out.println(line);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test(timeout = 600_000)
  public void piAndWordcountFromTwoUsersInTwoQueuesSucceed() throws Exception {
    File dir = Files.createTempDirectory(cluster.workDir.toPath(), "jobs").toFile();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<BigDecimal> pi = pool.submit(() ->
          Workloads.pi(cluster.jobConf(), "alice", "alpha", 4, 2000, new File(dir, "pi")));
      Future<Boolean> wc = pool.submit(() ->
          Workloads.wordcount(cluster.jobConf(), "bob", "root.beta", new File(dir, "wc"), 5000));
      double estimate = pi.get().doubleValue();
      assertTrue("pi estimate " + estimate, estimate > 3.0 && estimate < 3.3);
      assertTrue("wordcount succeeded", wc.get());
    } finally {
      pool.shutdownNow();
    }

    // The RM's own REST view agrees: every application finished successfully.
    JsonNode apps = cluster.rest("/ws/v1/cluster/apps").path("apps").path("app");
    Set<String> users = new HashSet<>();
    Set<String> queues = new HashSet<>();
    int mapreduce = 0;
    for (JsonNode app : apps) {
      if (!"MAPREDUCE".equals(app.path("applicationType").asText())
          || app.path("queue").asText().endsWith("gamma")) {
        continue; // gamma's jobs belong to the ACL tests
      }
      mapreduce++;
      assertEquals(app.path("id").asText(), "FINISHED", app.path("state").asText());
      assertEquals(app.path("id").asText(), "SUCCEEDED", app.path("finalStatus").asText());
      users.add(app.path("user").asText());
      queues.add(app.path("queue").asText());
    }
    assertTrue("two MapReduce apps, saw " + mapreduce, mapreduce >= 2);
    assertTrue(users.containsAll(java.util.Arrays.asList("alice", "bob")));
    assertEquals(2, queues.size());

    // The allocations came from the Rust engine, not the fallback.
    ShepherdScheduler s = cluster.scheduler();
    long[] counters = s.getEngineCounters();
    assertTrue("engine allocations " + s.getEngineAllocations(), s.getEngineAllocations() > 0);
    assertTrue("engine's own allocation counter " + counters[2], counters[2] > 0);
    assertEquals("no fallback allocations", 0, s.getFallbackAllocations());
    assertEquals("no engine failures", 0, s.getEngineFailures());
    assertTrue(s.getEngineStateJson().contains("\"policy\":\"drf\""));
  }

  @Test(timeout = 120_000)
  public void schedulerEndpointAndQueueInfoAnswer() throws Exception {
    JsonNode info = cluster.rest("/ws/v1/cluster/scheduler").path("scheduler")
        .path("schedulerInfo");
    // YARN's web layer renders third-party schedulers only as FifoScheduler
    // subclasses; Shepherd's root queue state and node count come through.
    assertEquals(info.toString(), "fifoScheduler", info.path("type").asText());
    assertEquals(info.toString(), "RUNNING", info.path("qstate").asText());
    assertEquals(info.toString(), ShepherdCluster.NODE_MANAGERS, info.path("numNodes").asInt());
    assertTrue(info.toString(), info.path("totalNodeCapacity").asLong() > 0);
    // The RM web UI's cluster pages render with Shepherd as the scheduler.
    // (/cluster/scheduler itself is not checked: in Hadoop 3.4.3 its
    // FifoScheduler page needs an ApplicationBaseProtocol binding the RM web
    // app does not provide, so it fails for every FifoScheduler-type
    // scheduler; see UpstreamFifoPageTest.)
    String html = cluster.page("/cluster/apps");
    assertTrue("apps page", html.contains("application"));
    try (YarnClient client = cluster.yarnClient()) {
      Set<String> names = new HashSet<>();
      client.getAllQueues().forEach(q -> names.add(q.getQueueName()));
      assertTrue("queues " + names, names.containsAll(java.util.Arrays.asList("alpha", "beta")));
    }
  }

  @Test(timeout = 120_000)
  public void askAboveMaximumAllocationIsRejectedTheYarnWay() throws Exception {
    try (YarnClient client = cluster.yarnClient()) {
      ApplicationSubmissionContext ctx = newApp(client, "too-big", "alpha",
          Resource.newInstance(64 * 1024, 1));
      try {
        client.submitApplication(ctx);
        fail("an AM ask above yarn.scheduler.maximum-allocation-mb must be rejected");
      } catch (InvalidResourceRequestException expected) {
        assertTrue(expected.getMessage(), expected.getMessage().contains("maximum"));
        count("over-maximum");
      }
    }
  }

  @Test(timeout = 120_000)
  public void unknownQueueIsRejected() throws Exception {
    try (YarnClient client = cluster.yarnClient()) {
      ApplicationSubmissionContext ctx = newApp(client, "lost", "no-such-queue",
          Resource.newInstance(512, 1));
      ApplicationId id = client.submitApplication(ctx);
      ApplicationReport r = client.getApplicationReport(id);
      for (int i = 0; i < 100 && r.getYarnApplicationState() != YarnApplicationState.FAILED; i++) {
        Thread.sleep(100);
        r = client.getApplicationReport(id);
      }
      assertEquals(YarnApplicationState.FAILED, r.getYarnApplicationState());
      assertTrue(r.getDiagnostics(), r.getDiagnostics().contains("unknown queue"));
      count("unknown-queue");
    } catch (org.apache.hadoop.yarn.exceptions.YarnException rejectedAtSubmit) {
      assertTrue(rejectedAtSubmit.getMessage(),
          rejectedAtSubmit.getMessage().contains("unknown queue"));
      count("unknown-queue");
    }
  }

  /**
   * Negative memory or vcores: RMAppManager validates the AM ask with
   * SchedulerUtils.normalizeAndValidateRequest against the scheduler's
   * maximum allocation, whatever the scheduler, and YARN's
   * InvalidResourceRequestException names the resource type.
   */
  @Test(timeout = 120_000)
  public void negativeAsksAreRejectedTheYarnWay() throws Exception {
    try (YarnClient client = cluster.yarnClient()) {
      for (Object[] c : new Object[][] {
          {Resource.newInstance(-512, 1), "memory-mb"},
          {Resource.newInstance(512, -1), "vcores"}}) {
        ApplicationSubmissionContext ctx = newApp(client, "negative", "alpha", (Resource) c[0]);
        try {
          client.submitApplication(ctx);
          fail("a negative ask must be rejected: " + c[0]);
        } catch (InvalidResourceRequestException expected) {
          String msg = expected.getMessage();
          assertTrue(msg, msg.contains("less than 0"));
          assertTrue(msg, msg.contains("Requested resource type=[" + c[1] + "]"));
          count("negative");
        }
      }
    }
  }

  /**
   * A resource type the cluster does not know (no yarn.resource-types entry):
   * YARN's records refuse it when the ask is written, with
   * ResourceNotFoundException naming the type, so such an ask never reaches
   * the RM (the record's protobuf form keeps only known types either way).
   */
  @Test(timeout = 120_000)
  public void unknownResourceTypeIsRefusedTheYarnWay() throws Exception {
    Resource ask = Resource.newInstance(512, 1);
    try {
      ask.setResourceValue("example.com/fpga", 1);
      fail("an unknown resource type must be refused");
    } catch (ResourceNotFoundException expected) {
      assertTrue(expected.getMessage(), expected.getMessage().contains("example.com/fpga"));
      count("unknown-resource");
    }
  }

  /**
   * Queue submit ACL (yarn.acl.enable): bob is not in gamma's submit_acl, so
   * his submission fails as under the CapacityScheduler (RMAppManager's
   * check, whose words Shepherd returns from checkAndGetApplicationPriority)
   * and the RM never creates the app; alice's job in gamma SUCCEEDED.
   */
  @Test(timeout = 300_000)
  public void submitAclRefusesBobAndAdmitsAlice() throws Exception {
    String refused = Workloads.as("bob", () -> {
      try (YarnClient client = cluster.yarnClient()) {
        ApplicationSubmissionContext ctx = newApp(client, "not-allowed", "gamma",
            Resource.newInstance(512, 1));
        try {
          client.submitApplication(ctx);
          fail("bob is not in gamma's submit ACL");
          return null;
        } catch (YarnException e) {
          try {
            client.getApplicationReport(ctx.getApplicationId());
            fail("the RM must not have created " + ctx.getApplicationId());
          } catch (ApplicationNotFoundException notCreated) {
            // as with the CapacityScheduler: refused before the RMApp exists
          }
          return e.getMessage();
        }
      }
    });
    assertTrue(refused, refused.contains("AccessControlException"));
    assertTrue(refused, refused.contains("User bob does not have permission to submit"));
    assertTrue(refused, refused.contains("to queue gamma"));
    count("acl-submit");
    assertTrue("alice's job in gamma",
        Workloads.sleep(cluster.jobConf(), "alice", "gamma", 1, 0, 100, 0));
  }

  /**
   * Queue admin ACL: bob (neither the owner nor gamma's admin) cannot kill
   * alice's app in gamma; carol, gamma's admin, can.
   */
  @Test(timeout = 120_000)
  public void adminAclLetsOnlyTheQueueAdminKillAnotherUsersApp() throws Exception {
    ApplicationId id = submitSleepingAm("alice", "long", "gamma");
    String denied = Workloads.as("bob", () -> {
      try (YarnClient client = cluster.yarnClient()) {
        client.killApplication(id);
        fail("bob is not gamma's admin");
        return null;
      } catch (YarnException e) {
        return e.getMessage();
      }
    });
    assertTrue(denied, denied.contains("bob"));
    assertTrue(denied, denied.contains("MODIFY_APP") || denied.contains("privilege"));
    count("acl-admin");
    Workloads.as("carol", () -> {
      try (YarnClient client = cluster.yarnClient()) {
        client.killApplication(id);
      }
      return null;
    });
    try (YarnClient client = cluster.yarnClient()) {
      assertEquals(YarnApplicationState.KILLED,
          awaitState(client, id, YarnApplicationState.KILLED).getYarnApplicationState());
    }
  }

  /**
   * Moving an app (yarn application -movetoqueue) checks, as the
   * CapacityScheduler does, that the app's owner may submit to the target:
   * carol, gamma's admin, may move bob's app from beta (whose admin ACL is
   * everyone) and may submit to gamma herself, so YARN's own checks pass;
   * Shepherd refuses because bob may not submit to gamma, and the app stays
   * in beta. The move to alpha, open to bob, goes through.
   */
  @Test(timeout = 120_000)
  public void moveRefusesATargetQueueTheAppsOwnerMayNotSubmitTo() throws Exception {
    ApplicationId id = submitSleepingAm("bob", "movable", "beta");
    try (YarnClient client = cluster.yarnClient()) {
      // Its AM runs `sleep` and never registers: ACCEPTED, with a live
      // attempt and AM container (YARN allows moves from ACCEPTED on).
      awaitState(client, id, YarnApplicationState.ACCEPTED);
    }
    String refused = Workloads.as("carol", () -> {
      try (YarnClient client = cluster.yarnClient()) {
        client.moveApplicationAcrossQueues(id, "gamma");
        fail("bob may not submit to gamma");
        return null;
      } catch (YarnException e) {
        return e.getMessage();
      }
    });
    assertTrue(refused, refused.contains("User bob does not have permission to submit " + id
        + " to queue gamma"));
    count("acl-move");
    Workloads.as("carol", () -> {
      try (YarnClient client = cluster.yarnClient()) {
        assertEquals("root.beta", client.getApplicationReport(id).getQueue());
        client.moveApplicationAcrossQueues(id, "alpha");
        assertEquals("root.alpha", client.getApplicationReport(id).getQueue());
        client.killApplication(id);
      }
      return null;
    });
    try (YarnClient client = cluster.yarnClient()) {
      awaitState(client, id, YarnApplicationState.KILLED);
    }
  }

  /** An app, submitted as {@code user}, whose AM only sleeps (it never registers). */
  private static ApplicationId submitSleepingAm(String user, String name, String queue)
      throws Exception {
    return Workloads.as(user, () -> {
      try (YarnClient client = cluster.yarnClient()) {
        ApplicationSubmissionContext ctx = newApp(client, name, queue,
            Resource.newInstance(512, 1));
        ctx.getAMContainerSpec().setCommands(Collections.singletonList("sleep 120"));
        return client.submitApplication(ctx);
      }
    });
  }

  private static void count(String kind) {
    REJECTIONS.merge(kind, 1, Integer::sum);
  }

  private static ApplicationReport awaitState(YarnClient client, ApplicationId id,
      YarnApplicationState... wanted) throws Exception {
    java.util.List<YarnApplicationState> states = java.util.Arrays.asList(wanted);
    long deadline = System.currentTimeMillis() + 60_000;
    ApplicationReport r = client.getApplicationReport(id);
    while (!states.contains(r.getYarnApplicationState())
        && System.currentTimeMillis() < deadline) {
      Thread.sleep(100);
      r = client.getApplicationReport(id);
    }
    assertTrue(id + " reached " + states + ": " + r.getYarnApplicationState(),
        states.contains(r.getYarnApplicationState()));
    return r;
  }


  private static ApplicationSubmissionContext newApp(YarnClient client, String name, String queue,
      Resource am) throws Exception {
    YarnClientApplication app = client.createApplication();
    ApplicationSubmissionContext ctx = app.getApplicationSubmissionContext();
    ctx.setApplicationName(name);
    ctx.setQueue(queue);
    ctx.setResource(am);
    ContainerLaunchContext launch = Records.newRecord(ContainerLaunchContext.class);
    launch.setCommands(Collections.singletonList("sleep 1"));
    ctx.setAMContainerSpec(launch);
    return ctx;
  }
}
