package org.shepherd.yarn;

import java.lang.reflect.Constructor;
import org.apache.hadoop.yarn.exceptions.YarnRuntimeException;

/**
 * YARN's own exception for a SchedulingRequest the scheduler cannot serve,
 * as the CapacityScheduler throws it. Hadoop 3.4 spells the class
 * {@code SchedulerInvalidResoureRequestException}; 3.5 corrected it to
 * {@code SchedulerInvalidResourceRequestException}. Naming either in the
 * source breaks the shim on the other line (NoClassDefFoundError at RM
 * start), so the class is looked up once by name.
 */
final class InvalidSchedulingRequest {
  private static final Constructor<? extends RuntimeException> CONSTRUCTOR = find();

  private InvalidSchedulingRequest() { }

  static RuntimeException of(String message) {
    if (CONSTRUCTOR != null) {
      try {
        return CONSTRUCTOR.newInstance(message);
      } catch (ReflectiveOperationException e) {
        // Fall through: the message still reaches the AM.
      }
    }
    return new YarnRuntimeException(message);
  }

  private static Constructor<? extends RuntimeException> find() {
    for (String name : new String[] {
        "org.apache.hadoop.yarn.exceptions.SchedulerInvalidResourceRequestException",
        "org.apache.hadoop.yarn.exceptions.SchedulerInvalidResoureRequestException"}) {
      try {
        return Class.forName(name).asSubclass(RuntimeException.class)
            .getConstructor(String.class);
      } catch (ReflectiveOperationException | ClassCastException e) {
        // Not this Hadoop line; try the other spelling.
      }
    }
    return null;
  }
}
