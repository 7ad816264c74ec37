//! Placement constraints as bit-vectors (Megha §IV-B, Algorithm 1): the
//! index's candidate sets equal a per-node check of the constraint's
//! definition on random clusters after random event sequences, and the
//! engine never places a constrained ask on a node that violates it.

use proptest::prelude::*;
use shepherd::model::constraint::placement::NodeView;
use shepherd::model::constraint::{text, AttrOp, Constraint, Leaf, Namespace, Placement, Scope};
use shepherd::model::{Ask, ExecutionType, Resources, SchedulerKey};
use shepherd::{Config, Decision, Engine, Event};
use std::collections::BTreeMap;
use std::sync::Arc;

const LABELS: &[&str] = &["", "gpu", "ssd"];
const TAGS: &[&str] = &["a", "b", "c"];
const APPS: u32 = 3;

// ------------------------------------------------------------ generators

#[derive(Debug, Clone)]
enum Op {
    AddNode { node: u32, rack: u8, labels: Vec<&'static str>, java: Option<u8>, os: Option<u8> },
    RemoveNode { pick: usize },
    UpdateNode { pick: usize, labels: Vec<&'static str>, java: Option<u8>, os: Option<u8> },
    Allocate { app: u32, pick: usize, tags: Vec<&'static str> },
    Finish { pick: usize },
}

fn labels() -> impl Strategy<Value = Vec<&'static str>> {
    // Mostly YARN's one partition per node; sometimes two, which the index
    // must still answer exactly.
    prop_oneof![
        6 => Just(vec![]),
        3 => prop::sample::select(&LABELS[1..]).prop_map(|l| vec![l]),
        1 => Just(vec!["gpu", "ssd"]),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let attr = || prop::option::of(0u8..3);
    prop_oneof![
        4 => (0u32..16, 0u8..3, labels(), attr(), attr()).prop_map(|(node, rack, labels, java, os)| Op::AddNode { node, rack, labels, java, os }),
        1 => any::<usize>().prop_map(|pick| Op::RemoveNode { pick }),
        1 => (any::<usize>(), labels(), attr(), attr()).prop_map(|(pick, labels, java, os)| Op::UpdateNode { pick, labels, java, os }),
        6 => (0..APPS, any::<usize>(), prop::sample::subsequence(TAGS, 0..=2)).prop_map(|(app, pick, tags)| Op::Allocate { app, pick, tags }),
        3 => any::<usize>().prop_map(|pick| Op::Finish { pick }),
    ]
}

fn leaf() -> impl Strategy<Value = Leaf> {
    let scope = prop_oneof![3 => Just(Scope::Node), 1 => Just(Scope::Rack)];
    let ns = prop_oneof![Just(Namespace::SelfApp), Just(Namespace::All)];
    let tags = prop::sample::subsequence(TAGS, 1..=2).prop_map(|v| v.into_iter().map(String::from).collect::<Vec<_>>());
    let bounds = (0u32..3, prop_oneof![Just(u32::MAX), 0u32..3]).prop_filter("min <= max", |(a, b)| a <= b);
    let value = |k: &'static str| (0u8..3).prop_map(move |v| format!("{k}{v}"));
    prop_oneof![
        (scope, ns, tags, bounds).prop_map(|(scope, namespace, tags, (min, max))| Leaf::Tags { scope, namespace, tags, min, max }),
        prop::collection::vec(value("j"), 1..3).prop_map(|v| Leaf::Attr { name: "java".into(), op: AttrOp::In(v) }),
        value("o").prop_map(|v| Leaf::Attr { name: "os".into(), op: AttrOp::Ne(v) }),
        prop::sample::select(LABELS).prop_map(|l| Leaf::Partition { label: l.to_string() }),
    ]
}

fn constraint() -> impl Strategy<Value = Constraint> {
    prop_oneof![
        2 => leaf().prop_map(Constraint::Leaf),
        1 => prop::collection::vec(leaf(), 1..4).prop_map(Constraint::And),
        1 => prop::collection::vec(leaf(), 1..4).prop_map(Constraint::Or),
    ]
}

// ------------------------------------------------------------ the model

fn node_event(node: u32, rack: u8, labels: &[&str], java: Option<u8>, os: Option<u8>) -> Event {
    Event::NodeAdded {
        node,
        host: format!("h{node}"),
        rack: format!("/r{rack}"),
        capacity: Resources::new(1 << 20, 1 << 10),
        labels: labels.iter().map(|l| l.to_string()).collect(),
        attributes: attrs(java, os),
    }
}

fn attrs(java: Option<u8>, os: Option<u8>) -> Vec<(String, String)> {
    let mut v = Vec::new();
    if let Some(j) = java {
        v.push(("java".into(), format!("j{j}")));
    }
    if let Some(o) = os {
        v.push(("os".into(), format!("o{o}")));
    }
    v
}

struct World {
    e: Engine,
    /// Live container → (app, tags): what the naive check counts.
    tags: BTreeMap<u64, (u32, Vec<&'static str>)>,
    next_container: u64,
}

impl World {
    fn new() -> World {
        let mut e = Engine::with_config(Config::default()).unwrap();
        for app in 0..APPS {
            e.apply(Event::AppAdded {
                app,
                yarn_id: format!("application_0_{app}"),
                queue: "default".into(),
                user: "u".into(),
                name: "n".into(),
                app_type: "T".into(),
                tags: vec![],
                submit_ms: 0,
                priority: 0,
            });
        }
        World { e, tags: BTreeMap::new(), next_container: 1 }
    }

    fn nodes(&self) -> Vec<u32> {
        self.e.state().nodes.keys().copied().collect()
    }

    fn apply(&mut self, op: &Op) {
        let nodes = self.nodes();
        match op {
            Op::AddNode { node, rack, labels, java, os } => self.e.apply(node_event(*node, *rack, labels, *java, *os)),
            Op::RemoveNode { pick } if !nodes.is_empty() => {
                self.e.apply(Event::NodeRemoved { node: nodes[pick % nodes.len()] });
            }
            Op::UpdateNode { pick, labels, java, os } if !nodes.is_empty() => self.e.apply(Event::NodeAttributesUpdated {
                node: nodes[pick % nodes.len()],
                labels: labels.iter().map(|l| l.to_string()).collect(),
                attributes: attrs(*java, *os),
            }),
            Op::Allocate { app, pick, tags } if !nodes.is_empty() => {
                let id = self.next_container;
                self.next_container += 1;
                self.e.apply(Event::ContainerRecovered {
                    container: id,
                    app: *app,
                    node: nodes[pick % nodes.len()],
                    key: SchedulerKey { priority: 1, allocation_request_id: 0 },
                    resources: Resources::new(1, 1),
                    execution: ExecutionType::Guaranteed,
                    start_ms: 0,
                });
                self.e.apply(Event::ContainerTags { container: id, tags: tags.iter().map(|t| t.to_string()).collect() });
            }
            Op::Finish { pick } if !self.e.state().containers.is_empty() => {
                let ids: Vec<u64> = self.e.state().containers.keys().copied().collect();
                self.e.apply(Event::ContainerFinished { container: ids[pick % ids.len()], exit_status: 0, at_ms: 0 });
            }
            _ => {}
        }
        // Containers released with their node (or finished) leave the model.
        let live = &self.e.state().containers;
        self.tags.retain(|id, _| live.contains_key(id));
        for (id, c) in live {
            if !self.tags.contains_key(id) {
                let Op::Allocate { tags, .. } = op else { unreachable!("only Allocate adds containers") };
                self.tags.insert(*id, (c.app, tags.clone()));
            }
        }
    }

    /// The definition, node by node: the nodes of partition `label` on which
    /// `c` holds for `app`.
    fn naive(&self, label: &str, app: u32, c: &Constraint) -> Vec<u32> {
        let s = &self.e.state();
        let mut out = Vec::new();
        for n in s.nodes.values() {
            let parts: Vec<String> = if n.labels.is_empty() { vec![String::new()] } else { n.labels.iter().cloned().collect() };
            if !parts.iter().any(|p| p == label) {
                continue;
            }
            let attributes = |k: &str| n.attributes.get(k).map(String::as_str);
            let tag_count = |scope: Scope, who: Option<u32>, tag: &str| {
                self.tags
                    .iter()
                    .filter(|(id, (a, tags))| {
                        let on = s.nodes[&s.containers[id].node].clone();
                        let here = match scope {
                            Scope::Node => on.id == n.id,
                            Scope::Rack => on.rack == n.rack,
                        };
                        here && who.is_none_or(|w| w == *a) && tags.contains(&tag)
                    })
                    .count() as u32
            };
            let view = NodeView { partitions: &parts, attributes: &attributes, tag_count: &tag_count };
            if c.holds(app, &view) {
                out.push(n.id);
            }
        }
        out
    }

    fn indexed(&self, label: &str, app: u32, c: &Constraint) -> Vec<u32> {
        let idx = &self.e.state().constraints;
        let mut v = idx.candidates(label, app, c).map(|k| idx.nodes_of(&k)).unwrap_or_default();
        v.sort();
        v
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Megha's match by AND/OR of bit-vectors equals the per-node
    /// definition, for every partition and app, after every step of a
    /// random sequence of node add/remove/update and container
    /// allocate/finish events.
    #[test]
    fn bit_vectors_match_the_per_node_check(ops in prop::collection::vec(op(), 1..60), cs in prop::collection::vec(constraint(), 1..6)) {
        let mut w = World::new();
        for (step, op) in ops.iter().enumerate() {
            w.apply(op);
            for c in &cs {
                for label in LABELS {
                    for app in 0..APPS {
                        prop_assert_eq!(w.indexed(label, app, c), w.naive(label, app, c), "step {} {:?} label {:?} app {} constraint {}", step, op, label, app, text::format(c));
                    }
                }
            }
        }
    }

    /// The text form the shim writes reads back as the same constraint.
    #[test]
    fn text_form_round_trips(c in constraint()) {
        prop_assert_eq!(text::parse(&text::format(&c)).unwrap(), c);
    }
}

// ------------------------------------------------------------ the engine

fn cluster(nodes: u32, config: &str) -> Engine {
    let mut e = Engine::with_config(Config::parse(config).unwrap()).unwrap();
    for n in 0..nodes {
        e.apply(Event::NodeAdded {
            node: n,
            host: format!("h{n}"),
            rack: format!("/r{}", n % 2),
            capacity: Resources::new(8192, 8),
            labels: vec![],
            attributes: vec![("java".into(), if n == 0 { "11".into() } else { "8".into() })],
        });
    }
    e
}

fn constrained_app(e: &mut Engine, app: u32, count: i32, tags: &[&str], constraint: &str) {
    e.apply(Event::AppAdded {
        app,
        yarn_id: format!("application_0_{app}"),
        queue: "default".into(),
        user: "u".into(),
        name: "n".into(),
        app_type: "T".into(),
        tags: vec![],
        submit_ms: 0,
        priority: 0,
    });
    e.apply(Event::AttemptAdded { app, attempt: 1 });
    e.apply(Event::AskUpdated {
        app,
        ask: Ask {
            placement: Some(Arc::new(Placement::from_text(tags.iter().map(|t| t.to_string()).collect(), constraint))),
            ..Ask::anywhere(SchedulerKey { priority: 1, allocation_request_id: 1 }, Resources::new(1024, 1), count)
        },
    });
}

/// Heartbeat every node `rounds` times; the (app, node) of each allocation.
fn heartbeats(e: &mut Engine, rounds: i64) -> Vec<(u32, u32)> {
    let mut got = Vec::new();
    let nodes: Vec<u32> = e.state().nodes.keys().copied().collect();
    for r in 0..rounds {
        for &n in &nodes {
            let mut out = Vec::new();
            e.schedule_node(n, r * 1000, &mut out).unwrap();
            got.extend(out.iter().filter_map(|d| match d {
                Decision::Allocate { app, node, .. } => Some((*app, *node)),
                _ => None,
            }));
        }
    }
    got
}

#[test]
fn anti_affinity_spreads_one_container_per_node() {
    for policy in ["composed", "fifo", "drf", "carbyne", "slearn"] {
        let mut e = cluster(4, &format!("[scheduler]\npolicy = \"{policy}\"\n"));
        // Six replicas, anti-affine among themselves, on four nodes that
        // could each hold eight: exactly four are placed, one per node.
        constrained_app(&mut e, 1, 6, &["hbase-rs"], "notin,node,hbase-rs");
        let got = heartbeats(&mut e, 5);
        let mut nodes: Vec<u32> = got.iter().map(|(_, n)| *n).collect();
        nodes.sort();
        assert_eq!(nodes, vec![0, 1, 2, 3], "{policy}: {got:?}");
        if policy != "slearn" {
            // (SLearn's pilot gate holds the non-pilot replicas back first.)
            let blocked = e.state_json()["apps"][0]["blocked"]["reason"].as_str().unwrap_or_default().to_string();
            assert!(blocked.contains("constraints"), "{policy}: {blocked}");
        }
        // One replica finishes: its node is free for the next one.
        let c = *e.state().containers.keys().next().unwrap();
        let freed = e.state().containers[&c].node;
        e.apply(Event::ContainerFinished { container: c, exit_status: 0, at_ms: 9_000 });
        let again = heartbeats(&mut e, 1);
        assert_eq!(again, vec![(1, freed)], "{policy}");
    }
}

#[test]
fn unsatisfiable_and_rejected_constraints_are_never_placed() {
    for (constraint, why) in [
        ("attr,node,java,eq,17", "no node has java 17"),
        ("and(attr,node,java,eq,11;attr,node,java,ne,11)", "contradiction"),
        ("in,node,all/zk", "no zk container anywhere"),
        ("and(notin,node,a;or(in,node,b;in,node,c))", "unsupported nesting: rejected"),
        ("notin,node,not-self/a", "unsupported namespace: rejected"),
    ] {
        let mut e = cluster(4, "");
        constrained_app(&mut e, 1, 3, &["a"], constraint);
        assert!(heartbeats(&mut e, 5).is_empty(), "{constraint}: {why}");
    }
}

#[test]
fn node_attribute_and_affinity_constraints_pick_their_nodes() {
    let mut e = cluster(4, "");
    // Only node 0 runs java 11.
    constrained_app(&mut e, 1, 2, &["zk"], "attr,node,java,eq,11");
    let got = heartbeats(&mut e, 2);
    assert_eq!(got, vec![(1, 0), (1, 0)]);
    // Affinity to another app's zk containers (namespace all): node 0 only.
    constrained_app(&mut e, 2, 2, &[], "in,node,all/zk");
    assert_eq!(heartbeats(&mut e, 2), vec![(2, 0), (2, 0)]);
    // Rack anti-affinity to zk: node 0 is on /r0, so only /r1 (nodes 1, 3).
    constrained_app(&mut e, 3, 4, &[], "notin,rack,all/zk");
    let mut nodes: Vec<u32> = heartbeats(&mut e, 2).into_iter().map(|(_, n)| n).collect();
    nodes.dedup();
    assert!(nodes.iter().all(|n| n % 2 == 1) && !nodes.is_empty(), "{nodes:?}");
}

#[test]
fn a_pipeline_without_the_filter_refuses_constrained_asks() {
    let cfg = "[scheduler]\npolicy = \"mine\"\n[pipeline.mine]\napp_order = \"fifo\"\nfilter = []\n";
    let mut e = cluster(2, cfg);
    constrained_app(&mut e, 1, 2, &["a"], "notin,node,a");
    assert!(heartbeats(&mut e, 3).is_empty());
    // With the filter (the default), a tag-only placement places freely.
    let mut e = cluster(2, "");
    constrained_app(&mut e, 1, 2, &["a"], "");
    assert_eq!(heartbeats(&mut e, 1).len(), 2, "with the filter, tags alone place freely");
}

#[test]
fn recovered_containers_count_through_their_tags() {
    let mut e = cluster(2, "");
    constrained_app(&mut e, 1, 0, &[], "");
    e.apply(Event::ContainerRecovered {
        container: 1 << 62 | 1,
        app: 1,
        node: 0,
        key: SchedulerKey { priority: 1, allocation_request_id: 1 },
        resources: Resources::new(1024, 1),
        execution: ExecutionType::Guaranteed,
        start_ms: 0,
    });
    e.apply(Event::ContainerTags { container: 1 << 62 | 1, tags: vec!["rs".into()] });
    constrained_app(&mut e, 2, 2, &["rs"], "notin,node,all/rs");
    assert_eq!(heartbeats(&mut e, 2), vec![(2, 1)]);
}
