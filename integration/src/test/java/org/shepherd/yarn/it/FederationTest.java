package org.shepherd.yarn.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.SleepJob;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.cli.RouterCLI;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.federation.policies.manager.WeightedLocalityPolicyManager;
import org.apache.hadoop.yarn.server.federation.store.records.GetApplicationHomeSubClusterRequest;
import org.apache.hadoop.yarn.server.federation.store.records.GetSubClusterInfoRequest;
import org.apache.hadoop.yarn.server.federation.store.records.GetSubClusterPoliciesConfigurationsRequest;
import org.apache.hadoop.yarn.server.federation.store.records.SubClusterId;
import org.apache.hadoop.yarn.server.federation.store.records.SubClusterInfo;
import org.apache.hadoop.yarn.server.federation.utils.FederationStateStoreFacade;
import org.apache.hadoop.yarn.server.globalpolicygenerator.GPGContextImpl;
import org.apache.hadoop.yarn.server.globalpolicygenerator.GPGPolicyFacade;
import org.apache.hadoop.yarn.server.globalpolicygenerator.policygenerator.LoadBasedGlobalPolicy;
import org.apache.hadoop.yarn.server.globalpolicygenerator.policygenerator.PolicyGenerator;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.shepherd.yarn.cluster.FederatedShepherd;
import org.shepherd.yarn.cluster.Workloads;
import org.shepherd.yarn.cluster.FederatedShepherd.StateStore;
import org.shepherd.yarn.cluster.FederatedShepherd.SubCluster;

/**
 * Shepherd as the scheduler of every sub-cluster under YARN Federation
 * (issue 14, item 5): two sub-clusters, each a ResourceManager running
 * ShepherdScheduler with its own NodeManager, registered in one ZooKeeper
 * federation state store; a Router in front of them; the NodeManagers'
 * AMRMProxy running Federation's FederationInterceptor.
 *
 * <p>Per-queue routing policies are saved the operator's way (the Router's
 * admin service, {@code yarn routeradmin -policy -s}): queue {@code alpha}
 * lives on sc-1, {@code beta} on sc-2, and {@code gamma}'s apps start on sc-1
 * with their tasks' asks split half/half between the two. Three SleepJobs,
 * one per queue, are submitted through the Router at once. Checked: each
 * landed on the sub-cluster its policy names (the state store's
 * application → home sub-cluster record and that RM's own app), each
 * SUCCEEDED; gamma's asks reached sc-2's RM through the unmanaged AM its
 * AMRMProxy started there and Shepherd's engine in sc-2 placed containers for
 * it; every container in both sub-clusters was placed by the Rust engine
 * (none by the safe FIFO); their ids carry each RM's epoch; each RM's
 * heartbeat to the state store reports its own capacity; the Router merges
 * queue info and cluster metrics and fails reservations (Shepherd's RMs have
 * no reservation system). A second test runs the Global Policy Generator's
 * policy generator, which skips Shepherd's sub-clusters.
 *
 * <p>Everything runs in this JVM ({@link FederatedShepherd} says what that
 * needs); 1 to 1.5 min on a 2-core machine. See docs/federation.md.
 */
public class FederationTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOML = String.join("\n",
      "[scheduler]", "policy = \"composed\"",
      "[[queue]]", "name = \"alpha\"", "capacity = 0.34",
      "[[queue]]", "name = \"beta\"", "capacity = 0.33",
      "[[queue]]", "name = \"gamma\"", "capacity = 0.33", "");
  private static FederatedShepherd fed;

  @BeforeClass
  public static void startFederation() throws Exception {
    fed = FederatedShepherd.start(TOML, "sc-1", "sc-2");
  }

  @AfterClass
  public static void stopFederation() {
    if (fed != null) {
      fed.close();
    }
  }

  /** {@code yarn routeradmin -policy -s QUEUE;ROUTER-WEIGHTS;AMRM-WEIGHTS;HEADROOM-ALPHA}. */
  private static void savePolicy(String policy) throws Exception {
    Configuration conf = new YarnConfiguration(fed.clientConf());
    // routeradmin refuses to run outside Federation mode.
    conf.setBoolean(YarnConfiguration.FEDERATION_ENABLED, true);
    // The weighted policy the saved weights are for: LocalityRouterPolicy at
    // the Router, LocalityMulticastAMRMProxyPolicy in the AMRMProxy.
    conf.set(YarnConfiguration.FEDERATION_POLICY_MANAGER,
        WeightedLocalityPolicyManager.class.getName());
    RouterCLI cli = new RouterCLI(conf);
    assertEquals("yarn routeradmin -policy -s " + policy, 0,
        cli.run(new String[] {"-policy", "-s", policy}));
  }

  /** What sub-cluster {@code id}'s RM last heartbeated into the state store. */
  private static SubClusterInfo subClusterInfo(StateStore store, String id) throws Exception {
    return store.get().getSubCluster(GetSubClusterInfoRequest
        .newInstance(SubClusterId.newInstance(id))).getSubClusterInfo();
  }

  /** The cluster metrics in a sub-cluster's heartbeat. */
  private static JsonNode capability(SubClusterInfo info) throws Exception {
    return JSON.readTree(info.getCapability()).path("clusterMetrics");
  }

  @Test(timeout = 400_000)
  public void jobsRunOnTheirSubClustersPlacedByShepherd() throws Exception {
    // What each RM told the state store about its sub-cluster (the load view
    // of the Router's LoadBasedRouterPolicy and the GPG): ClusterMetricsInfo
    // built from Shepherd's root queue metrics. (Its node counts come from a
    // JVM-wide singleton, so here they count both sub-clusters' NMs.)
    // A sub-cluster is RUNNING from its first heartbeat, which can come
    // before its RM has added its NodeManager's capacity to the root queue
    // (CI on 2026-12-02 read sc-2 at totalMB=0): wait for a heartbeat that
    // reports it (every 2 s here).
    try (StateStore store = fed.stateStore()) {
      for (SubCluster sc : fed.subClusters()) {
        long until = System.currentTimeMillis() + 30_000;
        SubClusterInfo info = subClusterInfo(store, sc.id);
        while (capability(info).path("totalMB").asLong() != 4096 && System.currentTimeMillis() < until) {
          Thread.sleep(500);
          info = subClusterInfo(store, sc.id);
        }
        JsonNode m = capability(info);
        System.out.printf("state store: %s %s totalMB=%d availableMB=%d allocatedMB=%d"
            + " totalVirtualCores=%d activeNodes=%d%n", sc.id, info.getState(),
            m.path("totalMB").asLong(), m.path("availableMB").asLong(),
            m.path("allocatedMB").asLong(), m.path("totalVirtualCores").asLong(),
            m.path("activeNodes").asInt());
        assertEquals(sc.id + " reports one NodeManager's memory", 4096,
            m.path("totalMB").asLong());
      }
    }

    // Policies are keyed by the queue's full path: the Router looks up the
    // queue the client names, the AMRMProxy the queue the home RM reports for
    // the app, and the RM records the path its scheduler gives
    // (RMAppManager#getQueuePath asks getQueueInfo: Shepherd says root.alpha
    // for alpha, as the CapacityScheduler does). Jobs name the full path too.
    savePolicy("root.alpha;sc-1:1.0,sc-2:0.0;sc-1:1.0,sc-2:0.0;0.0");
    savePolicy("root.beta;sc-1:0.0,sc-2:1.0;sc-1:0.0,sc-2:1.0;0.0");
    savePolicy("root.gamma;sc-1:1.0,sc-2:0.0;sc-1:0.5,sc-2:0.5;0.0");

    Map<String, long[]> before = new LinkedHashMap<>();
    for (SubCluster sc : fed.subClusters()) {
      before.put(sc.id, new long[] {sc.scheduler().getEngineAllocations(),
          sc.scheduler().getFallbackAllocations()});
    }
    // Which apps each sub-cluster's engine held, sampled while the jobs run.
    Map<String, Set<String>> engineApps = new ConcurrentHashMap<>();
    // The ids of the containers each sub-cluster's scheduler ran.
    Map<String, Set<ContainerId>> containers = new ConcurrentHashMap<>();
    // Each sub-cluster's heartbeat to the state store while the jobs run:
    // the most memory it reported allocated, and every total it reported.
    Map<String, Long> maxAllocatedMb = new ConcurrentHashMap<>();
    Map<String, Set<Long>> totalsMb = new ConcurrentHashMap<>();
    StateStore sampledStore = fed.stateStore();
    Thread sampler = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        for (SubCluster sc : fed.subClusters()) {
          try {
            JsonNode m = capability(subClusterInfo(sampledStore, sc.id));
            maxAllocatedMb.merge(sc.id, m.path("allocatedMB").asLong(), Math::max);
            totalsMb.computeIfAbsent(sc.id, k -> ConcurrentHashMap.newKeySet())
                .add(m.path("totalMB").asLong());
            for (JsonNode a : JSON.readTree(sc.scheduler().getEngineStateJson()).path("apps")) {
              engineApps.computeIfAbsent(sc.id, k -> ConcurrentHashMap.newKeySet())
                  .add(a.path("yarn_id").asText());
            }
            for (NodeId node : sc.rm().getRMContext().getRMNodes().keySet()) {
              SchedulerNode sn = sc.scheduler().getSchedulerNode(node);
              if (sn != null) {
                for (RMContainer c : sn.getCopiedListOfRunningContainers()) {
                  containers.computeIfAbsent(sc.id, k -> ConcurrentHashMap.newKeySet())
                      .add(c.getContainerId());
                }
              }
            }
          } catch (Exception raced) {
            // state changed while read: sample again
          }
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "engine-sampler");
    sampler.setDaemon(true);
    sampler.start();

    JobConf base = new JobConf(fed.clientConf());
    base.set("mapreduce.jobhistory.address", "");
    ExecutorService pool = Executors.newFixedThreadPool(3);
    Map<String, Future<Job>> jobs = new LinkedHashMap<>();
    long t0 = System.currentTimeMillis();
    try {
      for (String queue : new String[] {"alpha", "beta", "gamma"}) {
        int maps = queue.equals("gamma") ? 4 : 2;
        jobs.put(queue, pool.submit(() -> {
          JobConf jc = Workloads.ownJobConf(base);
          jc.set(MRJobConfig.QUEUE_NAME, "root." + queue);
          SleepJob sleep = new SleepJob();
          sleep.setConf(jc);
          Job job = sleep.createJob(maps, 1, 3_000, 1, 1_000, 1);
          job.setJobName("federated-" + queue);
          assertTrue(queue + " job SUCCEEDED", job.waitForCompletion(false));
          return job;
        }));
      }
      Map<String, ApplicationId> ids = new LinkedHashMap<>();
      for (Map.Entry<String, Future<Job>> e : jobs.entrySet()) {
        Job job = e.getValue().get();
        ids.put(e.getKey(), toAppId(job));
      }
      System.out.printf("three jobs through the Router in %.1f s%n",
          (System.currentTimeMillis() - t0) / 1000.0);
      sampler.interrupt();
      sampler.join();
      sampledStore.close();
      // Shepherd's root queue metrics fed the heartbeat: allocated memory
      // rose with the jobs and available + allocated stayed the capacity.
      for (SubCluster sc : fed.subClusters()) {
        System.out.printf("state store while the jobs ran: %s allocatedMB up to %d,"
            + " totalMB %s%n", sc.id, maxAllocatedMb.get(sc.id), totalsMb.get(sc.id));
        assertTrue(sc.id + " reported its allocations", maxAllocatedMb.get(sc.id) > 0);
        // totalMB is availableMB + allocatedMB, two queue metrics written
        // one after the other (the shim refreshes availableMB right after a
        // release, in completedContainerInternal; before it did, a sample
        // taken until the next node update read one container short: CI on
        // 2026-11-25 saw 3584 = 4096 - 512 once). So: the capacity is what
        // the heartbeat reports, and no sample strays by more than the
        // largest container here (the MapReduce AM's 1536 MB).
        Set<Long> totals = totalsMb.get(sc.id);
        assertTrue(sc.id + " reported its capacity: " + totals, totals.contains(4096L));
        for (long total : totals) {
          assertTrue(sc.id + " reported totals within one container of its capacity: " + totals,
              Math.abs(total - 4096L) <= 1536L);
        }
      }

      Map<String, String> expectedHome = Map.of("alpha", "sc-1", "beta", "sc-2", "gamma", "sc-1");
      try (StateStore store = fed.stateStore();
           YarnClient viaRouter = YarnClient.createYarnClient()) {
        viaRouter.init(fed.clientConf());
        viaRouter.start();
        for (Map.Entry<String, ApplicationId> e : ids.entrySet()) {
          ApplicationId id = e.getValue();
          String home = store.get().getApplicationHomeSubCluster(
              GetApplicationHomeSubClusterRequest.newInstance(id))
              .getApplicationHomeSubCluster().getHomeSubCluster().getId();
          ApplicationReport r = viaRouter.getApplicationReport(id);
          System.out.printf("%s %s: home %s, %s/%s via the Router%n", e.getKey(), id, home,
              r.getYarnApplicationState(), r.getFinalApplicationStatus());
          assertEquals(e.getKey() + "'s home sub-cluster", expectedHome.get(e.getKey()), home);
          assertEquals(FinalApplicationStatus.SUCCEEDED, r.getFinalApplicationStatus());
          RMApp app = fed.subCluster(home).rm().getRMContext().getRMApps().get(id);
          assertTrue(id + " ran on its home RM " + home, app != null);
          assertTrue(id + " is a managed app on " + home,
              !app.getApplicationSubmissionContext().getUnmanagedAM());
        }
        routerQueries(viaRouter);
      }

      // gamma spanned both sub-clusters: its unmanaged AM on sc-2, with
      // containers Shepherd's engine there placed and that ran.
      ApplicationId gamma = ids.get("gamma");
      RMApp secondary = fed.subCluster("sc-2").rm().getRMContext().getRMApps().get(gamma);
      assertTrue("gamma's unmanaged AM registered with sc-2", secondary != null
          && secondary.getApplicationSubmissionContext().getUnmanagedAM());
      long gammaMemSecondsOnSc2 = secondary.getRMAppMetrics().getMemorySeconds();
      System.out.printf("gamma on sc-2 (unmanaged AM): %s, memory-seconds %d%n",
          secondary.getState(), gammaMemSecondsOnSc2);
      assertTrue("gamma's tasks ran on sc-2", gammaMemSecondsOnSc2 > 0);

      for (SubCluster sc : fed.subClusters()) {
        long engine = sc.scheduler().getEngineAllocations() - before.get(sc.id)[0];
        long fallback = sc.scheduler().getFallbackAllocations() - before.get(sc.id)[1];
        Set<String> seen = new TreeSet<>(engineApps.getOrDefault(sc.id, Set.of()));
        System.out.printf("%s: containers placed by the engine %d, by the safe FIFO %d;"
            + " apps in its engine %s%n", sc.id, engine, fallback, seen);
        assertEquals(sc.id + ": no container placed by the safe FIFO", 0, fallback);
        assertTrue(sc.id + ": the engine placed containers", engine > 0);
      }
      // Container ids carry their RM's epoch (sc-1: 1, sc-2: 2), so gamma's
      // containers from its two RMs, under the same attempt id, stay apart.
      for (int i = 0; i < fed.subClusters().size(); i++) {
        SubCluster sc = fed.subClusters().get(i);
        Set<ContainerId> ran = containers.getOrDefault(sc.id, Set.of());
        Set<ContainerId> gammaHere = new TreeSet<>();
        for (ContainerId c : ran) {
          assertEquals(c + " on " + sc.id + " carries its RM's epoch", i + 1,
              c.getContainerId() >> 40);
          if (c.getApplicationAttemptId().getApplicationId().equals(gamma)) {
            gammaHere.add(c);
          }
        }
        System.out.printf("%s: %d containers seen running; gamma's: %s%n", sc.id, ran.size(),
            gammaHere);
        assertTrue(sc.id + ": every container seen was placed by the engine",
            sc.scheduler().getEngineAllocations() - before.get(sc.id)[0] >= ran.size());
        assertTrue(sc.id + " ran some of gamma's containers", !gammaHere.isEmpty());
      }
      assertTrue("sc-1's engine held alpha and gamma",
          engineApps.get("sc-1").containsAll(List.of(ids.get("alpha").toString(),
              gamma.toString())));
      assertTrue("sc-2's engine held beta and gamma's unmanaged AM",
          engineApps.get("sc-2").containsAll(List.of(ids.get("beta").toString(),
              gamma.toString())));
      // alpha's and beta's asks stayed home (AMRMProxy weight 0 elsewhere).
      assertTrue("alpha never reached sc-2",
          !engineApps.getOrDefault("sc-2", Set.of()).contains(ids.get("alpha").toString())
          && fed.subCluster("sc-2").rm().getRMContext().getRMApps().get(ids.get("alpha")) == null);
      assertTrue("beta never reached sc-1",
          !engineApps.getOrDefault("sc-1", Set.of()).contains(ids.get("beta").toString())
          && fed.subCluster("sc-1").rm().getRMContext().getRMApps().get(ids.get("beta")) == null);
    } finally {
      sampler.interrupt();
      sampledStore.close();
      pool.shutdownNow();
    }
  }

  /**
   * The Global Policy Generator's policy generator, run once against the two
   * Shepherd sub-clusters: it reads each RM's {@code /ws/v1/cluster/scheduler}
   * (at the web address the RM registered), finds a FifoScheduler-type
   * answer (the only form YARN's web layer renders for Shepherd) and skips
   * the sub-cluster, since it generates policies only for the
   * CapacityScheduler's queues; no policy is written. This is the GPG's
   * limitation with any non-CapacityScheduler sub-cluster, and Shepherd's.
   */
  @Test(timeout = 120_000)
  public void globalPolicyGeneratorSkipsShepherdSubClusters() throws Exception {
    Configuration conf = fed.daemonConf();
    conf.set(YarnConfiguration.GPG_GLOBAL_POLICY_CLASS, LoadBasedGlobalPolicy.class.getName());
    FederationStateStoreFacade facade = FederationStateStoreFacade.getInstance(conf);
    GPGContextImpl context = new GPGContextImpl();
    context.setStateStoreFacade(facade);
    context.setPolicyFacade(new GPGPolicyFacade(facade, conf));

    List<String> warnings = new ArrayList<>();
    org.apache.log4j.Logger log = org.apache.log4j.Logger.getLogger(PolicyGenerator.class);
    org.apache.log4j.AppenderSkeleton capture = new org.apache.log4j.AppenderSkeleton() {
      @Override
      protected void append(org.apache.log4j.spi.LoggingEvent e) {
        synchronized (warnings) {
          warnings.add(e.getRenderedMessage());
        }
      }

      @Override
      public void close() {
      }

      @Override
      public boolean requiresLayout() {
        return false;
      }
    };
    log.addAppender(capture);
    try (StateStore store = fed.stateStore()) {
      for (SubCluster sc : fed.subClusters()) {
        String web = subClusterInfo(store, sc.id).getRMWebServiceAddress();
        JsonNode type = JSON.readTree(new java.net.URL("http://" + web
            + "/ws/v1/cluster/scheduler").openStream()).path("scheduler")
            .path("schedulerInfo").path("type");
        System.out.printf("%s /ws/v1/cluster/scheduler type: %s%n", sc.id, type.asText());
        assertEquals("fifoScheduler", type.asText());
      }
      int before = policyCount(store);
      new PolicyGenerator(conf, context).run();
      int after = policyCount(store);
      System.out.printf("GPG policy generator: policies %d -> %d; it said %s%n", before, after,
          warnings);
      assertEquals("the GPG wrote no policy", before, after);
      for (SubCluster sc : fed.subClusters()) {
        assertTrue("the GPG skipped " + sc.id, warnings.stream().anyMatch(w ->
            w.contains("Skipping SubCluster " + sc.id)
            && w.contains("not configured with capacity scheduler")));
      }
    } finally {
      log.removeAppender(capture);
    }
  }

  private static int policyCount(StateStore store) throws Exception {
    return store.get().getPoliciesConfigurations(
        GetSubClusterPoliciesConfigurationsRequest.newInstance()).getPoliciesConfigs().size();
  }

  /**
   * What the Router makes of Shepherd's answers to the calls it fans out to
   * every sub-cluster: cluster metrics and queue info are merged (sums), and
   * reservations fail because Shepherd's RMs have no reservation system.
   */
  private static void routerQueries(YarnClient viaRouter) throws Exception {
    int nodes = viaRouter.getYarnClusterMetrics().getNumNodeManagers();
    QueueInfo alpha = viaRouter.getQueueInfo("root.alpha");
    System.out.printf("via the Router: %d NodeManagers; queue %s capacity %.2f"
        + " (sum over sub-clusters of Shepherd's 0.34)%n", nodes, alpha.getQueuePath(),
        alpha.getCapacity());
    assertEquals("NodeManagers of both sub-clusters", 2, nodes);
    assertEquals("root.alpha", alpha.getQueuePath());
    assertEquals(2 * 0.34, alpha.getCapacity(), 1e-4);
    try {
      viaRouter.createReservation();
      throw new AssertionError("a reservation was created without a reservation system");
    } catch (YarnException e) {
      System.out.println("via the Router: createReservation -> " + e.getMessage());
    }
  }

  private static ApplicationId toAppId(Job job) {
    String jobId = job.getJobID().toString(); // job_<cluster-ts>_<seq>
    String[] parts = jobId.split("_");
    return ApplicationId.newInstance(Long.parseLong(parts[1]), Integer.parseInt(parts[2]));
  }
}
