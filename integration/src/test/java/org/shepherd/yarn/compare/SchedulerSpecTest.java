package org.shepherd.yarn.compare;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import org.apache.hadoop.conf.Configuration;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.shepherd.yarn.ShepherdScheduler;

/**
 * The harness's scheduler names: labels (the report's columns and the
 * output directories) and what each name sets in the RM's configuration,
 * in particular the {@code @async=<ms>} suffix that makes a scheduler also
 * allocate between node heartbeats. No cluster.
 */
public class SchedulerSpecTest {
  private static final String CS_ASYNC = "yarn.scheduler.capacity.schedule-asynchronously.enable";
  private static final String CS_INTERVAL =
      "yarn.scheduler.capacity.schedule-asynchronously.scheduling-interval-ms";

  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private Configuration configured(String name) throws Exception {
    SchedulerSpec spec = SchedulerSpec.parse(name, null, tmp.getRoot());
    Configuration conf = new Configuration(false);
    spec.configure(conf, tmp.newFolder());
    return conf;
  }

  @Test
  public void heartbeatOnlyNamesKeepTheirLabelsAndSetNoRounds() throws Exception {
    assertEquals("shepherd-drf", SchedulerSpec.parse("shepherd:drf", null, tmp.getRoot()).label);
    assertEquals("capacity", SchedulerSpec.parse("capacity", null, tmp.getRoot()).label);
    assertEquals("fair", SchedulerSpec.parse("fair", null, tmp.getRoot()).label);
    assertNull(configured("shepherd:drf").get(ShepherdScheduler.ASYNC_INTERVAL_MS));
    Configuration cs = configured("capacity");
    assertFalse(cs.getBoolean(CS_ASYNC, false));
    assertNull(cs.get(CS_INTERVAL));
  }

  @Test
  public void asyncSuffixTurnsOnEachSchedulersOwnRounds() throws Exception {
    SchedulerSpec shepherd = SchedulerSpec.parse("shepherd:drf@async=20", null, tmp.getRoot());
    assertEquals("shepherd-drf-async20", shepherd.label);
    assertEquals("shepherd:drf@async=20", shepherd.spec);
    assertTrue(shepherd.description(), shepherd.description().contains("every 20 ms"));
    Configuration conf = configured("shepherd:drf@async=20");
    assertEquals(20, conf.getLong(ShepherdScheduler.ASYNC_INTERVAL_MS, 0));
    assertEquals(ShepherdScheduler.class.getName(),
        conf.get(org.apache.hadoop.yarn.conf.YarnConfiguration.RM_SCHEDULER));

    assertEquals("capacity-async5", SchedulerSpec.parse("capacity@async=5", null, tmp.getRoot()).label);
    Configuration cs = configured("capacity@async=5");
    assertTrue(cs.getBoolean(CS_ASYNC, false));
    assertEquals(5, cs.getLong(CS_INTERVAL, 0));
    assertTrue(cs.get(org.apache.hadoop.yarn.conf.YarnConfiguration.RM_SCHEDULER).endsWith("CapacityScheduler"));
    // Shepherd's heartbeats still allocate beside its rounds with @async=.
    assertTrue(conf.getBoolean(ShepherdScheduler.ASYNC_HEARTBEATS_ALLOCATE, false));
  }

  @Test
  public void asyncOnlySuffixLeavesAllocationToShepherdsRounds() throws Exception {
    SchedulerSpec spec = SchedulerSpec.parse("shepherd:composed@async-only=5", null, tmp.getRoot());
    assertEquals("shepherd-composed-asynconly5", spec.label);
    assertTrue(spec.description(), spec.description().contains("heartbeats only report"));
    Configuration conf = configured("shepherd:composed@async-only=5");
    assertEquals(5, conf.getLong(ShepherdScheduler.ASYNC_INTERVAL_MS, 0));
    assertFalse(conf.getBoolean(ShepherdScheduler.ASYNC_HEARTBEATS_ALLOCATE, true));
    // The CapacityScheduler's heartbeats only report whenever it runs rounds:
    // its @async= is already that, and @async-only= is refused as Shepherd's.
    assertTrue(SchedulerSpec.parse("capacity@async=5", null, tmp.getRoot()).description()
        .contains("heartbeats only report"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SchedulerSpec.parse("capacity@async-only=5", null, tmp.getRoot()));
    assertTrue(e.getMessage(), e.getMessage().contains("capacity@async=<ms>"));
  }

  @Test
  public void asyncSuffixComesAfterANamedConfigFile() throws Exception {
    File toml = tmp.newFile("shepherd-drf-small.toml");
    SchedulerSpec spec = SchedulerSpec.parse("shepherd:drf=" + toml.getPath() + "@async=50", null, tmp.getRoot());
    assertEquals("shepherd-drf-small-async50", spec.label);
  }

  @Test
  public void badRoundsAreRejectedNamingTheScheduler() {
    for (String bad : new String[] {"capacity@async=0", "capacity@async=-5", "shepherd:drf@async=fast",
        "shepherd:drf@async=", "shepherd:drf@async-only=0"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> SchedulerSpec.parse(bad, null, tmp.getRoot()));
      assertTrue(e.getMessage(), e.getMessage().contains("`" + bad + "`"));
      assertTrue(e.getMessage(), e.getMessage().contains("positive number of milliseconds"));
    }
    IllegalArgumentException fair = assertThrows(IllegalArgumentException.class,
        () -> SchedulerSpec.parse("fair@async=20", null, tmp.getRoot()));
    assertTrue(fair.getMessage(), fair.getMessage().contains("deprecated"));
  }
}
