package org.shepherd.yarn.it;

import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.shepherd.yarn.cluster.ShepherdCluster;

/**
 * The real sidecar binary ({@code shepherd sidecar}) started by a test with
 * its own config, its log in the test's work dir; shared by SidecarTest and
 * HaFailoverTest.
 */
final class SidecarProcess implements AutoCloseable {
  final Process process;
  final File log;
  final int port;

  private SidecarProcess(Process process, File log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /**
   * The binary: {@code -Dshepherd.sidecar.binary}, by default the
   * {@code shepherd} executable beside the native library (cargo builds both
   * into target/release).
   */
  static String binary() {
    return System.getProperty("shepherd.sidecar.binary",
        new File(new File(ShepherdCluster.nativeLibrary()).getParentFile(), "shepherd").getPath());
  }

  /**
   * Writes {@code config} to {@code dir}/sidecar.toml, starts the sidecar on
   * it (listening on 127.0.0.1:{@code port}, as the config says) and waits
   * until it answers {@code /healthz}.
   */
  static SidecarProcess start(Path dir, String config, int port) throws Exception {
    Path cfgFile = dir.resolve("sidecar.toml");
    Files.write(cfgFile, config.getBytes(StandardCharsets.UTF_8));
    File log = dir.resolve("sidecar.log").toFile();
    Process p = new ProcessBuilder(binary(), "sidecar", "--config", cfgFile.toString())
        .redirectErrorStream(true).redirectOutput(log).start();
    SidecarProcess s = new SidecarProcess(p, log, port);
    long until = System.currentTimeMillis() + 30_000;
    while (s.get("/healthz") == null) {
      assertTrue("sidecar answers /healthz (log " + log + ")",
          p.isAlive() && System.currentTimeMillis() < until);
      Thread.sleep(200);
    }
    return s;
  }

  /** GET a path; the body, or null when the sidecar does not answer 200. */
  String get(String path) {
    try {
      HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + port + path)
          .openConnection();
      c.setConnectTimeout(2000);
      c.setReadTimeout(5000);
      if (c.getResponseCode() != 200) {
        return null;
      }
      try (InputStream in = c.getInputStream()) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      return null;
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** The value of the first sample of {@code series} (name plus exact label text), or NaN. */
  static double metric(String text, String series) {
    if (text != null) {
      for (String line : text.split("\n")) {
        if (line.startsWith(series + " ")) {
          return Double.parseDouble(line.substring(series.length() + 1).trim());
        }
      }
    }
    return Double.NaN;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
