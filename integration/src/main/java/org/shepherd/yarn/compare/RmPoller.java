package org.shepherd.yarn.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.shepherd.yarn.cluster.ShepherdCluster;

/**
 * Samples the ResourceManager's REST API every {@code pollMs} while a run is
 * under way: cluster allocation ({@code /ws/v1/cluster/metrics}) and every
 * running application's allocation and container count
 * ({@code /ws/v1/cluster/apps?states=RUNNING}), and the NodeManagers'
 * measured use of their containers ({@code /ws/v1/cluster/nodes}
 * {@code resourceUtilization}, when their container monitors run: the
 * harness's {@code --utilization containers}). One JSON line per sample in
 * {@code samples.jsonl}; {@code shepherd yarn-report} derives first-task
 * times, utilization and fairness from them, for every scheduler alike.
 */
final class RmPoller implements AutoCloseable {
  private final ShepherdCluster cluster;
  private final long pollMs;
  private final boolean measureUse;
  private final PrintWriter out;
  private final Thread thread;
  private final ObjectMapper json = new ObjectMapper();
  private volatile boolean running = true;
  private volatile int failures;

  RmPoller(ShepherdCluster cluster, long pollMs, File file, boolean measureUse)
      throws IOException {
    this.cluster = cluster;
    this.measureUse = measureUse;
    this.pollMs = pollMs;
    this.out = new PrintWriter(file, StandardCharsets.UTF_8.name());
    this.thread = new Thread(this::loop, "rm-poller");
    thread.setDaemon(true);
    thread.start();
  }

  private void loop() {
    while (running) {
      long t = System.currentTimeMillis();
      try {
        sample(t);
      } catch (IOException e) {
        failures++;
      }
      long sleep = pollMs - (System.currentTimeMillis() - t);
      if (sleep > 0) {
        try {
          Thread.sleep(sleep);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private void sample(long t) throws IOException {
    JsonNode m = cluster.rest("/ws/v1/cluster/metrics").path("clusterMetrics");
    JsonNode apps = cluster.rest("/ws/v1/cluster/apps?states=RUNNING").path("apps").path("app");
    ObjectNode line = json.createObjectNode();
    line.put("t_ms", t);
    ObjectNode c = line.putObject("cluster");
    c.put("allocated_mb", m.path("allocatedMB").asLong());
    c.put("total_mb", m.path("totalMB").asLong());
    c.put("allocated_vcores", m.path("allocatedVirtualCores").asLong());
    c.put("total_vcores", m.path("totalVirtualCores").asLong());
    if (measureUse) {
      double usedMb = 0;
      double usedVcores = 0;
      for (JsonNode n : cluster.rest("/ws/v1/cluster/nodes").path("nodes").path("node")) {
        JsonNode u = n.path("resourceUtilization");
        usedMb += Math.max(0, u.path("aggregatedContainersPhysicalMemoryMB").asDouble());
        usedVcores += Math.max(0, u.path("containersCPUUsage").asDouble());
      }
      c.put("used_mb", usedMb);
      c.put("used_vcores", usedVcores);
    }
    ArrayNode list = line.putArray("apps");
    for (JsonNode a : apps) {
      ObjectNode o = list.addObject();
      o.put("app_id", a.path("id").asText());
      o.put("user", a.path("user").asText());
      o.put("allocated_mb", Math.max(0, a.path("allocatedMB").asLong()));
      o.put("allocated_vcores", Math.max(0, a.path("allocatedVCores").asLong()));
      o.put("running_containers", Math.max(0, a.path("runningContainers").asInt()));
    }
    synchronized (out) {
      out.println(json.writeValueAsString(line));
    }
  }

  int failures() {
    return failures;
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.interrupt();
    thread.join(10_000);
    synchronized (out) {
      out.close();
    }
  }
}
