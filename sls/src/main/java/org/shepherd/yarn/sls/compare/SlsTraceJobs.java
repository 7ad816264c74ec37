package org.shepherd.yarn.sls.compare;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;

/**
 * The jobs of an SLS trace ({@code -tracetype SLS}: a stream of job objects,
 * as {@code shepherd generate --out X.sls.json} writes them) as the
 * comparison reports them: id, user, queue, Shepherd's size category and the
 * task counts. SLS itself ignores {@code job.category} and {@code job.name};
 * Shepherd writes them so that every scheduler's run, and Shepherd's
 * simulator, put each job in the same category.
 */
public final class SlsTraceJobs {
  /** One job of the trace. */
  public static final class Job {
    public final String id;
    public final String user;
    public final String queue;
    public final String name;
    /** {@code small} / {@code large}; {@code all} when the trace names none. */
    public final String category;
    public final long startMs;
    public final int maps;
    public final int reduces;

    Job(String id, String user, String queue, String name, String category, long startMs,
        int maps, int reduces) {
      this.id = id;
      this.user = user;
      this.queue = queue;
      this.name = name;
      this.category = category;
      this.startMs = startMs;
      this.maps = maps;
      this.reduces = reduces;
    }
  }

  private SlsTraceJobs() {}

  /** Every job of {@code trace}, in file order; a job without an id is an error naming its place. */
  public static List<Job> read(File trace) throws IOException {
    List<Job> jobs = new ArrayList<>();
    ObjectMapper mapper = new ObjectMapper();
    try (JsonParser p = mapper.getFactory().createParser(trace);
        MappingIterator<JsonNode> it = mapper.readValues(p, JsonNode.class)) {
      while (it.hasNext()) {
        JsonNode j = it.next();
        String id = j.path("job.id").asText("");
        if (id.isEmpty()) {
          throw new IOException(trace + ": job " + (jobs.size() + 1) + " has no job.id");
        }
        int maps = 0;
        int reduces = 0;
        for (JsonNode t : j.path("job.tasks")) {
          // SLS 3.4's AMDefinitionSLS reads a task entry's repeat count
          // from "count" (one task when absent).
          int count = Math.max(1, t.path("count").asInt(1));
          if ("reduce".equals(t.path("container.type").asText("map"))) {
            reduces += count;
          } else {
            maps += count;
          }
        }
        jobs.add(new Job(id, j.path("job.user").asText("default"),
            j.path("job.queue.name").asText("default"), j.path("job.name").asText("mapreduce"),
            j.path("job.category").asText("all"), j.path("job.start.ms").asLong(0), maps,
            reduces));
      }
    }
    if (jobs.isEmpty()) {
      throw new IOException(trace + ": no jobs");
    }
    return Collections.unmodifiableList(jobs);
  }

  /** The queues the jobs are submitted to, sorted by name. */
  public static List<String> queues(List<Job> jobs) {
    TreeSet<String> q = new TreeSet<>();
    jobs.forEach(j -> q.add(j.queue));
    return new ArrayList<>(q);
  }
}
