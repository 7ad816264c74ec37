package org.shepherd.yarn.cluster;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;

import java.nio.charset.StandardCharsets;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.JobConf;
import org.junit.Test;

/**
 * Jobs submitted together must not share token storage (see
 * {@link Workloads#ownJobConf}). No cluster: what JobSubmitter does to a
 * job's Credentials is reproduced by hand, one step per job.
 */
public class WorkloadsTest {
  // JobSubmitter stores every job's token under these same two aliases.
  private static final Text JOB_TOKEN = new Text("JobToken");
  private static final Text SHUFFLE = new Text("MapReduceShuffleToken");

  private static JobConf base() {
    JobConf base = new JobConf(false);
    base.getCredentials().addSecretKey(new Text("site"), bytes("from the base"));
    return base;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The Hadoop behaviour the helper exists for: a plain copy shares the base's Credentials. */
  @Test
  public void plainCopiesShareOneCredentials() {
    JobConf base = base();
    JobConf a = new JobConf(base);
    JobConf b = new JobConf(base);
    assertSame(a.getCredentials(), b.getCredentials());
    a.getCredentials().addSecretKey(SHUFFLE, bytes("job a"));
    // Job b now carries job a's secret: with both submitting at once, one
    // thread serializes the map while the other fills it.
    assertEquals("job a", new String(b.getCredentials().getSecretKey(SHUFFLE),
        StandardCharsets.UTF_8));
  }

  @Test
  public void ownCopiesKeepEachJobsTokensApart() {
    JobConf base = base();
    JobConf a = Workloads.ownJobConf(base);
    JobConf b = Workloads.ownJobConf(base);
    assertNotSame(a.getCredentials(), b.getCredentials());
    assertNotSame(base.getCredentials(), a.getCredentials());

    a.getCredentials().addSecretKey(SHUFFLE, bytes("job a"));
    a.getCredentials().addSecretKey(JOB_TOKEN, bytes("job a"));
    assertNull("job b sees none of job a's secrets", b.getCredentials().getSecretKey(SHUFFLE));
    assertNull(base.getCredentials().getSecretKey(JOB_TOKEN));
    assertEquals(1, b.getCredentials().numberOfSecretKeys());
    // What the base held is still passed on to each job.
    assertEquals("from the base", new String(b.getCredentials().getSecretKey(new Text("site")),
        StandardCharsets.UTF_8));
    assertEquals(3, a.getCredentials().numberOfSecretKeys());
  }
}
