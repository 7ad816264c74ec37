package org.shepherd.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.Interns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's and the policy's gauges (e.g. DRESS's reserve ratio δ, pool
 * capacities and usage, pending demand per category, F(t+1)) as a Hadoop
 * metrics2 source, read from the engine whenever the metrics system samples
 * its sources: a {@code /prom} or {@code /jmx} request, or a sink's period.
 *
 * <p>Every sample is a metric of a record named {@value #RECORD}; samples
 * with labels (e.g. {@code pool=small}) go into one record per label set,
 * the labels becoming the record's tags. Hadoop's {@code PrometheusMetricsSink}
 * names a metric {@code <record>_<metric>} in snake case and turns the tags
 * into labels, so the engine's {@code dress_reserve_ratio} is served at
 * {@code /prom} as {@code shepherd_dress_reserve_ratio{context="yarn",hostname=...}}
 * and {@code dress_pool_used_memory_mb} with {@code pool=small} as
 * {@code shepherd_dress_pool_used_memory_mb{pool="small",context="yarn",...}}.
 * In {@code /jmx} the source is the bean
 * {@code Hadoop:service=ResourceManager,name=ShepherdPolicy}.
 */
final class ShepherdPolicyMetrics implements MetricsSource {
  private static final Logger LOG = LoggerFactory.getLogger(ShepherdPolicyMetrics.class);

  static final String SOURCE = "ShepherdPolicy";
  static final String RECORD = "shepherd";
  static final String CONTEXT = "yarn";

  /**
   * One sample of {@link org.shepherd.yarn.engine.NativeEngine#gauges}: the
   * JSON form of the engine's {@code policy::Gauge} ({@code src/policy/gauge.rs}),
   * the same JSON the sidecar reads over the control channel.
   */
  static final class Sample {
    final boolean counter;
    final String name;
    /** Label pairs in the engine's order; empty when none. */
    final List<String[]> labels;
    final double value;
    final String help;

    Sample(boolean counter, String name, List<String[]> labels, double value, String help) {
      this.counter = counter;
      this.name = name;
      this.labels = labels;
      this.value = value;
      this.help = help;
    }

    /** The label set as one key ({@code k=v} joined by {@code ,}), to group records by. */
    String labelKey() {
      StringBuilder b = new StringBuilder();
      for (String[] kv : labels) {
        if (b.length() > 0) {
          b.append(',');
        }
        b.append(kv[0]).append('=').append(kv[1]);
      }
      return b.toString();
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Supplier<EngineLink> link;
  private final String sourceName;

  private ShepherdPolicyMetrics(Supplier<EngineLink> link, String sourceName) {
    this.link = link;
    this.sourceName = sourceName;
  }

  /**
   * Register a source that reads the engine {@code link} currently supplies
   * (the scheduler swaps engines on {@code -refreshQueues}).
   */
  static ShepherdPolicyMetrics register(Supplier<EngineLink> link) {
    MetricsSystem ms = DefaultMetricsSystem.instance();
    ShepherdPolicyMetrics m = new ShepherdPolicyMetrics(link, SOURCE);
    try {
      ms.register(SOURCE, "Shepherd engine and policy gauges", m);
      return m;
    } catch (org.apache.hadoop.metrics2.MetricsException e) {
      // Another scheduler in this JVM still holds the name (tests that run
      // two RMs); publish under a unique one.
      String unique = SOURCE + "-" + System.identityHashCode(m);
      ShepherdPolicyMetrics u = new ShepherdPolicyMetrics(link, unique);
      ms.register(unique, "Shepherd engine and policy gauges", u);
      return u;
    }
  }

  void unregister() {
    try {
      DefaultMetricsSystem.instance().unregisterSource(sourceName);
    } catch (RuntimeException e) {
      LOG.debug("Could not unregister metrics source " + sourceName, e);
    }
  }

  /**
   * Read the engine's gauges: a JSON array of
   * {@code {"name", "labels": [[k, v], ...], "value", "help", "kind"}}, where
   * kind is {@code gauge} or {@code counter} and a value that is not finite
   * arrives as {@code null} (read as NaN). Entries without a name are
   * skipped; text that is not such an array yields no samples.
   */
  static List<Sample> parse(String json) {
    List<Sample> out = new ArrayList<>();
    if (json == null || json.isEmpty()) {
      return out;
    }
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (java.io.IOException e) {
      LOG.warn("Unreadable gauges from the engine: " + e.getMessage());
      return out;
    }
    if (root == null || !root.isArray()) {
      return out;
    }
    for (JsonNode g : root) {
      String name = g.path("name").asText("");
      if (name.isEmpty()) {
        continue;
      }
      List<String[]> labels = new ArrayList<>();
      for (JsonNode kv : g.path("labels")) {
        if (kv.size() == 2) {
          labels.add(new String[] {kv.get(0).asText(), kv.get(1).asText()});
        }
      }
      JsonNode v = g.path("value");
      double value = v.isNumber() ? v.asDouble() : Double.NaN;
      out.add(new Sample("counter".equals(g.path("kind").asText()), name, labels, value,
          g.path("help").asText("")));
    }
    return out;
  }

  /** The value of the first sample named {@code name} in the engine's gauges, or NaN. */
  static double valueOf(String json, String name) {
    for (Sample s : parse(json)) {
      if (s.name.equals(name)) {
        return s.value;
      }
    }
    return Double.NaN;
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    EngineLink l = link.get();
    if (l == null) {
      return;
    }
    List<Sample> samples = parse(l.gauges());
    // One record per label set, created in the order the labels first appear.
    Map<String, MetricsRecordBuilder> records = new LinkedHashMap<>();
    for (Sample s : samples) {
      MetricsRecordBuilder rb = records.computeIfAbsent(s.labelKey(), key -> {
        MetricsRecordBuilder b = collector.addRecord(RECORD).setContext(CONTEXT);
        for (String[] kv : s.labels) {
          b.tag(Interns.info(kv[0], "Shepherd label " + kv[0]), kv[1]);
        }
        return b;
      });
      String help = s.help.isEmpty() ? s.name : s.help;
      if (s.counter) {
        rb.addCounter(Interns.info(s.name, help), (long) s.value);
      } else {
        rb.addGauge(Interns.info(s.name, help), s.value);
      }
    }
  }
}
