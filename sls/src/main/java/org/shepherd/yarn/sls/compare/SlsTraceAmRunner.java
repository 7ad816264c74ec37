package org.shepherd.yarn.sls.compare;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.sls.AMDefinition;
import org.apache.hadoop.yarn.sls.AMDefinitionFactory;
import org.apache.hadoop.yarn.sls.AMRunner;
import org.apache.hadoop.yarn.sls.SLSRunner;
import org.apache.hadoop.yarn.sls.appmaster.AMSimulator;
import org.apache.hadoop.yarn.sls.scheduler.TaskRunner;

/**
 * Starts SLS's simulated AMs from an SLS-format trace, which SLS 3.4 cannot
 * do itself: its {@code AMRunner} reads each job object as a
 * {@code Map<String, String>}, and Jackson refuses the {@code job.tasks}
 * array there ("Cannot deserialize value of type String from Array value"),
 * so every job fails to start (checked against hadoop-sls 3.4.2 and 3.4.3).
 *
 * <p>This runner reads each job itself, turns every scalar into the string
 * SLS's parsers expect and {@code job.tasks} into a list of such maps, and
 * hands it to SLS's own {@link AMDefinitionFactory#createFromSlsTrace} and
 * AM start-up, so the jobs run exactly as SLS would run them. It replaces
 * the SLSRunner's AMRunner before the simulation starts ({@link #install});
 * the AM start-up and the counters SLSRunner reads are private to AMRunner,
 * so they are reached reflectively. It also closes a race of SLS's own AM
 * start-up ({@link #getAMSimulator}).
 */
public final class SlsTraceAmRunner extends AMRunner {
  private final SLSRunner sls;
  private final File trace;

  private SlsTraceAmRunner(TaskRunner runner, SLSRunner sls, File trace) {
    super(runner, sls);
    this.sls = sls;
    this.trace = trace;
  }

  /** Puts a runner for {@code trace} in place of {@code sls}'s own AMRunner. */
  public static void install(SLSRunner sls, Configuration conf, File trace)
      throws ReflectiveOperationException {
    Field taskRunner = SLSRunner.class.getDeclaredField("runner");
    taskRunner.setAccessible(true);
    SlsTraceAmRunner r = new SlsTraceAmRunner((TaskRunner) taskRunner.get(null), sls, trace);
    r.init(conf);
    Field amRunner = SLSRunner.class.getDeclaredField("amRunner");
    amRunner.setAccessible(true);
    amRunner.set(sls, r);
  }

  @Override
  public void startAM() throws YarnException, IOException {
    int started = 0;
    try {
      Method startAMs = AMRunner.class.getDeclaredMethod("startAMs", AMDefinition.class);
      startAMs.setAccessible(true);
      ObjectMapper mapper = new ObjectMapper();
      try (JsonParser p = mapper.getFactory().createParser(trace);
          MappingIterator<JsonNode> it = mapper.readValues(p, JsonNode.class)) {
        while (it.hasNext()) {
          JsonNode job = it.next();
          startAMs.invoke(this, AMDefinitionFactory.createFromSlsTrace(asSlsMap(job), sls));
          started++;
        }
      }
      // What AMRunner.startAM sets after starting the AMs.
      Field numAMs = AMRunner.class.getDeclaredField("numAMs");
      numAMs.setAccessible(true);
      numAMs.setInt(this, getAmMap().size());
      Field remaining = AMRunner.class.getDeclaredField("remainingApps");
      remaining.setAccessible(true);
      remaining.setInt(this, getAmMap().size());
    } catch (ReflectiveOperationException e) {
      throw new YarnException("cannot start SLS's AMs from " + trace + " (job " + (started + 1)
          + "): " + (e.getCause() != null ? e.getCause() : e), e);
    }
  }

  /**
   * The AM simulator of {@code appId}, waiting up to {@link #REGISTER_WAIT_MS}
   * for it to appear. SLS's AM notes itself under its app id only after
   * submitApp returns (AMSimulator.firstStep), and the RM's launcher looks it
   * up (MockAMLauncher) as soon as the AM container is allocated: a
   * scheduler that allocates it at a NodeManager heartbeat in between (seen
   * once in 1 200 jobs under Shepherd, the AM thread being descheduled) made
   * MockAMLauncher throw, and the RM's dispatcher exit the JVM. Waiting here,
   * on the RM's launcher thread, closes that window; a real miss still
   * returns null after the wait, as before.
   */
  @Override
  public AMSimulator getAMSimulator(ApplicationId appId) {
    AMSimulator am = super.getAMSimulator(appId);
    long until = System.nanoTime() + REGISTER_WAIT_MS * 1_000_000L;
    while (am == null && System.nanoTime() < until) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
      am = super.getAMSimulator(appId);
    }
    return am;
  }

  /** How long {@link #getAMSimulator} waits for an AM that has not noted itself yet. */
  static final long REGISTER_WAIT_MS = 5_000;

  /**
   * A job object as SLS's SLS-trace parsers read it: every scalar as its
   * string, {@code job.tasks} as a list of such maps. (SLS reads both through
   * raw maps, so the declared {@code Map<String, String>} holds the list.)
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static Map<String, String> asSlsMap(JsonNode job) {
    Map m = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> f = job.fields(); f.hasNext(); ) {
      Map.Entry<String, JsonNode> e = f.next();
      if (e.getValue().isArray()) {
        List<Map<String, String>> tasks = new ArrayList<>();
        e.getValue().forEach(t -> tasks.add(asSlsMap(t)));
        m.put(e.getKey(), tasks);
      } else if (!e.getValue().isNull()) {
        m.put(e.getKey(), e.getValue().asText());
      }
    }
    return m;
  }
}
