package org.shepherd.yarn;

import static org.shepherd.yarn.ShepherdScheduler.ASYNC_HEARTBEATS_ALLOCATE;
import static org.shepherd.yarn.ShepherdScheduler.ASYNC_INTERVAL_MS;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread of asynchronous scheduling ({@code
 * yarn.scheduler.shepherd.async-scheduling.interval-ms} &gt; 0): every
 * interval it asks the scheduler for one scheduling round between
 * heartbeats ({@link ShepherdScheduler#asyncRound()}), so outstanding asks
 * are placed on nodes with room without waiting for those nodes to
 * heartbeat — the role of the CapacityScheduler's asynchronous scheduling
 * threads. The engine decides (and does nothing when nothing changed); the
 * scheduler commits under its own lock, as every heartbeat does. A failing
 * round is logged and the thread goes on. The {@code async-scheduling.*}
 * settings are parsed and checked here too, at RM start.
 */
final class AsyncScheduling {
  private static final Logger LOG = LoggerFactory.getLogger(AsyncScheduling.class);

  private final Thread thread;
  private volatile boolean running = true;

  AsyncScheduling(ShepherdScheduler scheduler, long intervalMs) {
    thread = new Thread(() -> loop(scheduler, intervalMs), "Shepherd asynchronous scheduling");
    thread.setDaemon(true);
  }

  /**
   * {@link ShepherdScheduler#ASYNC_HEARTBEATS_ALLOCATE}: `true` or `false`, and
   * false only with rounds (else nothing would ever allocate).
   */
  static boolean heartbeatsAllocate(Configuration conf, long asyncIntervalMs) {
    String text = conf.getTrimmed(ASYNC_HEARTBEATS_ALLOCATE, "true");
    if (!text.equals("true") && !text.equals("false")) {
      throw new YarnRuntimeException("Shepherd scheduler cannot start: " + ASYNC_HEARTBEATS_ALLOCATE
          + " = `" + text + "`: expected `true` or `false`");
    }
    if (text.equals("false") && asyncIntervalMs == 0) {
      throw new YarnRuntimeException("Shepherd scheduler cannot start: " + ASYNC_HEARTBEATS_ALLOCATE
          + " = `false` needs " + ASYNC_INTERVAL_MS + " > 0: without rounds nothing would allocate");
    }
    return text.equals("true");
  }

  /** {@code key}'s value, a whole number from 0 to Integer.MAX_VALUE, or the start fails. */
  static long nonNegative(Configuration conf, String key, long dflt) {
    String text = conf.getTrimmed(key, Long.toString(dflt));
    try {
      long v = Long.parseLong(text);
      if (v >= 0 && v <= Integer.MAX_VALUE) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new YarnRuntimeException("Shepherd scheduler cannot start: " + key + " = `" + text
        + "`: expected a whole number >= 0");
  }

  void start() {
    thread.start();
  }

  void stop() throws InterruptedException {
    running = false;
    thread.interrupt();
    thread.join(10_000);
  }

  private void loop(ShepherdScheduler scheduler, long intervalMs) {
    long failures = 0;
    while (running) {
      try {
        scheduler.asyncRound();
      } catch (RuntimeException e) {
        if (failures++ < 10 || failures % 1000 == 0) {
          LOG.warn("Shepherd scheduling round failed (" + failures + " so far); going on", e);
        }
      }
      try {
        Thread.sleep(intervalMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
