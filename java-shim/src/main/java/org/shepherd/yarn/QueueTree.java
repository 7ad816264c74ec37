package org.shepherd.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplication;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fifo.FifoAppAttempt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shepherd's queues as YARN sees them: {@code root} and its leaves, built
 * from the engine's view of Shepherd's config (and rebuilt on
 * {@code -refreshQueues}), with their ACLs — who may submit to or move an
 * app into a queue — and the answers to YARN's queue queries. The engine
 * owns the queues' scheduling state; this class only mirrors them for YARN
 * (web UI, clients, ACL checks) and moves an app's YARN bookkeeping between
 * them. Separate from {@link ShepherdScheduler} so that the queue model and
 * its access rules read apart from event translation and decision execution.
 */
final class QueueTree {
  private static final Logger LOG = LoggerFactory.getLogger(ShepherdScheduler.class);

  private final ShepherdScheduler scheduler;
  private final Map<String, ShepherdQueue> leafQueues = new LinkedHashMap<>();
  private volatile ShepherdQueue rootQueue;

  QueueTree(ShepherdScheduler scheduler) {
    this.scheduler = scheduler;
  }

  ShepherdQueue root() {
    return rootQueue;
  }

  /** The leaf queues' names, in config order (a live view, for logs). */
  Set<String> leafNames() {
    return leafQueues.keySet();
  }

  /** "queue=policy" for each pipeline in an engine state JSON, for logs. */
  static String pipelines(String stateJson) throws IOException {
    List<String> out = new ArrayList<>();
    for (JsonNode p : new ObjectMapper().readTree(stateJson).path("pipelines")) {
      out.add(p.path("queue").asText() + "=" + p.path("policy").asText());
    }
    return out.toString();
  }

  static Set<String> queueNames(String stateJson) throws IOException {
    Set<String> names = new HashSet<>();
    for (JsonNode q : new ObjectMapper().readTree(stateJson).path("queues")) {
      names.add(q.path("name").asText());
    }
    return names;
  }

  /**
   * Refuses a new config that drops a queue some application is still in
   * ({@code -refreshQueues}): names the queue.
   */
  void checkDroppable(Set<String> nextQueues) throws IOException {
    for (SchedulerApplication<FifoAppAttempt> app
        : scheduler.getSchedulerApplications().values()) {
      String q = app.getQueue().getQueueName();
      if (!nextQueues.contains(q)) {
        throw new IOException("Shepherd: refused new config: queue root." + q
            + " still has applications");
      }
    }
  }

  /**
   * Queues come from the engine's view of Shepherd's config: new ones are
   * created, existing ones updated, ones the config dropped removed (the
   * caller checked they have no applications).
   */
  void build(Configuration conf, String stateJson) throws IOException {
    synchronized (scheduler) {
      JsonNode state = new ObjectMapper().readTree(stateJson);
      if (rootQueue == null) {
        rootQueue = new ShepherdQueue("root", null, 1f, 1f, 1f, " ", " ",
            scheduler::getClusterResource, conf);
      }
      Set<String> listed = new HashSet<>();
      for (JsonNode q : state.path("queues")) {
        String name = q.path("name").asText();
        listed.add(name);
        JsonNode acl = state.path("queue_acls").path(name);
        float capacity = (float) q.path("capacity").asDouble();
        float max = (float) q.path("max_capacity").asDouble();
        float weight = (float) q.path("weight").asDouble();
        String submit = acl.path("submit").asText("*");
        String admin = acl.path("admin").asText("*");
        ShepherdQueue existing = leafQueues.get(name);
        if (existing != null) {
          existing.update(capacity, max, weight, submit, admin);
        } else {
          leafQueues.put(name, new ShepherdQueue(name, rootQueue, capacity, max, weight, submit,
              admin, scheduler::getClusterResource, conf));
        }
      }
      leafQueues.keySet().removeIf(name -> {
        if (listed.contains(name)) {
          return false;
        }
        rootQueue.getChildren().removeIf(c -> c.getQueueName().equals(name));
        return true;
      });
    }
  }

  /** The leaf queues' paths, for messages: {@code root.a, root.b}. */
  String queuePaths() {
    return "root." + String.join(", root.", leafQueues.keySet());
  }

  ShepherdQueue leafQueue(String name) {
    if (name == null) {
      return null;
    }
    String leaf = name.startsWith("root.") ? name.substring(5) : name;
    return leafQueues.get(leaf);
  }

  // ---------------------------------------------------------------- ACLs

  /**
   * Why {@code user} may not submit to {@code queueName} (the
   * CapacityScheduler's words), or null: ACLs off, no such queue (refused
   * later, in addApplication), or the queue's (or root's) submit or admin
   * ACL lets the user in.
   */
  String submitDenied(UserGroupInformation user, String queueName, ApplicationId appId) {
    if (user == null || !YarnConfiguration.isAclEnabled(scheduler.getConf())) {
      return null;
    }
    ShepherdQueue queue = leafQueue(queueName);
    if (queue == null || queue.hasAccess(QueueACL.SUBMIT_APPLICATIONS, user)) {
      return null;
    }
    return "User " + user.getShortUserName() + " does not have permission to submit " + appId
        + " to queue " + queueName;
  }

  // ---------------------------------------------------------------- moves

  /** The leaf queue {@code appId} may move to, or why not. */
  ShepherdQueue moveTarget(ApplicationId appId, String newQueue) throws YarnException {
    SchedulerApplication<FifoAppAttempt> app = scheduler.getSchedulerApplications().get(appId);
    if (app == null) {
      throw new YarnException("App to be moved " + appId + " not found.");
    }
    ShepherdQueue target = leafQueue(newQueue);
    if (target == null) {
      throw new YarnException("Target queue " + newQueue + " not found or is not a leaf queue"
          + " (Shepherd queues: " + queuePaths() + ")");
    }
    String denied = submitDenied(UserGroupInformation.createRemoteUser(app.getUser()),
        target.getQueueName(), appId);
    if (denied != null) {
      throw new YarnException(new AccessControlException(denied));
    }
    return target;
  }

  /**
   * YARN's side of a move: the queue metrics (live containers, pending
   * asks, active users) through the attempt's own {@code move}, and
   * Shepherd's queue usage.
   */
  static void move(SchedulerApplication<FifoAppAttempt> app, ShepherdQueue source,
      ShepherdQueue target) {
    FifoAppAttempt attempt = app.getCurrentAppAttempt();
    if (attempt != null) {
      Resource held = attempt.getCurrentConsumption();
      source.addUsed(held, false);
      target.addUsed(held, true);
      attempt.move(target);
    }
    app.setQueue(target);
  }

  // ---------------------------------------------------------------- queries

  QueueInfo queueInfo(String queueName, boolean includeChildQueues, boolean recursive) {
    if (queueName == null || queueName.isEmpty() || "root".equals(queueName)) {
      return rootQueue.getQueueInfo(includeChildQueues, recursive);
    }
    ShepherdQueue q = leafQueue(queueName);
    return q == null ? null : q.getQueueInfo(includeChildQueues, recursive);
  }

  List<QueueUserACLInfo> queueUserAclInfo() {
    UserGroupInformation user = null;
    try {
      user = UserGroupInformation.getCurrentUser();
    } catch (IOException e) {
      LOG.warn("Cannot determine the calling user", e);
    }
    return rootQueue.getQueueUserAclInfo(user);
  }

  boolean checkAccess(UserGroupInformation callerUGI, QueueACL acl, String queueName) {
    ShepherdQueue q = "root".equals(queueName) ? rootQueue : leafQueue(queueName);
    return q != null && q.hasAccess(acl, callerUGI);
  }

  List<ApplicationAttemptId> appsInQueue(String queueName) {
    ShepherdQueue q = "root".equals(queueName) ? rootQueue : leafQueue(queueName);
    if (q == null) {
      return null;
    }
    List<ApplicationAttemptId> out = new ArrayList<>();
    for (SchedulerApplication<FifoAppAttempt> app
        : scheduler.getSchedulerApplications().values()) {
      FifoAppAttempt attempt = app.getCurrentAppAttempt();
      if (attempt != null && (q == rootQueue || app.getQueue() == q)) {
        out.add(attempt.getApplicationAttemptId());
      }
    }
    return out;
  }
}
