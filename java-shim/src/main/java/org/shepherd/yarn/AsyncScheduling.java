package org.shepherd.yarn;

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
 * round is logged and the thread goes on.
 */
final class AsyncScheduling {
  private static final Logger LOG = LoggerFactory.getLogger(AsyncScheduling.class);

  private final Thread thread;
  private volatile boolean running = true;

  AsyncScheduling(ShepherdScheduler scheduler, long intervalMs) {
    thread = new Thread(() -> loop(scheduler, intervalMs), "Shepherd asynchronous scheduling");
    thread.setDaemon(true);
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
