package org.shepherd.yarn.sls;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import org.junit.Test;

/**
 * Shepherd's queue-guarantee preemption inside SLS's RM, as {@code
 * scripts/compare-sls.sh --preemption} runs it, at a size for a test: 2 NMs
 * of 4 GiB / 4 vcores (8 containers of 1 GiB), queues a and b guaranteed
 * half each, b with {@code preemption = true} (rounds every 500 ms, a 1 s
 * wait). Queue a's job fills the cluster at t = 0 with 7 maps of 15 s; at
 * t = 3 s queue b's job asks for 3 maps of 2 s.
 *
 * <p>Checks, from what the RM recorded ({@code jobs.json}): every job
 * SUCCEEDED (a's killed maps re-run by SLS's AM); a lost maps to preemption
 * as the RM counts it (RMAppMetrics, exit status PREEMPTED) and no AM; b lost
 * nothing and finished before a, which without preemption it cannot (its
 * containers would free only when a's 15 s maps end, and b's job would end
 * after a's). No wall-clock assertion. About 40 s.
 */
public class PreemptionInSlsTest {

  @Test
  public void aStarvedQueueTakesItsGuaranteeBackAndEveryJobSucceeds() throws Exception {
    File dir = SlsChild.freshDir("preemption");
    File in = new File(dir, "in");
    in.mkdirs();
    File trace = write(new File(in, "trace.sls.json"),
        job("a-long", "a", "alice", 0, 7, 15_000) + job("b-short", "b", "bob", 3_000, 3, 2_000));
    File nodes = write(new File(in, "trace.nodes.json"), "{\"rack\": \"rack-0\", \"nodes\": ["
        + "{\"node\": \"127.0.0.1\", \"memory-mb\": 4096, \"vcores\": 4},"
        + "{\"node\": \"127.0.0.2\", \"memory-mb\": 4096, \"vcores\": 4}]}\n");
    File config = write(new File(in, "shepherd.toml"), "[scheduler]\npolicy = \"drf\"\n"
        + "[preemption]\ninterval_ms = 500\nwait_before_kill_ms = 1000\nmax_per_round = 1.0\n"
        + "[[queue]]\nname = \"a\"\ncapacity = 0.5\nmax_capacity = 1.0\n"
        + "[[queue]]\nname = \"b\"\ncapacity = 0.5\nmax_capacity = 1.0\npreemption = true\n");

    File out = SlsChild.run(dir, "--shepherd-config", config.getPath(), "--tracetype", "sls",
        "--trace", trace.getPath(), "--nodes", nodes.getPath(),
        "--nm-memory-mb", "4096", "--nm-vcores", "4", "--timeout-s", "120");

    Map<String, JsonNode> jobs = new HashMap<>();
    new ObjectMapper().readTree(new File(out, "jobs.json")).path("jobs")
        .forEach(j -> jobs.put(j.path("id").asText(), j));
    JsonNode a = jobs.get("a-long");
    JsonNode b = jobs.get("b-short");
    for (JsonNode j : jobs.values()) {
      assertEquals(j.path("id").asText() + ": " + j, "SUCCEEDED", j.path("final_status").asText());
      assertEquals("AM containers preempted: " + j, 0, j.path("preempted_am_containers").asInt());
    }
    assertTrue("a's maps preempted for b (RMAppMetrics): " + a,
        a.path("preempted_non_am_containers").asInt() > 0);
    assertTrue("work killed booked by the RM: " + a, a.path("preempted_vcore_s").asLong() > 0);
    assertEquals("b lost nothing: " + b, 0, b.path("preempted_containers").asInt());
    assertTrue("b finished before a (" + b.path("finish_ms") + " vs " + a.path("finish_ms") + ")",
        b.path("finish_ms").asLong() < a.path("finish_ms").asLong());
  }

  private static String job(String id, String queue, String user, long startMs, int maps,
      long taskMs) {
    StringBuilder tasks = new StringBuilder();
    for (int i = 0; i < maps; i++) {
      tasks.append(i == 0 ? "" : ",").append("{\"container.duration.ms\": ").append(taskMs)
          .append(", \"container.priority\": 20, \"container.type\": \"map\","
              + " \"container.memory-mb\": 1024, \"container.vcores\": 1}");
    }
    return "{\"am.type\": \"mapreduce\", \"job.start.ms\": " + startMs + ", \"job.end.ms\": "
        + (startMs + taskMs) + ", \"job.queue.name\": \"" + queue + "\", \"job.id\": \"" + id
        + "\", \"job.user\": \"" + user + "\", \"job.name\": \"" + id
        + "\", \"job.tasks\": [" + tasks + "]}\n";
  }

  private static File write(File f, String text) throws java.io.IOException {
    Files.write(f.toPath(), text.getBytes(StandardCharsets.UTF_8));
    return f;
  }
}
