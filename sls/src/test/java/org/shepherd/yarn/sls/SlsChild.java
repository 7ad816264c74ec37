package org.shepherd.yarn.sls;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One SLS run with Shepherd in a JVM of its own ({@code SlsBenchRun}), as
 * the SLS tests start it: SLS keeps static state, so each run gets a fresh
 * JVM with this test's classpath.
 */
final class SlsChild {
  private static final long TIMEOUT_S = 180;

  private SlsChild() {
  }

  /** {@code target/sls-test/<name>}, emptied. */
  static File freshDir(String name) {
    File dir = new File("target/sls-test/" + name).getAbsoluteFile();
    deleteTree(dir);
    return dir;
  }

  /**
   * Runs SLS with Shepherd's {@code drf} policy and {@code args} (trace,
   * nodes, options), writing to {@code dir/out} and {@code dir/sls.log};
   * fails the test unless it exits 0 within the time-out. Returns the
   * output directory.
   */
  static File run(File dir, String... args) throws Exception {
    String lib = System.getProperty("shepherd.native.library");
    assertTrue("the Rust engine " + lib + " must be built first (cargo build --release)",
        lib != null && new File(lib).isFile());
    File out = new File(dir, "out");
    File log = new File(dir, "sls.log");
    List<String> cmd = new ArrayList<>();
    cmd.add(new File(System.getProperty("java.home"), "bin/java").getPath());
    cmd.add("-Xmx1g");
    cmd.addAll(Arrays.asList(System.getProperty("shepherd.jdk17.opens", "").trim().split("\\s+")));
    cmd.add("-cp");
    cmd.add(childClasspath());
    cmd.add("org.shepherd.yarn.sls.bench.SlsBenchRun");
    cmd.addAll(Arrays.asList("--scheduler", "shepherd", "--policy", "drf",
        "--native-library", lib, "--out", out.getPath()));
    cmd.addAll(Arrays.asList(args));
    cmd.removeIf(String::isEmpty);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log).start();
    if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("SLS did not finish in " + TIMEOUT_S + " s; log: " + log + "\n" + tail(log));
    }
    if (p.exitValue() != 0) {
      fail("SLS with Shepherd exited with status " + p.exitValue() + " (2 = jobs left"
          + " unfinished; 255 = the RM's scheduler thread threw and the RM exited); log: " + log
          + "\n" + tail(log));
    }
    return out;
  }

  /** This test's classpath, with an uninstalled shim build first if one is named. */
  private static String childClasspath() {
    String cp = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    String shim = System.getProperty("shepherd.sls.shim.jar", "").trim();
    return shim.isEmpty() ? cp : new File(shim).getAbsolutePath() + File.pathSeparator + cp;
  }

  /** The log's last 40 exception lines (or last 40 lines). */
  private static String tail(File log) throws java.io.IOException {
    if (!log.isFile()) {
      return "(no log)";
    }
    List<String> lines = Files.readAllLines(log.toPath(), StandardCharsets.UTF_8);
    List<String> keep = new ArrayList<>();
    for (String l : lines) {
      if (l.contains("Exception") || l.contains("ERROR") || l.startsWith("\tat ")) {
        keep.add(l);
      }
    }
    List<String> shown = keep.isEmpty() ? lines : keep;
    return String.join("\n", shown.subList(Math.max(0, shown.size() - 40), shown.size()));
  }

  private static void deleteTree(File f) {
    File[] children = f.listFiles();
    if (children != null) {
      for (File c : children) {
        deleteTree(c);
      }
    }
    f.delete();
  }
}
