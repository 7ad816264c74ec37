package org.shepherd.yarn;

import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.NODE;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.PlacementTargets.allocationTag;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.PlacementTargets.allocationTagWithNamespace;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.PlacementTargets.nodeAttribute;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.PlacementTargets.nodePartition;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.RACK;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.and;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.build;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.cardinality;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.delayedOr;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.or;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.targetIn;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.targetNodeAttribute;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.targetNotIn;
import static org.apache.hadoop.yarn.api.resource.PlacementConstraints.timedOpportunitiesConstraint;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.apache.hadoop.yarn.api.records.NodeAttributeOpCode;
import org.apache.hadoop.yarn.api.resource.PlacementConstraint;
import org.shepherd.yarn.engine.NativeEngine;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The shim's translation of YARN placement constraints into the engine's
 * text form, and the engine's verdict on each (no cluster: YARN's own
 * constraint builders, the real native engine).
 */
public class PlacementTextTest {
  @BeforeClass
  public static void load() {
    NativeEngine.load("shepherd.native.library", System.getProperty("shepherd.native.library"));
  }

  private static String accepted(PlacementConstraint pc, String text) {
    PlacementText.Result r = PlacementText.of(pc);
    assertEquals(text, r.text);
    assertNull(r.text, NativeEngine.checkPlacement(r.text));
    return r.partition;
  }

  private static void rejected(PlacementConstraint pc, String form) {
    String why = NativeEngine.checkPlacement(PlacementText.of(pc).text);
    assertTrue(PlacementText.of(pc).text + " -> " + why, why != null && why.contains(form));
  }

  @Test
  public void supportedFormsTranslateAndAreAccepted() {
    accepted(build(targetNotIn(NODE, allocationTag("hbase-rs"))), "cardinality,node,0,0,hbase-rs");
    accepted(build(targetIn(RACK, allocationTagWithNamespace("all", "zk"))), "cardinality,rack,1,*,all/zk");
    accepted(build(cardinality(NODE, 0, 3, "spark")), "cardinality,node,0,3,spark");
    accepted(build(targetNodeAttribute(NODE, NodeAttributeOpCode.EQ, nodeAttribute("java", "11"))),
        "attr,node,java,eq,11");
    accepted(build(and(targetNotIn(NODE, allocationTag("a")),
        targetNodeAttribute(NODE, NodeAttributeOpCode.NE, nodeAttribute("os", "centos6")))),
        "and(cardinality,node,0,0,a;attr,node,os,ne,centos6)");
    String partition = accepted(build(and(targetIn(NODE, nodePartition("gpu")),
        targetNotIn(NODE, allocationTag("w")))), "and(partition,gpu;cardinality,node,0,0,w)");
    assertEquals("gpu", partition);
  }

  @Test
  public void unsupportedFormsAreRejectedByName() {
    rejected(build(and(targetNotIn(NODE, allocationTag("a")),
        or(targetIn(NODE, allocationTag("b")), targetIn(NODE, allocationTag("c"))))), "nested");
    rejected(build(targetNotIn("host-group", allocationTag("a"))), "scope `host-group`");
    rejected(build(targetNotIn(NODE, allocationTagWithNamespace("not-self", "a"))),
        "namespace `not-self`");
    rejected(build(delayedOr(timedOpportunitiesConstraint(targetIn(NODE, allocationTag("a")), 5))),
        "DelayedOr");
  }
}
