package org.shepherd.yarn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authorize.AccessControlList;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueState;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerState;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ActiveUsersManager;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.Queue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.yarn.util.resource.Resources;

/**
 * A queue as YARN's RM, web UI and clients see it. Shepherd's queues are
 * {@code root} and its leaves, defined in Shepherd's config file; the engine
 * owns their scheduling state, this class only reports them and holds the
 * YARN bookkeeping objects (metrics, active users, ACLs).
 */
final class ShepherdQueue implements Queue {
  private final String name;
  private final String path;
  private final ShepherdQueue parent;
  /** Copy-on-write: the web UI reads it while -refreshQueues may change it. */
  private final List<ShepherdQueue> children = new CopyOnWriteArrayList<>();
  private final QueueMetrics metrics;
  private final ActiveUsersManager usersManager;
  private volatile float capacity;
  private volatile float maxCapacity;
  private volatile float weight;
  private volatile AccessControlList submitAcl;
  private volatile AccessControlList adminAcl;
  private final Supplier<Resource> clusterResource;
  private final Resource used = Resource.newInstance(0, 0);

  ShepherdQueue(String name, ShepherdQueue parent, float capacity, float maxCapacity, float weight,
      String submitAcl, String adminAcl, Supplier<Resource> clusterResource, Configuration conf) {
    this.name = name;
    this.parent = parent;
    this.path = parent == null ? name : parent.path + "." + name;
    this.capacity = capacity;
    this.maxCapacity = maxCapacity;
    this.weight = weight;
    this.submitAcl = new AccessControlList(submitAcl);
    this.adminAcl = new AccessControlList(adminAcl);
    this.clusterResource = clusterResource;
    this.metrics = QueueMetrics.forQueue(path, parent, true, conf);
    this.usersManager = new ActiveUsersManager(metrics);
    if (parent != null) {
      parent.children.add(this);
    }
  }

  /** New settings from a refreshed config ({@code -refreshQueues}). */
  void update(float capacity, float maxCapacity, float weight, String submitAcl,
      String adminAcl) {
    this.capacity = capacity;
    this.maxCapacity = maxCapacity;
    this.weight = weight;
    this.submitAcl = new AccessControlList(submitAcl);
    this.adminAcl = new AccessControlList(adminAcl);
  }

  String getQueuePath() {
    return path;
  }

  List<ShepherdQueue> getChildren() {
    return children;
  }

  boolean isLeaf() {
    return children.isEmpty();
  }

  float getMaxCapacity() {
    return maxCapacity;
  }

  /** Book or unbook a container against this queue and its ancestors. */
  void addUsed(Resource r, boolean add) {
    for (ShepherdQueue q = this; q != null; q = q.parent) {
      synchronized (q.used) {
        if (add) {
          Resources.addTo(q.used, r);
        } else {
          Resources.subtractFrom(q.used, r);
        }
      }
    }
  }

  Resource getUsed() {
    synchronized (used) {
      return Resources.clone(used);
    }
  }

  @Override
  public String getQueueName() {
    return name;
  }

  @Override
  public QueueMetrics getMetrics() {
    return metrics;
  }

  @Override
  public QueueInfo getQueueInfo(boolean includeChildQueues, boolean recursive) {
    QueueInfo info = Records.newRecord(QueueInfo.class);
    info.setQueueName(name);
    info.setQueuePath(path);
    info.setCapacity(capacity);
    info.setMaximumCapacity(maxCapacity);
    info.setWeight(weight);
    Resource cluster = clusterResource.get();
    info.setCurrentCapacity(cluster.getMemorySize() == 0 ? 0f
        : (float) getUsed().getMemorySize() / cluster.getMemorySize());
    List<QueueInfo> childInfos = new ArrayList<>();
    if (includeChildQueues) {
      for (ShepherdQueue c : children) {
        childInfos.add(c.getQueueInfo(recursive, recursive));
      }
    }
    info.setChildQueues(childInfos);
    info.setApplications(new ArrayList<>());
    info.setQueueState(QueueState.RUNNING);
    info.setSchedulerType("shepherd");
    return info;
  }

  @Override
  public List<QueueUserACLInfo> getQueueUserAclInfo(UserGroupInformation user) {
    List<QueueUserACLInfo> out = new ArrayList<>();
    List<QueueACL> ops = new ArrayList<>();
    for (QueueACL acl : QueueACL.values()) {
      if (user == null || hasAccess(acl, user)) {
        ops.add(acl);
      }
    }
    QueueUserACLInfo info = Records.newRecord(QueueUserACLInfo.class);
    info.setQueueName(path);
    info.setUserAcls(ops);
    out.add(info);
    for (ShepherdQueue c : children) {
      out.addAll(c.getQueueUserAclInfo(user));
    }
    return out;
  }

  /** Same rule as YARN's queues: a right granted on a parent holds below it. */
  @Override
  public boolean hasAccess(QueueACL acl, UserGroupInformation user) {
    AccessControlList list = acl == QueueACL.ADMINISTER_QUEUE ? adminAcl : submitAcl;
    if (list.isUserAllowed(user)) {
      return true;
    }
    if (acl == QueueACL.SUBMIT_APPLICATIONS && adminAcl.isUserAllowed(user)) {
      return true;
    }
    return parent != null && parent.hasAccess(acl, user);
  }

  @Override
  public ActiveUsersManager getAbstractUsersManager() {
    return usersManager;
  }

  @Override
  public void recoverContainer(Resource clusterResource,
      SchedulerApplicationAttempt schedulerAttempt, RMContainer rmContainer) {
    if (rmContainer.getState().equals(RMContainerState.COMPLETED)) {
      return;
    }
    addUsed(rmContainer.getAllocatedResource(), true);
  }

  @Override
  public Set<String> getAccessibleNodeLabels() {
    return Collections.emptySet();
  }

  @Override
  public String getDefaultNodeLabelExpression() {
    return null;
  }

  @Override
  public void incPendingResource(String nodeLabel, Resource resourceToInc) {
  }

  @Override
  public void decPendingResource(String nodeLabel, Resource resourceToDec) {
  }

  @Override
  public Priority getDefaultApplicationPriority() {
    return null;
  }

  @Override
  public void incReservedResource(String partition, Resource reservedRes) {
  }

  @Override
  public void decReservedResource(String partition, Resource reservedRes) {
  }
}
