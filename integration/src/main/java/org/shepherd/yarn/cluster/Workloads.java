package org.shepherd.yarn.cluster;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.QuasiMonteCarlo;
import org.apache.hadoop.examples.WordCount;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.SleepJob;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;

/** Real MapReduce jobs from hadoop-mapreduce-examples, submitted as a given user. */
public final class Workloads {
  private Workloads() {
  }

  /**
   * A copy of {@code base} for one job, with its own {@link Credentials}.
   *
   * <p>{@code new JobConf(JobConf)} (and {@code Job.getInstance}, which calls
   * it) shares the original's Credentials object, and {@code JobSubmitter}
   * writes each job's token and shuffle secret into it, in a plain HashMap.
   * Jobs submitted at once from copies of one JobConf then serialize a map
   * another thread is filling: the count written disagrees with the entries,
   * and YARN's AMLauncher fails every attempt of the job with an
   * EOFException in {@code Credentials.readTokenStorageStream}. That failed
   * HaFailoverTest and FederationTest in 2 of 6 CI runs (2026-11-25).
   */
  public static JobConf ownJobConf(JobConf base) {
    JobConf conf = new JobConf(base);
    conf.setCredentials(new Credentials(base.getCredentials()));
    return conf;
  }

  public static <T> T as(String user, PrivilegedExceptionAction<T> action) throws Exception {
    UserGroupInformation ugi =
        UserGroupInformation.createProxyUser(user, UserGroupInformation.getLoginUser());
    return ugi.doAs(action);
  }

  /** hadoop-mapreduce-examples `pi`: returns the estimate. */
  public static BigDecimal pi(JobConf base, String user, String queue, int maps, long samples,
      File dir) throws Exception {
    return as(user, () -> {
      JobConf conf = ownJobConf(base);
      conf.set(MRJobConfig.QUEUE_NAME, queue);
      return QuasiMonteCarlo.estimatePi(maps, samples, new Path(dir.toURI()), conf);
    });
  }

  /** hadoop-mapreduce-examples `wordcount` over a generated text; returns success. */
  public static boolean wordcount(JobConf base, String user, String queue, File dir, int lines)
      throws Exception {
    File input = new File(dir, "in");
    input.mkdirs();
    try (PrintWriter w = new PrintWriter(new File(input, "text.txt"),
        StandardCharsets.UTF_8.name())) {
      for (int i = 0; i < lines; i++) {
        w.println("shepherd schedules yarn jobs line " + (i % 97) + " of the flock");
      }
    }
    return as(user, () -> {
      JobConf conf = ownJobConf(base);
      conf.set(MRJobConfig.QUEUE_NAME, queue);
      return wordcountJob(conf, "wordcount-" + user, new Path(input.toURI()),
          new Path(new File(dir, "out").toURI()), 2).waitForCompletion(false);
    });
  }

  /** The `wordcount` example as a Job: input text in, (word, count) pairs out. */
  public static Job wordcountJob(Configuration conf, String name, Path input, Path output,
      int reduces) throws IOException {
    Job job = Job.getInstance(conf, name);
    job.setJarByClass(WordCount.class);
    job.setMapperClass(WordCount.TokenizerMapper.class);
    job.setCombinerClass(WordCount.IntSumReducer.class);
    job.setReducerClass(WordCount.IntSumReducer.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(IntWritable.class);
    job.setNumReduceTasks(reduces);
    FileInputFormat.addInputPath(job, input);
    FileOutputFormat.setOutputPath(job, output);
    return job;
  }

  /** Hadoop's SleepJob: maps and reduces that sleep, the trace-replay unit. */
  public static boolean sleep(JobConf base, String user, String queue, int maps, int reduces,
      long mapMs, long reduceMs) throws Exception {
    return as(user, () ->
        sleepJob(base, queue, maps, reduces, mapMs, reduceMs).waitForCompletion(false));
  }

  /**
   * As {@link #sleep}, but returns the submitted Job at once, for tests that
   * act on the cluster while it runs (its status calls run as {@code user}).
   */
  public static Job submitSleep(JobConf base, String user, String queue, int maps, int reduces,
      long mapMs, long reduceMs) throws Exception {
    return as(user, () -> {
      Job job = sleepJob(base, queue, maps, reduces, mapMs, reduceMs);
      job.submit();
      return job;
    });
  }

  private static Job sleepJob(JobConf base, String queue, int maps, int reduces, long mapMs,
      long reduceMs) throws Exception {
    JobConf conf = ownJobConf(base);
    conf.set(MRJobConfig.QUEUE_NAME, queue);
    SleepJob sleep = new SleepJob();
    sleep.setConf(conf);
    return sleep.createJob(maps, reduces, mapMs, 1, reduceMs, 1);
  }
}
