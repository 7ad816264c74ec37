package org.shepherd.yarn.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.shepherd.yarn.ShepherdScheduler;

/**
 * The README's first command: a local YARN cluster (real RM with Shepherd,
 * real NodeManagers), a small real workload from two users in two queues,
 * and a printed account of what ran and how long it took.
 *
 * <p>Usage: {@code Quickstart [shepherd.toml]}
 */
public final class Quickstart {
  /** The composed default in two queues that share the cluster by DRF. */
  static final String DEFAULT_CONFIG = String.join("\n",
      "[scheduler]", "policy = \"composed\"",
      "[[queue]]", "name = \"alpha\"", "capacity = 0.5",
      "[[queue]]", "name = \"beta\"", "capacity = 0.5", "");

  private Quickstart() {
  }

  public static void main(String[] args) throws Exception {
    String toml = args.length > 0
        ? new String(Files.readAllBytes(Paths.get(args[0])), StandardCharsets.UTF_8)
        : DEFAULT_CONFIG;
    // scripts/quickstart.sh starts the sidecar beside the cluster: the RM on
    // a known web port, the engine's control channel open to the sidecar.
    String webPort = System.getProperty("shepherd.rm.webapp.port", "");
    String controlPort = System.getProperty("shepherd.control.port", "");
    String secretFile = System.getProperty("shepherd.control.secret.file", "");
    if (!controlPort.isEmpty() && !secretFile.isEmpty() && !toml.contains("[control]")) {
      toml = toml + "\n[control]\nenabled = true\nport = " + controlPort
          + "\nsecret_file = \"" + secretFile + "\"\n";
    }
    long t0 = System.currentTimeMillis();
    try (ShepherdCluster cluster = ShepherdCluster.start("quickstart", toml, conf -> {
      if (Long.getLong("shepherd.quickstart.hold.s", 0) > 0) {
        // Kept up to look around: keep container logs as YARN does (3 h).
        conf.setLong(org.apache.hadoop.yarn.conf.YarnConfiguration.NM_LOG_RETAIN_SECONDS,
            Long.getLong("shepherd.nm.log.retain.seconds", 10_800));
      }
      if (!webPort.isEmpty()) {
        ShepherdCluster.reportUtilization(conf);
        try {
          ShepherdCluster.fixedRmPorts(conf, Integer.parseInt(webPort));
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    })) {
      System.out.printf("YARN cluster up in %.1f s: ResourceManager with %s, %d NodeManagers%n",
          (System.currentTimeMillis() - t0) / 1000.0, ShepherdScheduler.class.getName(),
          ShepherdCluster.NODE_MANAGERS);
      System.out.println("ResourceManager web UI and REST: http://"
          + cluster.conf.get(org.apache.hadoop.yarn.conf.YarnConfiguration.RM_WEBAPP_ADDRESS));
      String sidecar = System.getProperty("shepherd.sidecar.url", "");
      if (!sidecar.isEmpty()) {
        System.out.println("Shepherd sidecar: status page " + sidecar + "/ , metrics " + sidecar
            + "/metrics , API " + sidecar + "/api/v1");
      }
      File dir = Files.createTempDirectory(cluster.workDir.toPath(), "jobs").toFile();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<?>> jobs = new ArrayList<>();
      long start = System.currentTimeMillis();
      jobs.add(pool.submit(() -> Workloads.pi(cluster.jobConf(), "alice", "alpha", 4, 2000,
          new File(dir, "pi"))));
      jobs.add(pool.submit(() -> Workloads.wordcount(cluster.jobConf(), "bob", "beta",
          new File(dir, "wc"), 20000)));
      jobs.add(pool.submit(() -> Workloads.sleep(cluster.jobConf(), "carol", "alpha", 6, 1,
          3000, 1000)));
      jobs.add(pool.submit(() -> Workloads.sleep(cluster.jobConf(), "dave", "beta", 3, 1,
          2000, 1000)));
      for (Future<?> f : jobs) {
        f.get();
      }
      pool.shutdown();
      long makespan = System.currentTimeMillis() - start;

      System.out.println();
      System.out.printf("%-32s %-22s %-6s %-11s %-9s %-9s %8s %8s%n", "application", "name",
          "user", "queue", "state", "final", "wait s", "run s");
      JsonNode apps = cluster.rest("/ws/v1/cluster/apps").path("apps").path("app");
      for (JsonNode a : apps) {
        long started = a.path("startedTime").asLong();
        long launched = a.path("launchTime").asLong();
        long finished = a.path("finishedTime").asLong();
        System.out.printf("%-32s %-22.22s %-6s %-11s %-9s %-9s %8.1f %8.1f%n",
            a.path("id").asText(), a.path("name").asText(), a.path("user").asText(),
            a.path("queue").asText(), a.path("state").asText(), a.path("finalStatus").asText(),
            launched > 0 ? (launched - started) / 1000.0 : 0.0,
            finished > 0 ? (finished - started) / 1000.0 : 0.0);
      }
      ShepherdScheduler s = cluster.scheduler();
      System.out.println();
      System.out.printf("makespan %.1f s; containers placed by the Rust engine: %d; by the"
          + " fallback FIFO: %d; engine failures: %d%n", makespan / 1000.0,
          s.getEngineAllocations(), s.getFallbackAllocations(), s.getEngineFailures());
      JsonNode state = new com.fasterxml.jackson.databind.ObjectMapper()
          .readTree(s.getEngineStateJson());
      System.out.println("engine policy " + state.path("policy").asText() + ", counters "
          + state.path("counters"));
      long holdS = Long.getLong("shepherd.quickstart.hold.s", 0L);
      if (holdS > 0) {
        System.out.printf("keeping the cluster up for %d s (SHEPHERD_HOLD_S) — Ctrl-C to stop%n", holdS);
        Thread.sleep(holdS * 1000);
      }
    }
    System.exit(0);
  }
}
