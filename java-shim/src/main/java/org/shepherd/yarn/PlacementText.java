package org.shepherd.yarn;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.yarn.api.records.NodeAttributeOpCode;
import org.apache.hadoop.yarn.api.resource.PlacementConstraint;
import org.apache.hadoop.yarn.api.resource.PlacementConstraint.AbstractConstraint;
import org.apache.hadoop.yarn.api.resource.PlacementConstraint.And;
import org.apache.hadoop.yarn.api.resource.PlacementConstraint.CardinalityConstraint;
import org.apache.hadoop.yarn.api.resource.PlacementConstraint.Or;
import org.apache.hadoop.yarn.api.resource.PlacementConstraint.SingleConstraint;
import org.apache.hadoop.yarn.api.resource.PlacementConstraint.TargetConstraint;
import org.apache.hadoop.yarn.api.resource.PlacementConstraint.TargetExpression;
import org.apache.hadoop.yarn.api.resource.PlacementConstraints;

/**
 * Writes a YARN {@link PlacementConstraint} in the engine's text form
 * ({@code src/model/constraint/text.rs}). It only translates: whether the form is
 * supported is the engine's answer ({@code NativeEngine.checkPlacement}).
 * Forms the grammar cannot hold (timed constraints, unknown classes, AND/OR
 * nested deeper than one level) are written as {@code unsupported,...} or
 * as nested text, which the engine rejects with a message naming the form.
 */
final class PlacementText {
  /** The text, and the node partition a top-level partition target names (or ""). */
  static final class Result {
    final String text;
    final String partition;

    Result(String text, String partition) {
      this.text = text;
      this.partition = partition;
    }
  }

  private String partition = "";

  private PlacementText() {
  }

  static Result of(PlacementConstraint pc) {
    if (pc == null || pc.getConstraintExpr() == null) {
      return new Result("", "");
    }
    PlacementText t = new PlacementText();
    AbstractConstraint c = pc.getConstraintExpr();
    String text;
    if (c instanceof And) {
      text = composite("and", ((And) c).getChildren(), t, true);
    } else if (c instanceof Or) {
      text = composite("or", ((Or) c).getChildren(), t, false);
    } else {
      List<String> leaves = t.leaves(c, true);
      text = leaves.size() == 1 ? leaves.get(0) : "and(" + String.join(";", leaves) + ")";
    }
    return new Result(text, t.partition);
  }

  private static String composite(String op, List<AbstractConstraint> children, PlacementText t,
      boolean topLevelAnd) {
    List<String> parts = new ArrayList<>();
    for (AbstractConstraint child : children) {
      if (child instanceof And || child instanceof Or) {
        // Nested composite: written nested, rejected by the engine by name.
        String inner = child instanceof And ? "and" : "or";
        parts.add(composite(inner, ((PlacementConstraint.CompositeConstraint<AbstractConstraint>) child)
            .getChildren(), new PlacementText(), false));
        continue;
      }
      List<String> leaves = t.leaves(child, topLevelAnd);
      if (leaves.size() > 1 && !topLevelAnd) {
        // A multi-target constraint is an AND: inside OR that is nesting.
        parts.add("and(" + String.join(";", leaves) + ")");
      } else {
        parts.addAll(leaves);
      }
    }
    return op + "(" + String.join(";", parts) + ")";
  }

  /** One leaf per target expression (YARN requires every target to hold). */
  private List<String> leaves(AbstractConstraint c, boolean mayTakePartition) {
    List<String> out = new ArrayList<>();
    if (c instanceof SingleConstraint) {
      SingleConstraint s = (SingleConstraint) c;
      for (TargetExpression te : s.getTargetExpressions()) {
        out.add(target(s.getScope(), s.getMinCardinality(), s.getMaxCardinality(),
            s.getNodeAttributeOpCode(), te, mayTakePartition));
      }
    } else if (c instanceof TargetConstraint) {
      TargetConstraint tc = (TargetConstraint) c;
      // TargetOperator is package-private in YARN: compare by name.
      boolean in = "IN".equals(String.valueOf(tc.getOp()));
      for (TargetExpression te : tc.getTargetExpressions()) {
        out.add(target(tc.getScope(), in ? 1 : 0, in ? Integer.MAX_VALUE : 0,
            NodeAttributeOpCode.NO_OP, te, mayTakePartition));
      }
    } else if (c instanceof CardinalityConstraint) {
      CardinalityConstraint cc = (CardinalityConstraint) c;
      out.add("cardinality," + cc.getScope() + "," + cc.getMinCardinality() + ","
          + bound(cc.getMaxCardinality()) + "," + String.join(",", new TreeSet<>(cc.getAllocationTags())));
    } else {
      out.add("unsupported," + c.getClass().getSimpleName().replace(',', ' '));
    }
    if (out.isEmpty()) {
      out.add("unsupported,constraint without target expressions");
    }
    return out;
  }

  private static String bound(int max) {
    return max == Integer.MAX_VALUE || max < 0 ? "*" : Integer.toString(max);
  }

  private String target(String scope, int min, int max, NodeAttributeOpCode op, TargetExpression te,
      boolean mayTakePartition) {
    Set<String> values = te.getTargetValues() == null ? new TreeSet<>() : new TreeSet<>(te.getTargetValues());
    String key = te.getTargetKey() == null ? "" : te.getTargetKey();
    switch (te.getTargetType()) {
      case ALLOCATION_TAG: {
        // The namespace is the target key ("all", "app-id/<id>", ...); none = self.
        String ns = key.isEmpty() || key.equals("self") ? "" : key + "/";
        List<String> tags = new ArrayList<>();
        for (String v : values) {
          tags.add(ns + v);
        }
        return "cardinality," + scope + "," + min + "," + bound(max) + "," + String.join(",", tags);
      }
      case NODE_ATTRIBUTE:
        if (key.startsWith(PlacementConstraints.NODE_PARTITION)
            || key.equals(PlacementConstraints.NODE_PARTITION.replace("/", ""))) {
          if (values.size() > 1) {
            return "unsupported,several node partitions in one target";
          }
          String label = values.isEmpty() ? "" : values.iterator().next();
          if (mayTakePartition) {
            partition = label;
          }
          return "partition," + label;
        }
        boolean ne = op == NodeAttributeOpCode.NE || (op != NodeAttributeOpCode.EQ && max == 0);
        return "attr," + scope + "," + key + "," + (ne ? "ne" : "eq") + "," + String.join(",", values);
      default:
        return "unsupported,target type " + te.getTargetType();
    }
  }
}
