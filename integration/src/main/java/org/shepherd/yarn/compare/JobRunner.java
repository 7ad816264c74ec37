package org.shepherd.yarn.compare;

import java.io.File;
import org.apache.hadoop.examples.Sort;
import org.apache.hadoop.examples.terasort.TeraSort;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.SleepJob;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.util.ToolRunner;
import org.shepherd.yarn.cluster.Workloads;

/** Runs one {@link TraceJob} as a real MapReduce job, as its user, and waits for it. */
final class JobRunner {
  private final JobConf base;
  private final HiBenchInputs inputs;
  private final File outputs;

  JobRunner(JobConf base, HiBenchInputs inputs, File outputs) {
    this.base = base;
    this.inputs = inputs;
    this.outputs = outputs;
  }

  /** Returns true when the job succeeded. */
  boolean run(TraceJob job) throws Exception {
    return Workloads.as(job.user, () -> {
      JobConf conf = confFor(job);
      Path out = new Path(new File(outputs, job.id).toURI());
      switch (job.kind) {
        case WORDCOUNT:
          return Workloads.wordcountJob(conf, job.name + "-" + job.id,
              inputs.inputOf(job.kind, job.maps), out, job.reduces).waitForCompletion(false);
        case SORT:
          return ToolRunner.run(conf, new Sort<>(), new String[] {"-r",
              String.valueOf(job.reduces), inputs.inputOf(job.kind, job.maps).toString(),
              out.toString()}) == 0;
        case TERASORT:
          conf.setInt(MRJobConfig.NUM_REDUCES, Math.max(1, job.reduces));
          // TeraSort's sampled partition file travels in the distributed
          // cache as a symlink, which this one-machine cluster's tasks do not
          // get; its simple partitioner (even split of the key space) needs
          // no file and suits the uniformly random keys generated here.
          conf.setBoolean("mapreduce.terasort.simplepartitioner", true);
          return ToolRunner.run(conf, new TeraSort(), new String[] {
              inputs.inputOf(job.kind, job.maps).toString(), out.toString()}) == 0;
        case CPU: {
          Job j = CpuJob.create(conf, job.name + "-" + job.id, job.maps, job.mapMs, out);
          return j.waitForCompletion(false);
        }
        default: {
          SleepJob sleep = new SleepJob();
          sleep.setConf(conf);
          Job j = sleep.createJob(job.maps, job.reduces, job.mapMs, 1, job.reduceMs, 1);
          j.setJobName(job.name + "-" + job.id);
          return j.waitForCompletion(false);
        }
      }
    });
  }

  private JobConf confFor(TraceJob job) {
    JobConf conf = Workloads.ownJobConf(base);
    conf.set(MRJobConfig.QUEUE_NAME, job.queue);
    // The tag ties the RM's application record back to the trace job.
    conf.set(MRJobConfig.JOB_TAGS, job.tag());
    conf.setInt(MRJobConfig.MAP_MEMORY_MB, job.memoryMb);
    conf.setInt(MRJobConfig.REDUCE_MEMORY_MB, job.memoryMb);
    conf.setInt(MRJobConfig.MAP_CPU_VCORES, job.vcores);
    conf.setInt(MRJobConfig.REDUCE_CPU_VCORES, job.vcores);
    String opens = System.getProperty("shepherd.jdk17.opens", "");
    String heap = "-Xmx" + Math.max(128, job.memoryMb * 3 / 4) + "m ";
    conf.set(MRJobConfig.MAP_JAVA_OPTS, heap + opens);
    conf.set(MRJobConfig.REDUCE_JAVA_OPTS, heap + opens);
    conf.setFloat(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, (float) job.slowstart);
    // One input file per map: never split a file further.
    conf.setLong(FileInputFormat.SPLIT_MINSIZE, Long.MAX_VALUE / 2);
    return conf;
  }
}
