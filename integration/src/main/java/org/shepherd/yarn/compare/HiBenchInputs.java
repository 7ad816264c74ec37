package org.shepherd.yarn.compare;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.SequenceFile;

/**
 * HiBench's "prepare" step for its MapReduce micro benchmarks, done by the
 * harness before any cluster starts so every scheduler reads the same bytes:
 * one file of {@code splitMb} MiB per map task (smaller than a block, so one
 * file is one input split and a job with k maps reads the first k files).
 *
 * <ul>
 *   <li>wordcount — text of words drawn from a fixed vocabulary (HiBench
 *       generates it with RandomTextWriter);</li>
 *   <li>sort — SequenceFiles of random {@code BytesWritable} pairs with
 *       RandomWriter's size ranges (keys 10–1000 B, values 0–20000 B), what
 *       the {@code sort} example reads;</li>
 *   <li>terasort — 100-byte records (10-byte key, 90-byte value) as TeraGen
 *       writes them, what TeraInputFormat reads.</li>
 * </ul>
 *
 * Seeded, so the same sizes give the same inputs on every run.
 */
public final class HiBenchInputs {
  private final File root;
  private final int splitMb;

  public HiBenchInputs(File root, int splitMb) {
    this.root = root;
    this.splitMb = splitMb;
  }

  /**
   * Prepares what {@code jobs} read: for each input kind, as many files as
   * the widest job of that kind has maps. {@code inputKind} says which kind
   * a job reads (a framework may read the same input as another kind, or
   * none: null).
   */
  public void prepareWidest(List<TraceJob> jobs, Function<TraceJob, TraceJob.Kind> inputKind)
      throws IOException {
    Map<TraceJob.Kind, Integer> widest = new EnumMap<>(TraceJob.Kind.class);
    for (TraceJob j : jobs) {
      TraceJob.Kind kind = inputKind.apply(j);
      if (kind != null) {
        widest.merge(kind, j.maps, Math::max);
      }
    }
    for (Map.Entry<TraceJob.Kind, Integer> e : widest.entrySet()) {
      prepare(e.getKey(), e.getValue());
    }
  }

  /** Ensures {@code count} input files exist for {@code kind}; returns their directory. */
  public File prepare(TraceJob.Kind kind, int count) throws IOException {
    File dir = dirFor(kind);
    dir.mkdirs();
    for (int i = 0; i < count; i++) {
      File f = file(dir, i);
      if (f.isFile()) {
        continue;
      }
      File tmp = new File(dir, "." + f.getName() + ".tmp");
      Random rnd = new Random(kind.ordinal() * 1_000_003L + i);
      long bytes = splitMb * 1024L * 1024L;
      switch (kind) {
        case WORDCOUNT:
          writeText(tmp, rnd, bytes);
          break;
        case SORT:
          writeSequence(tmp, rnd, bytes);
          break;
        case TERASORT:
          writeTeraRecords(tmp, rnd, bytes);
          break;
        default:
          return dir;
      }
      if (!tmp.renameTo(f)) {
        throw new IOException("cannot rename " + tmp + " to " + f);
      }
    }
    return dir;
  }

  /** The input of a job with {@code maps} maps: a glob over its first files. */
  public Path inputOf(TraceJob.Kind kind, int maps) {
    File dir = dirFor(kind);
    StringBuilder glob = new StringBuilder("{");
    for (int i = 0; i < maps; i++) {
      glob.append(i > 0 ? "," : "").append(file(dir, i).getName());
    }
    return new Path(new Path(dir.toURI()), glob.append('}').toString());
  }

  /**
   * The input of a job with {@code maps} maps as a directory of its own,
   * holding hard links to the first {@code maps} files ({@link #prepare}
   * must have written them): for clients that take a list of paths rather
   * than a glob (Tez's MRInput splits its input on commas, so the
   * {@code {a,b}} glob of {@link #inputOf} reaches it in pieces).
   */
  public Path dirOf(TraceJob.Kind kind, int maps) throws IOException {
    File dir = dirFor(kind);
    File first = new File(root, dir.getName() + "-first" + maps);
    first.mkdirs();
    for (int i = 0; i < maps; i++) {
      File link = file(first, i);
      if (!link.exists()) {
        java.nio.file.Files.createLink(link.toPath(), file(dir, i).toPath());
      }
    }
    return new Path(first.toURI());
  }

  /** Where {@link #prepare} writes {@code kind}'s files. */
  private File dirFor(TraceJob.Kind kind) {
    return new File(root, kind.label() + "-" + splitMb + "mb");
  }

  private static File file(File dir, int i) {
    return new File(dir, String.format("part-%05d", i));
  }

  private static final String[] VOCABULARY = vocabulary();

  private static String[] vocabulary() {
    Random r = new Random(42);
    String[] words = new String[1000];
    for (int i = 0; i < words.length; i++) {
      int len = 3 + r.nextInt(8);
      StringBuilder w = new StringBuilder();
      for (int c = 0; c < len; c++) {
        w.append((char) ('a' + r.nextInt(26)));
      }
      words[i] = w.toString();
    }
    return words;
  }

  private static void writeText(File f, Random rnd, long bytes) throws IOException {
    try (OutputStream out = new BufferedOutputStream(new FileOutputStream(f), 1 << 16)) {
      long written = 0;
      StringBuilder line = new StringBuilder();
      while (written < bytes) {
        line.setLength(0);
        int words = 5 + rnd.nextInt(15);
        for (int w = 0; w < words; w++) {
          line.append(w > 0 ? " " : "").append(VOCABULARY[rnd.nextInt(VOCABULARY.length)]);
        }
        byte[] b = line.append('\n').toString().getBytes(StandardCharsets.UTF_8);
        out.write(b);
        written += b.length;
      }
    }
  }

  private static void writeSequence(File f, Random rnd, long bytes) throws IOException {
    Configuration conf = new Configuration(false);
    conf.set("fs.file.impl.disable.cache", "true");
    try (SequenceFile.Writer w = SequenceFile.createWriter(conf,
        SequenceFile.Writer.file(new Path(f.toURI())),
        SequenceFile.Writer.keyClass(BytesWritable.class),
        SequenceFile.Writer.valueClass(BytesWritable.class))) {
      long written = 0;
      while (written < bytes) {
        byte[] k = new byte[10 + rnd.nextInt(991)];
        byte[] v = new byte[rnd.nextInt(20001)];
        rnd.nextBytes(k);
        rnd.nextBytes(v);
        w.append(new BytesWritable(k), new BytesWritable(v));
        written += k.length + v.length;
      }
    }
  }

  private static void writeTeraRecords(File f, Random rnd, long bytes) throws IOException {
    try (OutputStream out = new BufferedOutputStream(new FileOutputStream(f), 1 << 16)) {
      byte[] rec = new byte[100];
      for (long n = 0; n < bytes / 100; n++) {
        for (int i = 0; i < 10; i++) {
          rec[i] = (byte) (' ' + rnd.nextInt(95));
        }
        for (int i = 10; i < 98; i++) {
          rec[i] = (byte) ('A' + (int) ((n + i) % 26));
        }
        rec[98] = '\r';
        rec[99] = '\n';
        out.write(rec);
      }
    }
  }
}
