package org.shepherd.yarn;

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

  /** One sample of {@link org.shepherd.yarn.engine.NativeEngine#gauges}. */
  static final class Sample {
    final boolean counter;
    final String name;
    /** {@code k=v} pairs joined by {@code ,}; empty when none. */
    final String labels;
    final double value;
    final String help;

    Sample(boolean counter, String name, String labels, double value, String help) {
      this.counter = counter;
      this.name = name;
      this.labels = labels;
      this.value = value;
      this.help = help;
    }
  }

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

  /** Parse the engine's line format; malformed lines are skipped. */
  static List<Sample> parse(String text) {
    List<Sample> out = new ArrayList<>();
    if (text == null) {
      return out;
    }
    for (String line : text.split("\n")) {
      String[] f = line.split("\t", 5);
      if (f.length != 5 || f[1].isEmpty()) {
        continue;
      }
      double v;
      try {
        v = Double.parseDouble(f[3]);
      } catch (NumberFormatException e) {
        continue;
      }
      out.add(new Sample("c".equals(f[0]), f[1], f[2], v, f[4]));
    }
    return out;
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
      MetricsRecordBuilder rb = records.computeIfAbsent(s.labels, labels -> {
        MetricsRecordBuilder b = collector.addRecord(RECORD).setContext(CONTEXT);
        if (!labels.isEmpty()) {
          for (String kv : labels.split(",")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
              b.tag(Interns.info(kv.substring(0, eq), "Shepherd label " + kv.substring(0, eq)),
                  kv.substring(eq + 1));
            }
          }
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
