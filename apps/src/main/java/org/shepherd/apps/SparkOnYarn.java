package org.shepherd.apps;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.deploy.SparkSubmit;

/**
 * Submits unmodified Spark applications to a YARN cluster in cluster mode
 * (the driver runs inside the YARN ApplicationMaster container), through
 * Spark's own {@code spark-submit} entry point, {@link SparkSubmit}, called
 * in this JVM: it returns when the application has finished and throws if
 * YARN reports it failed.
 *
 * <p>What {@code spark-submit} would read from a Spark installation is given
 * here instead: the cluster's Hadoop configuration as {@code spark.hadoop.*}
 * properties (a client's HADOOP_CONF_DIR), and for the container JVMs this
 * JVM's classpath (the jars are on this same host, so they are named, not
 * uploaded: {@code spark.driver/executor.extraClassPath}, as Spark's own
 * YARN cluster tests do, and {@code spark.yarn.jars} with a {@code local:}
 * URI so no SPARK_HOME is needed).
 */
public final class SparkOnYarn {
  private final Configuration clusterConf;
  private final File workDir;
  private final Map<String, String> common;

  public SparkOnYarn(Configuration clusterConf, File workDir, Map<String, String> common) {
    this.clusterConf = clusterConf;
    this.workDir = workDir;
    this.common = common;
  }

  /**
   * Writes the cluster's configuration as yarn-site.xml into
   * {@code $HADOOP_CONF_DIR}, which spark-submit requires to be set (it
   * ships the directory's files to the containers); this JVM's own Hadoop
   * configuration comes from {@code spark.hadoop.*} properties instead, as
   * the directory is not on its classpath.
   */
  public static void writeHadoopConfDir(Configuration conf) throws IOException {
    String dir = System.getenv("HADOOP_CONF_DIR");
    if (dir == null) {
      throw new IllegalStateException("HADOOP_CONF_DIR is not set (the pom's surefire "
          + "configuration sets it)");
    }
    File d = new File(dir);
    d.mkdirs();
    try (OutputStream out = new FileOutputStream(new File(d, "yarn-site.xml"))) {
      conf.writeXml(out);
    }
  }

  /** This JVM's classpath (surefire's real one, not its booter jar). */
  public static String classpath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  /** Flags every container JVM needs on JDK 17, plus the test's container flags. */
  public static String containerJavaOptions() {
    return (System.getProperty("shepherd.jdk17.opens", "") + " "
        + System.getProperty("shepherd.container.jvm.flags", "")).trim();
  }

  /** The Spark properties every submission shares (before {@code common} and per-app ones). */
  Properties baseProperties() {
    Properties p = new Properties();
    for (Map.Entry<String, String> e : clusterConf) {
      p.setProperty("spark.hadoop." + e.getKey(), e.getValue());
    }
    String cp = classpath();
    String sparkCore = null;
    for (String entry : cp.split(File.pathSeparator)) {
      if (new File(entry).getName().startsWith("spark-core_")) {
        sparkCore = entry;
      }
    }
    if (sparkCore == null) {
      throw new IllegalStateException("spark-core is not on the classpath " + cp);
    }
    p.setProperty("spark.yarn.jars", "local:" + sparkCore);
    p.setProperty("spark.driver.extraClassPath", cp);
    p.setProperty("spark.executor.extraClassPath", cp);
    p.setProperty("spark.yarn.populateHadoopClasspath", "false");
    p.setProperty("spark.driver.extraJavaOptions", containerJavaOptions());
    p.setProperty("spark.executor.extraJavaOptions", containerJavaOptions());
    p.setProperty("spark.yarn.stagingDir", new File(workDir, "spark-staging").toURI().toString());
    p.setProperty("spark.yarn.maxAppAttempts", "1");
    p.setProperty("spark.yarn.report.interval", "500ms");
    p.setProperty("spark.ui.enabled", "false");
    p.setProperty("spark.driver.memory", "512m");
    p.setProperty("spark.executor.memory", "512m");
    p.setProperty("spark.executor.cores", "1");
    p.putAll(common);
    return p;
  }

  /**
   * Runs {@code mainClass} (on the classpath) as a YARN application named
   * {@code name} in {@code queue}, with {@code conf} on top of the shared
   * properties; returns when it has finished.
   */
  public void submit(String name, String queue, String mainClass, Map<String, String> conf,
      String... appArgs) throws Exception {
    Properties p = baseProperties();
    p.putAll(conf);
    File props = File.createTempFile("spark-" + name + "-", ".conf", workDir);
    try (OutputStream out = new FileOutputStream(props)) {
      p.store(out, "spark-submit properties for " + name);
    }
    List<String> args = new ArrayList<>();
    Collections.addAll(args, "--master", "yarn", "--deploy-mode", "cluster",
        "--name", name, "--queue", queue, "--class", mainClass,
        "--properties-file", props.getAbsolutePath(),
        // No application jar: the class is on the containers' classpath.
        "spark-internal");
    Collections.addAll(args, appArgs);
    new SparkSubmit().doSubmit(args.toArray(new String[0]));
  }

  /** Writes {@code text} lines into {@code file} (for the applications' inputs). */
  public static void writeLines(File file, Iterable<String> lines) throws IOException {
    file.getParentFile().mkdirs();
    java.nio.file.Files.write(file.toPath(), lines);
  }
}
