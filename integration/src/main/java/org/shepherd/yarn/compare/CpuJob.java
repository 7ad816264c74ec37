package org.shepherd.yarn.compare;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.QuasiMonteCarlo;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BooleanWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.SequenceFileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;

/**
 * A CPU-bound job for traces whose job name starts with {@code cpu}: the maps
 * of hadoop-mapreduce-examples' {@code pi} (QuasiMonteCarlo), each generating
 * as many Halton-sequence points as take the trace's map duration on an idle
 * core of this machine, and pi's single reduce. Where a SleepJob task asks
 * for resources and leaves them idle, these tasks use the core they ask for
 * — the load that over-subscription (ROSE) must make room for. The work is
 * fixed, so a map slowed by contention for the CPU takes longer than its
 * trace duration.
 */
final class CpuJob {
  private static volatile double samplesPerMs;

  private CpuJob() {
  }

  /**
   * Points per millisecond of one core, measured once per JVM on
   * QuasiMonteCarlo's own Halton sequence (after a warm-up, so the JIT has
   * compiled it as it will in the task JVM).
   */
  static double samplesPerMs() throws IOException {
    if (samplesPerMs > 0) {
      return samplesPerMs;
    }
    try {
      Class<?> halton = Class.forName(QuasiMonteCarlo.class.getName() + "$HaltonSequence");
      Constructor<?> make = halton.getDeclaredConstructor(long.class);
      make.setAccessible(true);
      Method next = halton.getDeclaredMethod("nextPoint");
      next.setAccessible(true);
      Object seq = make.newInstance(0L);
      double best = 0;
      for (int round = 0; round < 4; round++) {
        long start = System.nanoTime();
        long n = 0;
        while (System.nanoTime() - start < 500_000_000L) {
          for (int i = 0; i < 1000; i++) {
            next.invoke(seq);
          }
          n += 1000;
        }
        best = Math.max(best, n / ((System.nanoTime() - start) / 1e6));
      }
      samplesPerMs = best;
      return best;
    } catch (ReflectiveOperationException e) {
      throw new IOException("cannot calibrate the cpu job on QuasiMonteCarlo's Halton sequence", e);
    }
  }

  /** The job: {@code maps} maps of about {@code mapMs} of CPU each; inputs and output under {@code dir}. */
  static Job create(Configuration conf, String name, int maps, long mapMs, Path dir)
      throws IOException {
    long samples = Math.max(1000, (long) (mapMs * samplesPerMs()));
    Path in = new Path(dir, "in");
    Path out = new Path(dir, "out");
    FileSystem fs = dir.getFileSystem(conf);
    fs.delete(dir, true);
    // pi's input: one file per map holding (first point index, points).
    for (int i = 0; i < maps; i++) {
      try (SequenceFile.Writer w = SequenceFile.createWriter(conf,
          SequenceFile.Writer.file(new Path(in, "part" + i)),
          SequenceFile.Writer.keyClass(LongWritable.class),
          SequenceFile.Writer.valueClass(LongWritable.class),
          SequenceFile.Writer.compression(SequenceFile.CompressionType.NONE))) {
        w.append(new LongWritable(i * samples), new LongWritable(samples));
      }
    }
    Job job = Job.getInstance(conf, name);
    job.setJarByClass(QuasiMonteCarlo.class);
    job.setInputFormatClass(SequenceFileInputFormat.class);
    job.setOutputKeyClass(BooleanWritable.class);
    job.setOutputValueClass(LongWritable.class);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    job.setMapperClass(QuasiMonteCarlo.QmcMapper.class);
    job.setReducerClass(QuasiMonteCarlo.QmcReducer.class);
    // pi's reduce sums every map's counts into one file: exactly one reduce.
    job.setNumReduceTasks(1);
    job.setSpeculativeExecution(false);
    FileInputFormat.setInputPaths(job, in);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }
}
