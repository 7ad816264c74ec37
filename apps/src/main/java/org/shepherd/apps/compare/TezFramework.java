package org.shepherd.apps.compare;

import java.io.File;
import java.io.IOException;
import java.util.List;
import org.apache.tez.client.TezClient;
import org.apache.tez.dag.api.DAG;
import org.apache.tez.dag.api.TezConfiguration;
import org.apache.tez.dag.api.client.DAGClient;
import org.apache.tez.dag.api.client.DAGStatus;
import org.apache.tez.examples.OrderedWordCount;
import org.shepherd.apps.TezOnYarn;
import org.shepherd.yarn.cluster.ShepherdCluster;
import org.shepherd.yarn.cluster.Workloads;
import org.shepherd.yarn.compare.AppFramework;
import org.shepherd.yarn.compare.HiBenchInputs;
import org.shepherd.yarn.compare.TraceJob;

/**
 * Trace jobs of type TEZ in the comparison harness: Tez's own, unmodified
 * {@code OrderedWordCount} DAG (tez-examples), submitted with Tez's
 * {@code TezClient} as {@code hadoop jar tez-examples.jar orderedwordcount}
 * would, over the job's maps' HiBench text files: Tokenizer (one task per
 * file, split grouping off) → Summation (the job's reduces) → Sorter (one
 * task). Whatever the job's name, a TEZ job is this DAG; the trace's task
 * durations are not used, the work is the input's.
 *
 * <p>Tez's client configuration is {@link TezOnYarn#conf}: its jars from
 * {@code tez.lib.uris}, the cluster's Hadoop jars, container reuse on
 * (Tez's default).
 */
public final class TezFramework implements AppFramework {
  @Override
  public String appType() {
    return "TEZ";
  }

  @Override
  public void prepareInputs(List<TraceJob> jobs, HiBenchInputs inputs) throws IOException {
    // Every Tez job is OrderedWordCount over HiBench's text.
    inputs.prepareWidest(jobs, j -> TraceJob.Kind.WORDCOUNT);
  }

  @Override
  public Submitter open(ShepherdCluster cluster, File work, HiBenchInputs inputs) {
    File outputs = new File(work, "output");
    return job -> Workloads.as(job.user, () -> {
      TezConfiguration conf = TezOnYarn.conf(cluster.conf, work, job.queue);
      conf.set(TezConfiguration.TEZ_APPLICATION_TAGS, job.tag());
      conf.set(TezConfiguration.TEZ_AUX_URIS, TezOnYarn.jarOf(OrderedWordCount.class));
      String name = job.name + "-" + job.id;
      DAG dag = OrderedWordCount.createDAG(conf,
          inputs.dirOf(TraceJob.Kind.WORDCOUNT, job.maps).toString(),
          new File(outputs, job.id).toURI().toString(), Math.max(1, job.reduces), true, false,
          name);
      TezClient client = TezClient.create(name, conf);
      client.start();
      try {
        DAGClient running = client.submitDAG(dag);
        DAGStatus status = running.waitForCompletion();
        if (status.getState() != DAGStatus.State.SUCCEEDED) {
          System.out.printf("    tez job %s: %s %s%n", job.id, status.getState(),
              status.getDiagnostics());
        }
        return status.getState() == DAGStatus.State.SUCCEEDED;
      } finally {
        client.stop();
      }
    });
  }
}
