package org.shepherd.yarn.sls.bench;

import java.io.File;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the time of an SLS run went, from a JDK Flight Recorder recording made
 * with {@code sls-profile.jfc} ({@code scripts/sls-bench.sh --profile}).
 *
 * <p>Two views. The RM's scheduler event thread — the one thread that handles
 * every NODE_UPDATE, so its saturation caps heartbeats handled and with them
 * allocations — split by what its CPU samples were doing: SLS's own wrapper,
 * YARN's heartbeat bookkeeping, the scheduler's decision (Shepherd: the JNI
 * crossing into the Rust engine, and carrying out its decisions; the
 * CapacityScheduler: allocateContainersToNode). And the whole JVM by thread
 * group (RM, simulated AMs and NMs, SLS's metrics), plus GC pauses and the
 * longest lock waits.
 *
 * <p>Only Java-code samples are counted: JFR takes at most 5 Java and 1
 * native sample per period across all threads, and the native one usually
 * lands on an idle thread waiting in the kernel, so native code (Shepherd's
 * JNI crossing into Rust) is undersampled. Time in the engine comes from the
 * shim's own measurement instead ({@code engine_crossing_busy_s} in the run's
 * bench-summary.json). The shares are of samples, not CPU seconds.
 *
 * <pre>
 *   java -cp ... org.shepherd.yarn.sls.bench.JfrBreakdown run.jfr
 * </pre>
 */
public final class JfrBreakdown {
  private static final String EVENT_THREAD = "SchedulerEventDispatcher";

  /** Categories of the event thread's samples, most specific first. */
  private static final String[][] EVENT_THREAD_CATEGORIES = {
      {"SLS wrapper (SLSSchedulerCommons queue bookkeeping, RMNodeWrapper)",
          "SLSSchedulerCommons.updateQueueWith", "NodeUpdateSchedulerEventWrapper.<init>",
          "RMNodeWrapper.<init>"},
      {"Shepherd: batching events for the engine (EngineLink.record)", "EngineLink.record"},
      {"Shepherd: carrying out the engine's decisions (ShepherdScheduler.execute)",
          "ShepherdScheduler.execute"},
      {"CapacityScheduler: allocateContainersToNode",
          "CapacityScheduler.allocateContainersToNode"},
      {"YARN heartbeat bookkeeping (AbstractYarnScheduler.nodeUpdate: finished and launched"
          + " containers)", "AbstractYarnScheduler.nodeUpdate"},
      {"other scheduler events (app/attempt added/removed, ...)", "propagatedHandle"},
  };

  private JfrBreakdown() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: JfrBreakdown RECORDING.jfr");
    }
    System.out.print(breakdown(new File(args[0])));
  }

  static String breakdown(File jfr) throws IOException {
    Map<String, Long> eventThread = new LinkedHashMap<>();
    for (String[] c : EVENT_THREAD_CATEGORIES) {
      eventThread.put(c[0], 0L);
    }
    eventThread.put("other", 0L);
    Map<String, Long> groups = new TreeMap<>();
    Map<String, Long> lockWaitNanos = new TreeMap<>();
    long eventThreadSamples = 0;
    long samples = 0;
    long gcPauseNanos = 0;
    long gcCount = 0;
    try (RecordingFile file = new RecordingFile(jfr.toPath())) {
      while (file.hasMoreEvents()) {
        RecordedEvent e = file.readEvent();
        String type = e.getEventType().getName();
        if (type.equals("jdk.ExecutionSample")) {
          RecordedThread t = e.getThread("sampledThread");
          String thread = t == null ? "?" : String.valueOf(t.getJavaName());
          List<String> frames = frames(e.getStackTrace());
          samples++;
          groups.merge(group(thread, frames), 1L, Long::sum);
          if (thread.startsWith(EVENT_THREAD)) {
            eventThreadSamples++;
            eventThread.merge(eventThreadCategory(frames), 1L, Long::sum);
          }
        } else if (type.equals("jdk.GarbageCollection")) {
          gcCount++;
          gcPauseNanos += e.getDuration("sumOfPauses").toNanos();
        } else if (type.equals("jdk.JavaMonitorEnter")) {
          String cls = e.getClass("monitorClass") == null ? "?" : e.getClass("monitorClass").getName();
          List<String> frames = frames(e.getStackTrace());
          String where = frames.isEmpty() ? "?" : frames.get(0);
          lockWaitNanos.merge(cls + " in " + where, e.getDuration().toNanos(), Long::sum);
        }
      }
    }
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "Scheduler event thread: %d Java samples%n",
        eventThreadSamples));
    for (Map.Entry<String, Long> en : eventThread.entrySet()) {
      if (en.getValue() > 0) {
        b.append(String.format(Locale.ROOT, "  %5.1f%%  %s%n",
            100.0 * en.getValue() / Math.max(1, eventThreadSamples), en.getKey()));
      }
    }
    b.append(String.format(Locale.ROOT, "Whole JVM: %d Java samples, by thread group%n",
        samples));
    final long all = Math.max(1, samples);
    groups.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
        .forEach(en -> b.append(String.format(Locale.ROOT, "  %5.1f%%  %s%n",
            100.0 * en.getValue() / all, en.getKey())));
    b.append(String.format(Locale.ROOT, "GC: %d collections, %.2f s of pauses%n", gcCount,
        gcPauseNanos / 1e9));
    b.append("Lock waits of 10 ms or more, by monitor and place (total s):\n");
    lockWaitNanos.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
        .limit(6).forEach(en -> b.append(String.format(Locale.ROOT, "  %7.2f  %s%n",
            en.getValue() / 1e9, en.getKey())));
    return b.toString();
  }

  private static String eventThreadCategory(List<String> frames) {
    for (String[] c : EVENT_THREAD_CATEGORIES) {
      for (String f : frames) {
        for (int i = 1; i < c.length; i++) {
          if (f.contains(c[i])) {
            return c[0];
          }
        }
      }
    }
    return "other";
  }

  private static String group(String thread, List<String> frames) {
    String joined = String.join(" ", frames);
    if (thread.startsWith(EVENT_THREAD)) {
      return "RM scheduler event thread";
    }
    if (thread.startsWith("RM Event dispatcher")) {
      return "RM main dispatcher (RMNode/RMApp/RMContainer state machines)";
    }
    if (joined.contains("ApplicationMasterService.allocate")) {
      return "simulated AMs: allocate inside the RM (scheduler allocate + container tokens)";
    }
    if (joined.contains("AMSimulator") || joined.contains("MRAMSimulator")) {
      return "simulated AMs: their own work";
    }
    if (joined.contains("ResourceTrackerService.nodeHeartbeat")) {
      return "simulated NMs: heartbeat inside the RM (ResourceTrackerService)";
    }
    if (joined.contains("NMSimulator")) {
      return "simulated NMs: their own work";
    }
    if (joined.contains("org.apache.hadoop.yarn.sls") || thread.startsWith("metrics-csv")) {
      return "SLS metrics, web app and runner";
    }
    return "other";
  }

  private static List<String> frames(RecordedStackTrace st) {
    java.util.ArrayList<String> out = new java.util.ArrayList<>();
    if (st == null) {
      return out;
    }
    for (RecordedFrame f : st.getFrames()) {
      if (f.getMethod() != null) {
        out.add(f.getMethod().getType().getName() + "." + f.getMethod().getName());
      }
    }
    return out;
  }
}
