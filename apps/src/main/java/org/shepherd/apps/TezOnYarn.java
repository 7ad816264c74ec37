package org.shepherd.apps;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.tez.dag.api.TezConfiguration;

/**
 * The client configuration an operator gives Apache Tez on a YARN cluster,
 * for this test cluster: Tez's own jars as {@code tez.lib.uris} (a directory
 * of the Tez AM's and tasks' jars, {@code target/tez-lib}, laid out by the
 * pom from Maven Central), the cluster's Hadoop jars from the nodes
 * ({@code tez.use.cluster.hadoop-libs}), and the JVM options JDK 17 needs.
 *
 * <p>The nodes' "Hadoop installation" is this JVM's classpath (the cluster's
 * own jars: the NodeManagers run in this JVM, on this host) less Tez, whose
 * jars come from {@code tez.lib.uris} only, and less Spark and Scala, which
 * a Hadoop installation does not hold; it is given to Tez as
 * {@code yarn.application.classpath}, the key a real cluster's
 * {@code yarn-site.xml} sets to its {@code $HADOOP_*_HOME} directories.
 */
public final class TezOnYarn {
  private TezOnYarn() {}

  /** The tez.lib.uris directory the pom lays out (system property shepherd.tez.lib). */
  public static File tezLib() {
    File dir = new File(System.getProperty("shepherd.tez.lib", "target/tez-lib"));
    File[] jars = dir.listFiles((d, n) -> n.startsWith("tez-dag-") && n.endsWith(".jar"));
    if (jars == null || jars.length == 0) {
      throw new IllegalStateException("no Tez jars in " + dir.getAbsolutePath()
          + " (mvn -f apps/pom.xml generate-test-resources lays them out)");
    }
    return dir.getAbsoluteFile();
  }

  /** The file: URI of the jar {@code c} was loaded from (an application's jar, for tez.aux.uris). */
  public static String jarOf(Class<?> c) {
    try {
      return new File(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toURI()
          .toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The cluster's Hadoop jars as yarn.application.classpath entries (see the class comment). */
  public static List<String> hadoopClasspath() {
    List<String> out = new ArrayList<>();
    for (String e : SparkOnYarn.classpath().split(File.pathSeparator)) {
      String p = e.replace(File.separatorChar, '/');
      if (p.contains("/org/apache/tez/") || p.contains("/org/apache/spark/")
          || p.contains("/org/scala-lang/") || p.contains("/com/google/protobuf/")
          || p.contains("/org/roaringbitmap/")) {
        continue;
      }
      // Only jars: the test's own class directories are not part of Hadoop.
      if (p.endsWith(".jar")) {
        out.add(e);
      }
    }
    return out;
  }

  /**
   * Tez's client configuration for {@code cluster}: jobs go to {@code queue},
   * their staging files under {@code workDir}.
   */
  public static TezConfiguration conf(Configuration cluster, File workDir, String queue) {
    TezConfiguration tez = new TezConfiguration(cluster);
    tez.set(TezConfiguration.TEZ_LIB_URIS, tezLib().toURI().toString());
    tez.setBoolean(TezConfiguration.TEZ_USE_CLUSTER_HADOOP_LIBS, true);
    tez.setStrings(YarnConfiguration.YARN_APPLICATION_CLASSPATH,
        hadoopClasspath().toArray(new String[0]));
    tez.set(TezConfiguration.TEZ_AM_STAGING_DIR,
        new File(workDir, "tez-staging").toURI().toString());
    tez.set(TezConfiguration.TEZ_QUEUE_NAME, queue);
    // The AM's and tasks' JVM options: the --add-opens Hadoop's own JVMs
    // need on JDK 17, and the test's short-lived-JVM flags, in place of
    // Tez's defaults (JDK 9+ GC logging, no opens). The AM needs
    // java.base/java.lang opened: without it its web UI service (Guice's
    // cglib) fails with InaccessibleObjectException and the AM never starts
    // the DAG (docs/spark-tez.md).
    String opts = SparkOnYarn.containerJavaOptions();
    tez.set(TezConfiguration.TEZ_AM_LAUNCH_CMD_OPTS, opts);
    tez.set(TezConfiguration.TEZ_TASK_LAUNCH_CMD_OPTS, opts);
    tez.setInt(TezConfiguration.TEZ_AM_RESOURCE_MEMORY_MB, 768);
    tez.setInt(TezConfiguration.TEZ_TASK_RESOURCE_MEMORY_MB, 512);
    tez.setInt(TezConfiguration.TEZ_AM_MAX_APP_ATTEMPTS, 1);
    return tez;
  }
}
