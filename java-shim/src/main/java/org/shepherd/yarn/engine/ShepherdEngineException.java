package org.shepherd.yarn.engine;

/**
 * Thrown by the native engine (from Rust, through the JNI guard) when a call
 * fails: a malformed config, a malformed event batch, or a panic inside the
 * engine. The shim catches it, counts it and keeps the cluster scheduling.
 */
public class ShepherdEngineException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ShepherdEngineException(String message) {
    super(message);
  }

  public ShepherdEngineException(String message, Throwable cause) {
    super(message, cause);
  }
}
