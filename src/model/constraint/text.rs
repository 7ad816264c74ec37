//! The text form of a placement constraint on the JNI wire: the Java shim
//! walks YARN's `PlacementConstraint` tree and writes it in this form, the
//! engine parses it here. One implementation decides what is supported, and
//! an unsupported form is rejected with a message naming the form (the shim
//! asks the engine through JNI at `allocate` and throws YARN's
//! `SchedulerInvalidResoureRequestException` with it, as YARN's own
//! `SingleConstraintAppPlacementAllocator` does for forms it cannot handle).
//!
//! ```text
//! constraint := leaf | and(leaf;leaf;...) | or(leaf;leaf;...)
//! leaf       := in,SCOPE,TAG[,TAG...]                 affinity        (min 1)
//!             | notin,SCOPE,TAG[,TAG...]              anti-affinity   (max 0)
//!             | cardinality,SCOPE,MIN,MAX,TAG[,TAG...] (MAX = * for unbounded)
//!             | attr,SCOPE,NAME,eq,VALUE[,VALUE...]   node attribute = one of
//!             | attr,SCOPE,NAME,ne,VALUE              node attribute != value
//!             | partition,LABEL                       node partition (node label; empty = default)
//!             | unsupported,DESCRIPTION               a form the shim found it cannot express (rejected)
//! SCOPE      := node | rack
//! TAG        := [NAMESPACE/]tag,  NAMESPACE := self (default) | all
//! ```
//!
//! Rejected (each names itself in the error): AND/OR nested in AND/OR,
//! timed constraints (`delayed_or`), scopes other than node and rack,
//! node attributes at rack scope, tag namespaces `not-self`, `app-id/…`,
//! `app-tag/…`, cardinality with MIN > MAX, empty targets.

use super::placement::{AttrOp, Constraint, Leaf, Namespace, Scope};

/// A form Shepherd does not match. `form` names it for the operator and the AM.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("placement constraint form not supported by Shepherd: {form} (in `{text}`)")]
pub struct Unsupported {
    pub form: String,
    pub text: String,
}

pub fn parse(text: &str) -> Result<Constraint, Unsupported> {
    let bad = |form: String| Unsupported { form, text: text.to_string() };
    let t = text.trim();
    if let Some((head, body)) = t.split_once('(') {
        let body = body.strip_suffix(')').ok_or_else(|| bad(format!("unbalanced parentheses after `{head}(`")))?;
        let head = head.trim().to_ascii_lowercase();
        if head != "and" && head != "or" {
            return Err(bad(match head.as_str() {
                "delayed_or" | "delayedor" => "DelayedOr (timed placement constraints)".to_string(),
                other => format!("composite `{other}`"),
            }));
        }
        if body.contains('(') {
            return Err(bad(format!(
                "{} nested inside {} (composite constraints are matched one level deep)",
                nested_kind(body),
                head.to_uppercase()
            )));
        }
        let leaves = body.split(';').filter(|s| !s.trim().is_empty()).map(|s| leaf(s, &bad)).collect::<Result<Vec<_>, _>>()?;
        if leaves.is_empty() {
            return Err(bad(format!("empty {}", head.to_uppercase())));
        }
        return Ok(if head == "and" { Constraint::And(leaves) } else { Constraint::Or(leaves) });
    }
    Ok(Constraint::Leaf(leaf(t, &bad)?))
}

fn nested_kind(body: &str) -> String {
    let inner = body.split('(').next().unwrap_or("").rsplit(';').next().unwrap_or("").trim();
    inner.to_uppercase()
}

fn scope(s: &str, bad: &dyn Fn(String) -> Unsupported) -> Result<Scope, Unsupported> {
    match s.trim().to_ascii_lowercase().as_str() {
        "node" => Ok(Scope::Node),
        "rack" => Ok(Scope::Rack),
        other => Err(bad(format!("scope `{other}` (only node and rack)"))),
    }
}

fn tags(parts: &[&str], bad: &dyn Fn(String) -> Unsupported) -> Result<(Namespace, Vec<String>), Unsupported> {
    let mut ns: Option<Namespace> = None;
    let mut out = Vec::new();
    for p in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        let (this, tag) = match p.split_once('/') {
            None => (Namespace::SelfApp, p),
            Some(("self", t)) => (Namespace::SelfApp, t),
            Some(("all", t)) => (Namespace::All, t),
            Some((other, _)) => return Err(bad(format!("allocation-tag namespace `{other}` (only self and all)"))),
        };
        if ns.is_some_and(|n| n != this) {
            return Err(bad("allocation tags of different namespaces in one target".into()));
        }
        ns = Some(this);
        out.push(tag.to_string());
    }
    if out.is_empty() {
        return Err(bad("target without allocation tags".into()));
    }
    Ok((ns.unwrap_or(Namespace::SelfApp), out))
}

fn leaf(s: &str, bad: &dyn Fn(String) -> Unsupported) -> Result<Leaf, Unsupported> {
    let parts: Vec<&str> = s.trim().split(',').collect();
    let kind = parts[0].trim().to_ascii_lowercase();
    let need = |n: usize| if parts.len() < n { Err(bad(format!("`{kind}` with too few fields"))) } else { Ok(()) };
    match kind.as_str() {
        "in" | "notin" => {
            need(3)?;
            let scope = scope(parts[1], bad)?;
            let (namespace, tags) = tags(&parts[2..], bad)?;
            let (min, max) = if kind == "in" { (1, u32::MAX) } else { (0, 0) };
            Ok(Leaf::Tags { scope, namespace, tags, min, max })
        }
        "cardinality" => {
            need(5)?;
            let scope = scope(parts[1], bad)?;
            let num = |p: &str| -> Result<u32, Unsupported> {
                match p.trim() {
                    "*" => Ok(u32::MAX),
                    v => v.parse().map_err(|_| bad(format!("cardinality bound `{v}`"))),
                }
            };
            let (min, max) = (num(parts[2])?, num(parts[3])?);
            if min > max {
                return Err(bad(format!("cardinality with min {min} > max {max}")));
            }
            let (namespace, tags) = tags(&parts[4..], bad)?;
            Ok(Leaf::Tags { scope, namespace, tags, min, max })
        }
        "attr" => {
            need(5)?;
            if scope(parts[1], bad)? != Scope::Node {
                return Err(bad("node-attribute target at rack scope".into()));
            }
            let name = parts[2].trim().to_string();
            let values: Vec<String> = parts[4..].iter().map(|v| v.trim().to_string()).collect();
            let op = match parts[3].trim().to_ascii_lowercase().as_str() {
                "eq" => AttrOp::In(values),
                "ne" if values.len() == 1 => AttrOp::Ne(values[0].clone()),
                "ne" => return Err(bad("node-attribute `ne` with several values".into())),
                other => return Err(bad(format!("node-attribute operator `{other}` (only eq and ne)"))),
            };
            Ok(Leaf::Attr { name, op })
        }
        "partition" => Ok(Leaf::Partition { label: parts.get(1).map(|l| l.trim().to_string()).unwrap_or_default() }),
        // The shim names forms it cannot even write in this grammar
        // (timed constraints, unknown constraint classes).
        "unsupported" => Err(bad(parts[1..].join(","))),
        "" => Err(bad("empty constraint".into())),
        other => Err(bad(format!("constraint `{other}`"))),
    }
}

/// The text form of `c` (what `parse` reads back).
pub fn format(c: &Constraint) -> String {
    let leaf = |l: &Leaf| match l {
        Leaf::Attr { name, op: AttrOp::In(v) } => format!("attr,node,{name},eq,{}", v.join(",")),
        Leaf::Attr { name, op: AttrOp::Ne(v) } => format!("attr,node,{name},ne,{v}"),
        Leaf::Partition { label } => format!("partition,{label}"),
        Leaf::Tags { scope, namespace, tags, min, max } => {
            let sc = match scope {
                Scope::Node => "node",
                Scope::Rack => "rack",
            };
            let ns = match namespace {
                Namespace::SelfApp => "",
                Namespace::All => "all/",
            };
            let t: Vec<String> = tags.iter().map(|t| format!("{ns}{t}")).collect();
            let bound = |b: u32| if b == u32::MAX { "*".to_string() } else { b.to_string() };
            format!("cardinality,{sc},{},{},{}", bound(*min), bound(*max), t.join(","))
        }
    };
    match c {
        Constraint::Leaf(l) => leaf(l),
        Constraint::And(ls) => format!("and({})", ls.iter().map(leaf).collect::<Vec<_>>().join(";")),
        Constraint::Or(ls) => format!("or({})", ls.iter().map(leaf).collect::<Vec<_>>().join(";")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supported_forms_round_trip() {
        for t in [
            "notin,node,hbase",
            "in,rack,all/zk",
            "cardinality,node,0,3,spark",
            "attr,node,java,eq,1.8,11",
            "attr,node,os,ne,centos6",
            "partition,gpu",
            "and(notin,node,hbase;attr,node,java,eq,11)",
            "or(in,node,zk;in,rack,zk)",
        ] {
            let c = parse(t).unwrap_or_else(|e| panic!("{t}: {e}"));
            assert_eq!(parse(&format(&c)).unwrap(), c, "{t}");
        }
    }

    #[test]
    fn unsupported_forms_name_themselves() {
        for (t, form) in [
            ("and(notin,node,a;or(in,node,b;in,node,c))", "OR nested inside AND"),
            ("delayed_or(in,node,a)", "DelayedOr"),
            ("in,host,a", "scope `host`"),
            ("notin,node,not-self/a", "namespace `not-self`"),
            ("notin,node,app-id/application_1_1/a", "namespace `app-id`"),
            ("attr,rack,java,eq,11", "rack scope"),
            ("attr,node,cores,gt,8", "operator `gt`"),
            ("cardinality,node,3,1,a", "min 3 > max 1"),
            ("in,node", "too few fields"),
        ] {
            let e = parse(t).unwrap_err().to_string();
            assert!(e.contains(form) && e.contains(t), "{t}: {e}");
        }
    }
}
