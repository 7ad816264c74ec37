package org.shepherd.yarn.compare;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.Test;

/**
 * The harness's {@code --nm-heartbeat-ms}: YARN's default when absent, the
 * given interval otherwise, and a clear error naming the option and the
 * value for anything that is not a positive number of milliseconds. No
 * cluster.
 */
public class CompareYarnOptionsTest {
  @Test
  public void absentMeansYarnsDefaultInterval() {
    assertEquals(YarnConfiguration.DEFAULT_RM_NM_HEARTBEAT_INTERVAL_MS,
        CompareYarn.nmHeartbeatMs(null));
    assertEquals(1000, CompareYarn.nmHeartbeatMs(null));
  }

  @Test
  public void aPositiveIntervalIsTaken() {
    assertEquals(3000, CompareYarn.nmHeartbeatMs("3000"));
    assertEquals(250, CompareYarn.nmHeartbeatMs(" 250 "));
  }

  @Test
  public void zeroNegativeAndNonNumbersAreRejectedByName() {
    for (String bad : new String[] {"0", "-5", "3s", ""}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> CompareYarn.nmHeartbeatMs(bad));
      assertTrue(e.getMessage(), e.getMessage().startsWith("--nm-heartbeat-ms " + bad + ":"));
    }
  }
}
