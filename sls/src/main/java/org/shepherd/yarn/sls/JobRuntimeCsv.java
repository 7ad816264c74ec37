package org.shepherd.yarn.sls;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * SLS's {@code jobruntime.csv}: one row per job its AM simulator finished
 * ({@code JobID,real_start_time,real_end_time,simulate_start_time,simulate_end_time},
 * written by SchedulerMetrics.addAMRuntime from AMSimulator.lastStep).
 */
public final class JobRuntimeCsv {
  private JobRuntimeCsv() {}

  /** The jobs' rows, split into fields (none if the file is absent). */
  public static List<String[]> rows(File csv) throws IOException {
    List<String[]> rows = new ArrayList<>();
    if (csv.isFile()) {
      for (String line : Files.readAllLines(csv.toPath(), StandardCharsets.UTF_8)) {
        String[] f = line.split(",");
        if (f.length >= 5 && !f[0].equals("JobID")) {
          rows.add(f);
        }
      }
    }
    return rows;
  }
}
