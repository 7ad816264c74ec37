package org.shepherd.yarn.compare;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/** The frameworks a trace needs, one per application type it names. */
final class AppFrameworks {
  private AppFrameworks() {
  }

  /**
   * MapReduce and every framework on the classpath, for the types {@code jobs}
   * name; a type nothing here runs is an error naming the job and the type.
   */
  static Map<String, AppFramework> forJobs(List<TraceJob> jobs) {
    Map<String, AppFramework> known = new LinkedHashMap<>();
    AppFramework mr = new MapReduceFramework();
    known.put(mr.appType(), mr);
    for (AppFramework f : ServiceLoader.load(AppFramework.class)) {
      known.put(f.appType(), f);
    }
    Map<String, AppFramework> used = new LinkedHashMap<>();
    for (TraceJob j : jobs) {
      AppFramework f = known.get(j.appType);
      if (f == null) {
        throw new IllegalArgumentException("job " + j.id + ": app_type " + j.appType
            + " cannot run from this classpath (it runs " + known.keySet() + "); Spark and Tez"
            + " jobs run from the apps module's classpath, which scripts/compare-yarn.sh uses"
            + " when the trace names SPARK or TEZ");
      }
      used.put(f.appType(), f);
    }
    return used;
  }
}
