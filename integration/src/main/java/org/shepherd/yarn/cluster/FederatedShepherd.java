package org.shepherd.yarn.cluster;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.service.Service;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.federation.store.FederationStateStore;
import org.apache.hadoop.yarn.server.federation.store.impl.ZookeeperFederationStateStore;
import org.apache.hadoop.yarn.server.federation.store.records.GetSubClustersInfoRequest;
import org.apache.hadoop.yarn.server.federation.store.records.SubClusterInfo;
import org.apache.hadoop.yarn.server.federation.store.records.SubClusterState;
import org.apache.hadoop.yarn.server.nodemanager.NodeStatusUpdaterImpl;
import org.apache.hadoop.yarn.server.resourcemanager.ClientRMService;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.router.Router;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.shepherd.yarn.ShepherdScheduler;

/**
 * YARN Federation on one machine with Shepherd as every sub-cluster's
 * scheduler: an embedded ZooKeeper holding the federation state store
 * ({@code ZookeeperFederationStateStore}, which every daemon reaches over the
 * network, as in production), N sub-clusters — each a {@link MiniYARNCluster}
 * with one ResourceManager running {@link ShepherdScheduler} and one
 * NodeManager whose AMRMProxy runs Federation's {@code FederationInterceptor}
 * — and a Router whose client and admin services federate them.
 *
 * <p>Everything runs in this JVM, which shares a few process-wide objects that
 * separate daemons would not. The workarounds are here, each with its reason:
 * a clean queue-metrics cache per RM, a counter range per RM for application
 * ids ({@link #startSubCluster}), every NM told the RM start time all RMs now
 * stamp on container tokens ({@link #alignRmIdentifiers}), each RM's web
 * server pinned to its own pages, and one AMRMProxy port per NM passed to the
 * AMs through the environment ({@link #AMRMPROXY_ENV}). Hadoop's own
 * federation tests start each sub-cluster in a JVM of its own instead.
 */
public final class FederatedShepherd implements AutoCloseable {
  /** One NodeManager per sub-cluster: its AMRMProxy address is then unique (see below). */
  public static final int NODE_MANAGERS_PER_SUB_CLUSTER = 1;
  /**
   * The environment variable through which each NodeManager tells the AMs it
   * launches where its AMRMProxy listens. On a real cluster every NM's
   * AMRMProxy listens on the same {@code localhost:8049} and the AMs'
   * {@code yarn.resourcemanager.scheduler.address} simply names it; here the
   * NMs share one host and need a port each, so the job configuration says
   * {@code ${env.SHEPHERD_AMRMPROXY_ADDRESS}} and each NM sets the variable
   * ({@code yarn.nodemanager.admin-env}) for its containers.
   */
  public static final String AMRMPROXY_ENV = "SHEPHERD_AMRMPROXY_ADDRESS";

  /** One sub-cluster: its id in the state store, its RM and NM, its configuration. */
  public static final class SubCluster {
    public final String id;
    public final MiniYARNCluster yarn;
    public final Configuration conf;
    public final String amrmProxyAddress;

    SubCluster(String id, MiniYARNCluster yarn, Configuration conf, String amrmProxyAddress) {
      this.id = id;
      this.yarn = yarn;
      this.conf = conf;
      this.amrmProxyAddress = amrmProxyAddress;
    }

    public ResourceManager rm() {
      return yarn.getResourceManager();
    }

    public ShepherdScheduler scheduler() {
      return (ShepherdScheduler) rm().getResourceScheduler();
    }
  }

  private final File workDir;
  private final EmbeddedZooKeeper zooKeeper;
  private final List<SubCluster> subClusters = new ArrayList<>();
  private Router router;
  private Configuration routerConf;

  private FederatedShepherd(File workDir, EmbeddedZooKeeper zooKeeper) {
    this.workDir = workDir;
    this.zooKeeper = zooKeeper;
  }

  /**
   * Starts ZooKeeper, {@code ids.length} sub-clusters running Shepherd with
   * {@code shepherdToml}, and the Router; returns once every sub-cluster has
   * heartbeated into the state store (SC_RUNNING), so the Router can route
   * to it.
   */
  public static FederatedShepherd start(String shepherdToml, String... ids) throws Exception {
    File work = Files.createTempDirectory("shepherd-it-federation").toFile();
    FederatedShepherd f = new FederatedShepherd(work, EmbeddedZooKeeper.start(new File(work, "zk")));
    try {
      for (int i = 0; i < ids.length; i++) {
        f.subClusters.add(f.startSubCluster(ids[i], i, shepherdToml));
      }
      f.alignRmIdentifiers();
      f.awaitSubClustersRunning(60_000);
      f.startRouter();
      return f;
    } catch (Exception | Error e) {
      f.close();
      throw e;
    }
  }

  /**
   * What every federation daemon (RM, NM's AMRMProxy, Router) needs to find
   * the others: the state store (ZooKeeper here), no caching of its answers
   * (so a sub-cluster or a policy written a moment ago is seen at once), and
   * quick sub-cluster heartbeats (defaults: first after 30 s, then every 5 min).
   */
  private void federationKeys(Configuration conf) {
    conf.setBoolean(YarnConfiguration.FEDERATION_ENABLED, true);
    conf.set(YarnConfiguration.FEDERATION_STATESTORE_CLIENT_CLASS,
        ZookeeperFederationStateStore.class.getName());
    conf.set(CommonConfigurationKeys.ZK_ADDRESS, zooKeeper.connectString());
    conf.setInt(YarnConfiguration.FEDERATION_CACHE_TIME_TO_LIVE_SECS, 0);
    conf.setLong(YarnConfiguration.FEDERATION_STATESTORE_HEARTBEAT_INITIAL_DELAY, 1);
    conf.setLong(YarnConfiguration.FEDERATION_STATESTORE_HEARTBEAT_INTERVAL_SECS, 2);
  }

  /** MapReduce on a plain MiniYARNCluster: framework, staging dir, shuffle. */
  private void mapReduceKeys(Configuration conf) {
    conf.set(MRConfig.FRAMEWORK_NAME, MRConfig.YARN_FRAMEWORK_NAME);
    conf.set(MRJobConfig.MR_AM_STAGING_DIR, new File(workDir, "staging").getAbsolutePath());
    conf.set("fs.permissions.umask-mode", "000");
    conf.setStrings(YarnConfiguration.NM_AUX_SERVICES,
        ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID);
    conf.setClass(String.format(YarnConfiguration.NM_AUX_SERVICE_FMT,
        ShuffleHandler.MAPREDUCE_SHUFFLE_SERVICEID), ShuffleHandler.class, Service.class);
    conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
  }

  private SubCluster startSubCluster(String id, int index, String shepherdToml) throws Exception {
    File dir = new File(workDir, id);
    dir.mkdirs();
    Configuration conf = ShepherdCluster.commonConf(4096, 4);
    ShepherdCluster.useShepherd(conf, shepherdToml, dir);
    mapReduceKeys(conf);
    federationKeys(conf);
    // The RM and its NM know which sub-cluster they are.
    conf.set(YarnConfiguration.RM_CLUSTER_ID, id);
    // Container ids carry the RM's epoch. An app that spans sub-clusters has
    // the same attempt id in each (its home RM and the unmanaged AM the
    // AMRMProxy starts in the other), so only distinct epochs keep their
    // container ids apart. Federation takes the epoch from this key when RM
    // recovery is off.
    conf.setLong(YarnConfiguration.RM_EPOCH, index + 1);
    // With federation on, the RM insists that an AM outlives a lost NM
    // (AM expiry > NM expiry; both default to 10 min).
    conf.setLong(YarnConfiguration.RM_NM_EXPIRY_INTERVAL_MS, 120_000);
    ShepherdCluster.fixedRmPorts(conf, ShepherdCluster.freePort());
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_USE_RPC, true);
    // Sub-cluster RMs without RM HA. "Federation failover" would make the
    // NM look for RM HA ids to reach its own RM; "non-HA" makes the AMRMProxy
    // find each sub-cluster's RM (home and secondary) in the state store
    // instead of in this NM's configuration, which names its own RM only.
    conf.setBoolean(YarnConfiguration.FEDERATION_FAILOVER_ENABLED, false);
    conf.setBoolean(YarnConfiguration.FEDERATION_NON_HA_ENABLED, true);
    // The NM's AMRMProxy: every AM launched here talks to it, not to the RM;
    // its FederationInterceptor forwards to the home RM and, when the
    // queue's policy sends asks elsewhere, to unmanaged AMs it starts in the
    // other sub-clusters.
    String amrmProxy = "127.0.0.1:" + ShepherdCluster.freePort();
    conf.setBoolean(YarnConfiguration.AMRM_PROXY_ENABLED, true);
    conf.set(YarnConfiguration.AMRM_PROXY_ADDRESS, amrmProxy);
    conf.set(YarnConfiguration.AMRM_PROXY_INTERCEPTOR_CLASS_PIPELINE,
        "org.apache.hadoop.yarn.server.nodemanager.amrmproxy.FederationInterceptor");
    conf.set(YarnConfiguration.NM_ADMIN_USER_ENV,
        "MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX," + AMRMPROXY_ENV + "=" + amrmProxy);

    // One JVM, several RMs: queue metrics are cached JVM-wide by queue name,
    // so this RM's root and leaf queues would reuse the previous RM's (and its
    // federation heartbeat would report both sub-clusters' load as its own).
    // Separate RM daemons each have their own; start this one with a clean cache.
    QueueMetrics.clearQueueMetrics();
    MiniYARNCluster yarn = new MiniYARNCluster(id, 1, NODE_MANAGERS_PER_SUB_CLUSTER, 1, 1);
    yarn.init(conf);
    yarn.start();
    if (!yarn.waitForNodeManagersToConnect(60_000)) {
      throw new IllegalStateException(id + ": NodeManager did not register");
    }
    // One JVM, several RMs: application ids are (RM start time, counter), the
    // start time is a JVM-wide static, so two RMs here would hand out the
    // same ids; the Router asks a random sub-cluster for each new id. Give
    // each RM its own counter range (separate daemons have distinct start times).
    Field counter = ClientRMService.class.getDeclaredField("applicationCounter");
    counter.setAccessible(true);
    ((AtomicInteger) counter.get(yarn.getResourceManager().getClientRMService()))
        .set(index * 10_000);
    return new SubCluster(id, yarn, yarn.getConfig(), amrmProxy);
  }

  /**
   * One JVM, several RMs: an RM stamps every container token with its start
   * time, read from the same JVM-wide static that each RM's start resets;
   * so once the second RM has started, the first one's tokens carry the
   * second's start time and the first RM's NodeManager — which remembers the
   * start time its RM gave it at registration — refuses every container
   * ("rejected as it is allocated by a previous RM"). Separate RM daemons
   * each keep their own; here, tell every NM the value all RMs now stamp.
   */
  private void alignRmIdentifiers() throws Exception {
    Field rmIdentifier = NodeStatusUpdaterImpl.class.getDeclaredField("rmIdentifier");
    rmIdentifier.setAccessible(true);
    for (SubCluster sc : subClusters) {
      for (int i = 0; i < NODE_MANAGERS_PER_SUB_CLUSTER; i++) {
        rmIdentifier.setLong(sc.yarn.getNodeManager(i).getNodeStatusUpdater(),
            ResourceManager.getClusterTimeStamp());
      }
    }
  }

  private void startRouter() throws Exception {
    Configuration conf = new YarnConfiguration();
    federationKeys(conf);
    conf.set(YarnConfiguration.ROUTER_CLIENTRM_ADDRESS, "127.0.0.1:" + ShepherdCluster.freePort());
    conf.set(YarnConfiguration.ROUTER_RMADMIN_ADDRESS, "127.0.0.1:" + ShepherdCluster.freePort());
    conf.set(YarnConfiguration.ROUTER_WEBAPP_ADDRESS, "127.0.0.1:" + ShepherdCluster.freePort());
    conf.set(YarnConfiguration.ROUTER_CLIENTRM_INTERCEPTOR_CLASS_PIPELINE,
        "org.apache.hadoop.yarn.server.router.clientrm.FederationClientInterceptor");
    conf.set(YarnConfiguration.ROUTER_RMADMIN_INTERCEPTOR_CLASS_PIPELINE,
        "org.apache.hadoop.yarn.server.router.rmadmin.FederationRMAdminInterceptor");
    String me = System.getProperty("user.name");
    conf.set("hadoop.proxyuser." + me + ".hosts", "*");
    conf.set("hadoop.proxyuser." + me + ".groups", "*");
    router = new Router();
    router.init(conf);
    router.start();
    routerConf = conf;
    // The Router's web app started last and took over the JVM-wide Guice
    // pipeline; give each RM's web server its own back (see ShepherdCluster).
    for (SubCluster sc : subClusters) {
      ShepherdCluster.pinWebServerToResourceManager(sc.rm());
    }
  }

  /** Waits until the state store lists every sub-cluster as SC_RUNNING. */
  private void awaitSubClustersRunning(long timeoutMs) throws Exception {
    long until = System.currentTimeMillis() + timeoutMs;
    try (StateStore store = stateStore()) {
      while (true) {
        int running = 0;
        for (SubClusterInfo info : store.get().getSubClusters(
            GetSubClustersInfoRequest.newInstance(true)).getSubClusters()) {
          running += info.getState() == SubClusterState.SC_RUNNING ? 1 : 0;
        }
        if (running == subClusters.size()) {
          return;
        }
        if (System.currentTimeMillis() > until) {
          throw new IllegalStateException(running + " of " + subClusters.size()
              + " sub-clusters running in the state store after " + timeoutMs + " ms");
        }
        Thread.sleep(250);
      }
    }
  }

  /**
   * A federation daemon's configuration (what a Global Policy Generator or a
   * second Router would start from): the state store and its settings.
   */
  public Configuration daemonConf() {
    Configuration conf = new YarnConfiguration();
    federationKeys(conf);
    return conf;
  }

  /** A state-store client of its own (ZooKeeper), as an operator's tool would open; close it. */
  public StateStore stateStore() {
    Configuration conf = new YarnConfiguration();
    federationKeys(conf);
    ZookeeperFederationStateStore store = new ZookeeperFederationStateStore();
    try {
      store.init(conf);
    } catch (Exception e) {
      throw new IllegalStateException("cannot open the federation state store", e);
    }
    return new StateStore(store);
  }

  /** A {@link FederationStateStore} that closes. */
  public static final class StateStore implements AutoCloseable {
    private final FederationStateStore store;

    StateStore(FederationStateStore store) {
      this.store = store;
    }

    public FederationStateStore get() {
      return store;
    }

    @Override
    public void close() throws Exception {
      store.close();
    }
  }

  public List<SubCluster> subClusters() {
    return subClusters;
  }

  public SubCluster subCluster(String id) {
    for (SubCluster sc : subClusters) {
      if (sc.id.equals(id)) {
        return sc;
      }
    }
    throw new IllegalArgumentException("no sub-cluster " + id);
  }

  public Router router() {
    return router;
  }

  /**
   * A client's configuration: the Router is its ResourceManager (client and
   * admin RPC), and the AMs of its jobs talk to the AMRMProxy of the
   * NodeManager they run on (see {@link #AMRMPROXY_ENV}).
   */
  public Configuration clientConf() {
    Configuration conf = new YarnConfiguration(subClusters.get(0).conf);
    conf.set(YarnConfiguration.RM_ADDRESS, routerConf.get(YarnConfiguration.ROUTER_CLIENTRM_ADDRESS));
    conf.set(YarnConfiguration.RM_ADMIN_ADDRESS,
        routerConf.get(YarnConfiguration.ROUTER_RMADMIN_ADDRESS));
    conf.set(YarnConfiguration.RM_SCHEDULER_ADDRESS, "${env." + AMRMPROXY_ENV + "}");
    // A client (and the AMs, which read the job's configuration) is not a
    // federation daemon: the Router is simply its ResourceManager.
    conf.unset(YarnConfiguration.RM_CLUSTER_ID);
    conf.setBoolean(YarnConfiguration.FEDERATION_ENABLED, false);
    conf.setBoolean(YarnConfiguration.AMRM_PROXY_ENABLED, false);
    return conf;
  }

  @Override
  public void close() {
    // The Router first (it shuts the JVM's metrics system down as it stops).
    for (Runnable stop : new Runnable[] {
        () -> { if (router != null) { router.stop(); } },
        () -> subClusters.forEach(sc -> sc.yarn.stop()),
        zooKeeper::close,
        () -> ShepherdCluster.deleteWorkDir(workDir)}) {
      try {
        stop.run();
      } catch (RuntimeException e) {
        System.err.println("federation teardown: " + e);
      }
    }
  }

  /**
   * A single ZooKeeper server inside this JVM, from the ZooKeeper jar Hadoop
   * already depends on: the federation state store every daemon reaches over
   * TCP, as it would a real ensemble.
   */
  static final class EmbeddedZooKeeper implements AutoCloseable {
    private final ZooKeeperServer server;
    private final ServerCnxnFactory connections;

    private EmbeddedZooKeeper(ZooKeeperServer server, ServerCnxnFactory connections) {
      this.server = server;
      this.connections = connections;
    }

    static EmbeddedZooKeeper start(File dir) throws IOException, InterruptedException {
      dir.mkdirs();
      ZooKeeperServer server = new ZooKeeperServer(dir, dir, 2000);
      ServerCnxnFactory connections =
          ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 100);
      connections.startup(server);
      return new EmbeddedZooKeeper(server, connections);
    }

    String connectString() {
      return "127.0.0.1:" + connections.getLocalPort();
    }

    @Override
    public void close() {
      connections.shutdown();
      server.shutdown();
    }
  }
}
