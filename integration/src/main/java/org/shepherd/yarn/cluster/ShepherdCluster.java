package org.shepherd.yarn.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.inject.servlet.GuiceFilter;
import java.io.File;
import java.lang.reflect.Field;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.security.authorize.ProxyUsers;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.webapp.WebApp;
import org.shepherd.yarn.ShepherdScheduler;

/**
 * A real YARN cluster in this JVM — Hadoop's MiniMRYarnCluster: one
 * ResourceManager whose scheduler is {@link ShepherdScheduler} (or, for the
 * comparison harness, any scheduler the configuration names) and real
 * NodeManagers launching real container JVMs.
 */
public final class ShepherdCluster implements AutoCloseable {
  public static final int NODE_MANAGERS = 2;

  public final MiniMRYarnCluster cluster;
  public final Configuration conf;
  public final File workDir;
  /** Whether {@link #close()} deletes {@link #workDir}: only when this class made it. */
  private final boolean ownsWorkDir;

  private ShepherdCluster(MiniMRYarnCluster cluster, Configuration conf, File workDir,
      boolean ownsWorkDir) {
    this.cluster = cluster;
    this.conf = conf;
    this.workDir = workDir;
    this.ownsWorkDir = ownsWorkDir;
  }

  /** Base configuration: Shepherd as the scheduler, small containers, JDK 17 flags. */
  public static Configuration baseConf(String shepherdToml, File workDir) throws IOException {
    Configuration conf = commonConf(4096, 4);
    useShepherd(conf, shepherdToml, workDir);
    return conf;
  }

  /** Makes {@link ShepherdScheduler} the RM's scheduler with this TOML config. */
  public static void useShepherd(Configuration conf, String shepherdToml, File workDir)
      throws IOException {
    conf.set(YarnConfiguration.RM_SCHEDULER, ShepherdScheduler.class.getName());
    conf.set(ShepherdScheduler.NATIVE_LIBRARY, nativeLibrary());
    File toml = new File(workDir, "shepherd.toml");
    Files.write(toml.toPath(), shepherdToml.getBytes(StandardCharsets.UTF_8));
    conf.set(ShepherdScheduler.CONFIG_FILE, toml.getAbsolutePath());
    conf.setLong(ShepherdScheduler.ENGINE_RETRY_MS, 5_000);
  }

  /**
   * Everything but the scheduler: NodeManager size, 512 MiB task containers,
   * JDK 17 flags for container JVMs, proxy users, no JobHistory server.
   */
  public static Configuration commonConf(int nodeMemoryMb, int nodeVcores) {
    Configuration conf = new YarnConfiguration();
    conf.setInt(YarnConfiguration.NM_PMEM_MB, nodeMemoryMb);
    // MiniYARNCluster sizes its NodeManagers from its own key (default
    // 4 GiB), overriding the one above.
    conf.setInt(YarnConfiguration.YARN_MINICLUSTER_NM_PMEM_MB, nodeMemoryMb);
    conf.setInt(YarnConfiguration.NM_VCORES, nodeVcores);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 256);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, 4096);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    // JDK 17 flags, and whatever the caller adds for short-lived container
    // JVMs (the integration tests' pom: client-style JIT and GC, see there).
    String opens = System.getProperty("shepherd.jdk17.opens", "")
        + " " + System.getProperty("shepherd.container.jvm.flags", "");
    conf.setInt(MRJobConfig.MR_AM_VMEM_MB, 768);
    conf.set(MRJobConfig.MR_AM_COMMAND_OPTS, "-Xmx512m " + opens);
    conf.setInt(MRJobConfig.MAP_MEMORY_MB, 512);
    conf.set(MRJobConfig.MAP_JAVA_OPTS, "-Xmx384m " + opens);
    conf.setInt(MRJobConfig.REDUCE_MEMORY_MB, 512);
    conf.set(MRJobConfig.REDUCE_JAVA_OPTS, "-Xmx384m " + opens);
    // Jobs are submitted as alice and bob, impersonated by the test's user.
    String me = System.getProperty("user.name");
    conf.set("hadoop.proxyuser." + me + ".hosts", "*");
    conf.set("hadoop.proxyuser." + me + ".groups", "*");
    conf.set("hadoop.proxyuser." + me + ".users", "*");
    ProxyUsers.refreshSuperUserGroupsConfiguration(conf);
    // No JobHistory server: its web app would take over the JVM-wide Guice
    // filter and hide the RM's REST API. Job clients then read final job
    // status from the RM (mapreduce.jobhistory.address left empty).
    conf.setBoolean(MiniMRYarnCluster.MR_HISTORY_MINICLUSTER_ENABLED, false);
    // A NodeManager keeps a finished app (and, without log aggregation, its
    // container logs) for yarn.nodemanager.log.retain-seconds, 3 h by
    // default; stopping it waits ~7 s for those apps and another 10 s for
    // the pending log deletions, per NodeManager, in every test and harness
    // run. Keep them a few seconds instead; -Dshepherd.nm.log.retain.seconds
    // keeps container logs longer for debugging.
    conf.setLong(YarnConfiguration.NM_LOG_RETAIN_SECONDS,
        Long.getLong("shepherd.nm.log.retain.seconds", 1));
    // A NodeManager marks its local and log dirs bad once their disk is
    // more than 90 % full (YARN's default), and a node with no good dir
    // left is UNHEALTHY and gets no containers: on a nearly full
    // development disk every test would wait for nodes that never come.
    // These clusters test scheduling, not disk health: allow up to 99 %.
    conf.setFloat(YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, 99.0f);
    return conf;
  }

  public static ShepherdCluster start(String name, String shepherdToml) throws Exception {
    return start(name, shepherdToml, conf -> { });
  }

  /** As {@link #start(String, String)}, with {@code tweak} applied to the base configuration. */
  public static ShepherdCluster start(String name, String shepherdToml,
      Consumer<Configuration> tweak) throws Exception {
    File workDir = Files.createTempDirectory("shepherd-it-" + name).toFile();
    try {
      Configuration conf = baseConf(shepherdToml, workDir);
      tweak.accept(conf);
      MiniMRYarnCluster c = launch(name, conf, NODE_MANAGERS);
      return new ShepherdCluster(c, c.getConfig(), workDir, true);
    } catch (Exception | Error e) {
      deleteWorkDir(workDir);
      throw e;
    }
  }

  /** Starts a cluster with any scheduler configured in {@code conf}. */
  public static ShepherdCluster start(String name, Configuration conf, int nodeManagers,
      File workDir) throws Exception {
    MiniMRYarnCluster c = launch(name, conf, nodeManagers);
    return new ShepherdCluster(c, c.getConfig(), workDir, false);
  }

  private static MiniMRYarnCluster launch(String name, Configuration conf, int nodeManagers)
      throws Exception {
    MiniMRYarnCluster c = new MiniMRYarnCluster(name, nodeManagers);
    c.init(conf);
    c.start();
    routeWebRequestsToResourceManager(c.getResourceManager());
    return c;
  }

  /**
   * Hadoop 3.4's web apps install Guice's filter by class name, so all web
   * apps in one JVM share Guice's static pipeline and the last one started
   * (a NodeManager's) answers every request, hiding the RM's REST API with a
   * 404. In separate daemons this cannot happen; in this one-JVM cluster,
   * point the shared pipeline back at the ResourceManager's web app.
   */
  public static void routeWebRequestsToResourceManager(ResourceManager rm) throws Exception {
    Field webAppField = ResourceManager.class.getDeclaredField("webApp");
    webAppField.setAccessible(true);
    WebApp webApp = (WebApp) webAppField.get(rm);
    Field filterField = WebApp.class.getDeclaredField("guiceFilter");
    filterField.setAccessible(true);
    GuiceFilter rmFilter = (GuiceFilter) filterField.get(webApp);
    Field injected = GuiceFilter.class.getDeclaredField("injectedPipeline");
    injected.setAccessible(true);
    Field shared = GuiceFilter.class.getDeclaredField("pipeline");
    shared.setAccessible(true);
    shared.set(null, injected.get(rmFilter));
  }

  /**
   * As {@link #routeWebRequestsToResourceManager}, for several RMs in one JVM
   * (HA): instead of one JVM-wide pipeline, give the Guice filter of this
   * RM's own web server the RM's pipeline (a Guice filter prefers its
   * injected pipeline to the shared one), so each RM's web address answers
   * for that RM — as separate RM daemons do — whatever starts after it.
   */
  public static void pinWebServerToResourceManager(ResourceManager rm) throws Exception {
    Field webAppField = ResourceManager.class.getDeclaredField("webApp");
    webAppField.setAccessible(true);
    WebApp webApp = (WebApp) webAppField.get(rm);
    Field filterField = WebApp.class.getDeclaredField("guiceFilter");
    filterField.setAccessible(true);
    Field injected = GuiceFilter.class.getDeclaredField("injectedPipeline");
    injected.setAccessible(true);
    Object rmPipeline = injected.get(filterField.get(webApp));
    boolean pinned = false;
    for (org.eclipse.jetty.servlet.FilterHolder h
        : webApp.httpServer().getWebAppContext().getServletHandler().getFilters()) {
      if (h.getFilter() instanceof GuiceFilter) {
        injected.set(h.getFilter(), rmPipeline);
        pinned = true;
      }
    }
    if (!pinned) {
      throw new IllegalStateException("no Guice filter in the RM's web server");
    }
  }

  /**
   * Puts the ResourceManager on fixed addresses (web UI and REST on
   * {@code webPort}, its RPC services on free ports), so a sidecar started
   * before it, or an RM restarted under it, finds it at the same place.
   */
  public static void fixedRmPorts(Configuration conf, int webPort) throws IOException {
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, true);
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "127.0.0.1:" + webPort);
    conf.set(YarnConfiguration.RM_ADDRESS, "127.0.0.1:" + freePort());
    conf.set(YarnConfiguration.RM_SCHEDULER_ADDRESS, "127.0.0.1:" + freePort());
    conf.set(YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS, "127.0.0.1:" + freePort());
    conf.set(YarnConfiguration.RM_ADMIN_ADDRESS, "127.0.0.1:" + freePort());
  }

  /**
   * Lets the NodeManagers measure and report node utilization (off in
   * MiniYARNCluster by default): the sidecar's load estimates read it.
   */
  public static void reportUtilization(Configuration conf) {
    conf.setBoolean("yarn.minicluster.control-resource-monitoring", true);
    conf.setLong(YarnConfiguration.NM_RESOURCE_MON_INTERVAL_MS, 1000);
  }

  /**
   * As {@link #reportUtilization}, for NodeManagers that share this one
   * machine: their container monitors sample every second, each NM accounts
   * for an equal slice of the machine's CPU (so its containers' CPU is
   * reported in its own vcores, as on a machine of its own), and Shepherd's
   * engine reads each NM's containers' measured use rather than the
   * machine-wide figure every NM here would report alike.
   */
  public static void measureContainerUse(Configuration conf, int nodeManagers) {
    reportUtilization(conf);
    conf.setLong(YarnConfiguration.NM_CONTAINER_MON_INTERVAL_MS, 1000);
    conf.setInt(YarnConfiguration.NM_RESOURCE_PERCENTAGE_PHYSICAL_CPU_LIMIT,
        Math.max(1, 100 / nodeManagers));
    conf.set(ShepherdScheduler.UTILIZATION, "containers");
  }

  /**
   * A TCP port nothing listens on right now, below the kernel's ephemeral
   * range. A port the kernel hands out for {@code bind(0)} lies inside that
   * range, so between this call and the server binding it (an RM taking over
   * at failover binds minutes later) any outgoing connection (the sidecar polls
   * every 500 ms) may be given it as its local port, and the bind fails with
   * "Address already in use". Ports below the range are never handed out that
   * way; each is also handed out at most once per JVM, so two servers of one
   * test never share one.
   */
  public static synchronized int freePort() throws IOException {
    int high = ephemeralRangeStart();
    int low = Math.min(FIRST_FIXED_PORT, high - 1000);
    java.util.Random random = new java.util.Random();
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = low + random.nextInt(high - low);
      if (HANDED_OUT.contains(port)) {
        continue;
      }
      try (java.net.ServerSocket s = new java.net.ServerSocket()) {
        s.setReuseAddress(false);
        s.bind(new java.net.InetSocketAddress(port));
        HANDED_OUT.add(port);
        return port;
      } catch (IOException taken) {
        // something listens there; draw again
      }
    }
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      HANDED_OUT.add(s.getLocalPort());
      return s.getLocalPort();
    }
  }

  /** Lowest port of the range {@link #freePort} draws from (when the kernel's allows). */
  private static final int FIRST_FIXED_PORT = 20000;

  private static final java.util.Set<Integer> HANDED_OUT = new java.util.HashSet<>();

  /**
   * First port of Linux's ephemeral range (ip_local_port_range), 32768 where it
   * cannot be read. Read line by line: procfs files report size 0, so a
   * whole-file read returns a truncated first chunk.
   */
  private static int ephemeralRangeStart() {
    try (java.io.BufferedReader in = new java.io.BufferedReader(
        new java.io.FileReader("/proc/sys/net/ipv4/ip_local_port_range"))) {
      String line = in.readLine();
      if (line != null) {
        int start = Integer.parseInt(line.trim().split("\\s+")[0]);
        if (start > 2000) {
          return start;
        }
      }
    } catch (IOException | RuntimeException unreadable) {
      // not Linux, or the file is unreadable: use the common default
    }
    return 32768;
  }

  /** Stops the ResourceManager, leaving the NodeManagers running. */
  public void stopResourceManager() {
    cluster.stopResourceManager(0);
  }

  /** Starts a fresh ResourceManager on the same addresses (needs {@link #fixedRmPorts}). */
  public void restartResourceManager() throws Exception {
    cluster.restartResourceManager(0);
    routeWebRequestsToResourceManager(cluster.getResourceManager());
  }

  public static String nativeLibrary() {
    String lib = System.getProperty("shepherd.native.library");
    if (lib == null || !new File(lib).isFile()) {
      throw new IllegalStateException("libshepherd.so not found at " + lib
          + "; build it with `cargo build --release` (scripts/test.sh does)");
    }
    return new File(lib).getAbsolutePath();
  }

  public ResourceManager rm() {
    return cluster.getResourceManager();
  }

  public ShepherdScheduler scheduler() {
    return (ShepherdScheduler) rm().getResourceScheduler();
  }

  public JobConf jobConf() {
    JobConf jc = new JobConf(conf);
    jc.set("mapreduce.jobhistory.address", "");
    return jc;
  }

  /** The RM's web address, {@code http://host:port} (what a sidecar polls). */
  public String webAddress() {
    return "http://" + conf.get(YarnConfiguration.RM_WEBAPP_ADDRESS);
  }

  /** GET a page of the RM's web UI; returns the HTML. */
  public String page(String path) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL(webAddress() + path).openConnection();
    int code = c.getResponseCode();
    if (code != 200) {
      throw new IOException("GET " + path + " answered HTTP " + code);
    }
    try (InputStream in = c.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** GET a path of the RM's REST API and parse the JSON. */
  public JsonNode rest(String path) throws IOException {
    String addr = conf.get(YarnConfiguration.RM_WEBAPP_ADDRESS);
    HttpURLConnection c = (HttpURLConnection) new URL("http://" + addr + path).openConnection();
    c.setRequestProperty("Accept", "application/json");
    int code = c.getResponseCode();
    if (code != 200) {
      throw new IOException("GET " + path + " answered HTTP " + code);
    }
    try (InputStream in = c.getInputStream()) {
      return new ObjectMapper().readTree(in);
    }
  }

  /** The engine's state JSON (what every policy holds), parsed. */
  public JsonNode engineState() throws IOException {
    return new ObjectMapper().readTree(scheduler().getEngineStateJson());
  }

  /** The engine's view of application {@code id}, or null while it does not know it. */
  public JsonNode engineApp(ApplicationId id) throws IOException {
    for (JsonNode a : engineState().path("apps")) {
      if (id.toString().equals(a.path("yarn_id").asText())) {
        return a;
      }
    }
    return null;
  }

  /** A started YarnClient for this cluster (as the test's user); close it. */
  public YarnClient yarnClient() {
    YarnClient client = YarnClient.createYarnClient();
    client.init(conf);
    client.start();
    return client;
  }

  /**
   * Stops the cluster and deletes the temporary directory {@code start} made
   * for it (the TOML file, job inputs and outputs), so tests and quickstart
   * runs do not pile up directories in /tmp. A directory the caller passed
   * in (the comparison harness reads its results afterwards) stays, and so
   * do MiniYARNCluster's own directories (NodeManager local and log dirs).
   */
  @Override
  public void close() {
    try {
      cluster.stop();
    } finally {
      if (ownsWorkDir) {
        deleteWorkDir(workDir);
      }
    }
  }

  /**
   * Deletes a work directory this package made, unless
   * {@code -Dshepherd.keep.workdir=true} asks to keep it for debugging.
   */
  static void deleteWorkDir(File dir) {
    if (!Boolean.getBoolean("shepherd.keep.workdir")) {
      FileUtil.fullyDelete(dir);
    }
  }
}
