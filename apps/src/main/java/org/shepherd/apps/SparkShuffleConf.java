package org.shepherd.apps;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * A cluster configuration whose NodeManagers run Spark's external shuffle
 * service as the auxiliary service {@code spark_shuffle}, next to MapReduce's
 * {@code mapreduce_shuffle}.
 *
 * <p>On a real cluster an operator lists both in yarn-site.xml's
 * {@code yarn.nodemanager.aux-services}. Hadoop's MiniMRYarnCluster, which
 * ShepherdCluster starts, overwrites that key with {@code mapreduce_shuffle}
 * alone while it initializes (before the NodeManagers copy the
 * configuration), so this configuration adds {@code spark_shuffle} back
 * whenever the key is set.
 */
public final class SparkShuffleConf extends YarnConfiguration {
  public static final String SERVICE = "spark_shuffle";
  public static final String SERVICE_CLASS = "org.apache.spark.network.yarn.YarnShuffleService";

  public SparkShuffleConf(Configuration base, int shufflePort) {
    super(base);
    set(String.format(NM_AUX_SERVICE_FMT, SERVICE), SERVICE_CLASS);
    // The port executors find the service on (Spark reads it from the
    // YARN configuration too, when its own configuration does not set it).
    setInt("spark.shuffle.service.port", shufflePort);
    set(NM_AUX_SERVICES, get(NM_AUX_SERVICES, "mapreduce_shuffle"));
  }

  @Override
  public void set(String name, String value, String source) {
    if (NM_AUX_SERVICES.equals(name) && value != null
        && !java.util.Arrays.asList(value.split(",")).contains(SERVICE)) {
      value = value.isEmpty() ? SERVICE : value + "," + SERVICE;
    }
    super.set(name, value, source);
  }
}
