package org.shepherd.yarn;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Dense integer ids for YARN objects (NodeId, ApplicationId), so the engine
 * works with small numbers and the JNI batch carries 4 bytes per reference.
 * Ids are never reused while the scheduler lives.
 */
final class IdMap<K> {
  private final ConcurrentHashMap<K, Integer> ids = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Integer, K> keys = new ConcurrentHashMap<>();
  private final AtomicInteger next = new AtomicInteger(0);

  int idOf(K key) {
    return ids.computeIfAbsent(key, k -> {
      int id = next.getAndIncrement();
      keys.put(id, k);
      return id;
    });
  }

  /** The id if known, else -1. */
  int find(K key) {
    Integer id = ids.get(key);
    return id == null ? -1 : id;
  }

  K keyOf(int id) {
    return keys.get(id);
  }

  int size() {
    return ids.size();
  }

  void remove(K key) {
    Integer id = ids.remove(key);
    if (id != null) {
      keys.remove(id);
    }
  }
}
