package org.shepherd.yarn.compare;

import java.io.File;
import java.io.IOException;
import java.util.List;
import org.shepherd.yarn.cluster.ShepherdCluster;

/**
 * Trace jobs of type MAPREDUCE (the default): HiBench's micro benchmarks,
 * CPU-bound pi maps or SleepJob, as {@link TraceJob.Kind} picks from the
 * job's name, run by {@link JobRunner}.
 */
final class MapReduceFramework implements AppFramework {
  static final String TYPE = "MAPREDUCE";

  @Override
  public String appType() {
    return TYPE;
  }

  /** One input file per map of the widest job of each program. */
  @Override
  public void prepareInputs(List<TraceJob> jobs, HiBenchInputs inputs) throws IOException {
    inputs.prepareWidest(jobs, j -> j.kind);
    if (jobs.stream().anyMatch(j -> j.kind == TraceJob.Kind.CPU)) {
      System.out.printf("cpu jobs: %.0f Halton points per ms of one core%n", CpuJob.samplesPerMs());
    }
  }

  @Override
  public Submitter open(ShepherdCluster cluster, File work, HiBenchInputs inputs) {
    return new JobRunner(cluster.jobConf(), inputs, new File(work, "output"))::run;
  }
}
