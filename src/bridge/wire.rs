//! Wire format of the JNI crossing (version 1). All integers little-endian.
//!
//! **Events in** — one `byte[]` holding a sequence of records, each a tag byte
//! followed by its fields:
//!
//! | tag | event               | fields |
//! |-----|---------------------|--------|
//! | 1   | NodeAdded           | u32 node, str host, str rack, res capability, str labels (comma-separated), str attributes (`k=v` comma-separated) |
//! | 2   | NodeRemoved         | u32 node |
//! | 3   | NodeResourceUpdated | u32 node, res capability |
//! | 4   | NodeUtilization     | u32 node, res used |
//! | 5   | AppAdded            | u32 app, str queue, str user, str name, str type, str tags (comma-separated), i64 submit_ms, i32 priority, str yarn_id |
//! | 6   | AppRemoved          | u32 app |
//! | 7   | AttemptAdded        | u32 app, u32 attempt |
//! | 8   | AttemptRemoved      | u32 app, u32 attempt |
//! | 9   | AskUpdated          | u32 app, i32 priority, i64 allocation_request_id, res capability, i32 count (ANY), u8 relax_locality, u8 execution (0 guaranteed, 1 opportunistic), str label, u16 n, n × (str location, i32 count) |
//! | 10  | ContainerLaunched   | u64 container, i64 at_ms |
//! | 11  | ContainerFinished   | u64 container, i32 exit_status, i64 at_ms |
//! | 12  | ContainerRecovered  | u64 container, u32 app, u32 node, i32 priority, i64 allocation_request_id, res resources, u8 execution, i64 start_ms |
//! | 13  | AllocationRejected  | u64 container |
//! | 14  | NodeLoadEstimate    | str host, res used, i64 expires_ms (sidecar input; the shim never sends it) |
//! | 15  | HistorySample       | str app_id, str user, str name, i64 size_ms (sidecar input; the shim never sends it) |
//! | 16  | NodeAttributesUpdated | u32 node, str labels (comma-separated), str attributes (`k=v` comma-separated) |
//! | 17  | AskPlacement        | u32 app, i32 priority, i64 allocation_request_id, str allocation tags (comma-separated), str constraint (`crate::constraint::text`); completes the AskUpdated record just before it (same app and key), which then came from a `SchedulingRequest` |
//! | 18  | ContainerTags       | u64 container, str allocation tags (comma-separated) |
//!
//! `str` is a u16 byte length followed by UTF-8; `res` is a u8 count `k`
//! followed by `k` × i64 (memory MB, vcores, then extra types in the order
//! given to `create`). Containers recovered by the shim use keys with bit 62
//! set ([`RECOVERED_KEY_BIT`]); the engine numbers its own from 1.
//!
//! **Decisions out** — a `long[]`: `[count, record...]`, each record
//!
//! | kind | decision | fields |
//! |------|----------|--------|
//! | 1    | Allocate | container, app, node, priority, allocation_request_id, locality (0 node, 1 rack, 2 off-switch), execution, then one long per resource type |
//! | 2    | Preempt  | container |

use crate::engine::{Decision, Event};
use crate::model::{Ask, ExecutionType, Resources, SchedulerKey};

pub const RECOVERED_KEY_BIT: u64 = 1 << 62;

pub mod tag {
    pub const NODE_ADDED: u8 = 1;
    pub const NODE_REMOVED: u8 = 2;
    pub const NODE_RESOURCE_UPDATED: u8 = 3;
    pub const NODE_UTILIZATION: u8 = 4;
    pub const APP_ADDED: u8 = 5;
    pub const APP_REMOVED: u8 = 6;
    pub const ATTEMPT_ADDED: u8 = 7;
    pub const ATTEMPT_REMOVED: u8 = 8;
    pub const ASK_UPDATED: u8 = 9;
    pub const CONTAINER_LAUNCHED: u8 = 10;
    pub const CONTAINER_FINISHED: u8 = 11;
    pub const CONTAINER_RECOVERED: u8 = 12;
    pub const ALLOCATION_REJECTED: u8 = 13;
    // Sidecar inputs (crate::control); encoded for recordings and tests.
    pub const NODE_LOAD_ESTIMATE: u8 = 14;
    pub const HISTORY_SAMPLE: u8 = 15;
    // Placement constraints (crate::constraint).
    pub const NODE_ATTRIBUTES_UPDATED: u8 = 16;
    pub const ASK_PLACEMENT: u8 = 17;
    pub const CONTAINER_TAGS: u8 = 18;
}

pub const DECISION_ALLOCATE: i64 = 1;
pub const DECISION_PREEMPT: i64 = 2;

#[derive(Debug, thiserror::Error, PartialEq)]
#[error("malformed event batch at byte {offset}: {what}")]
pub struct WireError {
    pub offset: usize,
    pub what: String,
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], WireError> {
        if self.pos + n > self.buf.len() {
            return Err(WireError { offset: self.pos, what: format!("truncated {what}") });
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1, "u8")?[0])
    }
    fn u16(&mut self) -> Result<u16, WireError> {
        Ok(u16::from_le_bytes(self.take(2, "u16")?.try_into().unwrap()))
    }
    fn u32(&mut self) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.take(4, "u32")?.try_into().unwrap()))
    }
    fn i32(&mut self) -> Result<i32, WireError> {
        Ok(i32::from_le_bytes(self.take(4, "i32")?.try_into().unwrap()))
    }
    fn i64(&mut self) -> Result<i64, WireError> {
        Ok(i64::from_le_bytes(self.take(8, "i64")?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, WireError> {
        Ok(self.i64()? as u64)
    }
    fn str(&mut self) -> Result<String, WireError> {
        let n = self.u16()? as usize;
        let at = self.pos;
        let bytes = self.take(n, "string")?;
        String::from_utf8(bytes.to_vec()).map_err(|_| WireError { offset: at, what: "string is not UTF-8".into() })
    }
    fn list(&mut self) -> Result<Vec<String>, WireError> {
        let s = self.str()?;
        Ok(s.split(',').filter(|p| !p.is_empty()).map(str::to_string).collect())
    }
    fn res(&mut self) -> Result<Resources, WireError> {
        let k = self.u8()? as usize;
        if k > crate::model::resource::MAX_RESOURCE_TYPES {
            return Err(WireError { offset: self.pos - 1, what: format!("{k} resource types") });
        }
        let mut v = [0i64; crate::model::resource::MAX_RESOURCE_TYPES];
        for slot in v.iter_mut().take(k) {
            *slot = self.i64()?;
        }
        Ok(Resources(v))
    }
}

/// `k=v` items as pairs (`k` alone: empty value).
fn pairs(items: Vec<String>) -> Vec<(String, String)> {
    items
        .into_iter()
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (kv, String::new()),
        })
        .collect()
}

/// Decode a whole batch, appending to `out`. On error nothing after the bad
/// record is decoded; the records before it are in `out`.
pub fn decode_events(buf: &[u8], out: &mut Vec<Event>) -> Result<(), WireError> {
    let mut r = Reader { buf, pos: 0 };
    while r.pos < buf.len() {
        let at = r.pos;
        let ev = match r.u8()? {
            tag::NODE_ADDED => Event::NodeAdded {
                node: r.u32()?,
                host: r.str()?,
                rack: r.str()?,
                capacity: r.res()?,
                labels: r.list()?,
                attributes: pairs(r.list()?),
            },
            tag::NODE_REMOVED => Event::NodeRemoved { node: r.u32()? },
            tag::NODE_RESOURCE_UPDATED => Event::NodeResourceUpdated { node: r.u32()?, capacity: r.res()? },
            tag::NODE_UTILIZATION => Event::NodeUtilization { node: r.u32()?, used: r.res()? },
            tag::APP_ADDED => {
                let (app, queue, user, name, app_type, tags) = (r.u32()?, r.str()?, r.str()?, r.str()?, r.str()?, r.list()?);
                let (submit_ms, priority, yarn_id) = (r.i64()?, r.i32()?, r.str()?);
                Event::AppAdded { app, yarn_id, queue, user, name, app_type, tags, submit_ms, priority }
            }
            tag::APP_REMOVED => Event::AppRemoved { app: r.u32()? },
            tag::ATTEMPT_ADDED => Event::AttemptAdded { app: r.u32()?, attempt: r.u32()? },
            tag::ATTEMPT_REMOVED => Event::AttemptRemoved { app: r.u32()?, attempt: r.u32()? },
            tag::ASK_UPDATED => {
                let app = r.u32()?;
                let key = SchedulerKey { priority: r.i32()?, allocation_request_id: r.i64()? };
                let capability = r.res()?;
                let count = r.i32()?;
                let relax_locality = r.u8()? != 0;
                let execution = ExecutionType::from_code(r.u8()?);
                let label = r.str()?;
                let n = r.u16()? as usize;
                let mut locations = Vec::with_capacity(n);
                for _ in 0..n {
                    locations.push((r.str()?, r.i32()?));
                }
                Event::AskUpdated {
                    app,
                    ask: Ask { key, capability, count, relax_locality, execution, locations, label, placement: None },
                }
            }
            tag::CONTAINER_LAUNCHED => Event::ContainerLaunched { container: r.u64()?, at_ms: r.i64()? },
            tag::CONTAINER_FINISHED => Event::ContainerFinished {
                container: r.u64()?,
                exit_status: r.i32()?,
                at_ms: r.i64()?,
            },
            tag::CONTAINER_RECOVERED => Event::ContainerRecovered {
                container: r.u64()?,
                app: r.u32()?,
                node: r.u32()?,
                key: SchedulerKey { priority: r.i32()?, allocation_request_id: r.i64()? },
                resources: r.res()?,
                execution: ExecutionType::from_code(r.u8()?),
                start_ms: r.i64()?,
            },
            tag::ALLOCATION_REJECTED => Event::AllocationRejected { container: r.u64()? },
            tag::NODE_LOAD_ESTIMATE => Event::NodeLoadEstimate { host: r.str()?, used: r.res()?, expires_ms: r.i64()? },
            tag::HISTORY_SAMPLE => Event::HistorySample {
                app_id: r.str()?,
                user: r.str()?,
                name: r.str()?,
                size_ms: r.i64()?,
            },
            tag::NODE_ATTRIBUTES_UPDATED => Event::NodeAttributesUpdated { node: r.u32()?, labels: r.list()?, attributes: pairs(r.list()?) },
            tag::ASK_PLACEMENT => {
                let app = r.u32()?;
                let key = SchedulerKey { priority: r.i32()?, allocation_request_id: r.i64()? };
                let (tags, text) = (r.list()?, r.str()?);
                match out.last_mut() {
                    Some(Event::AskUpdated { app: a, ask }) if *a == app && ask.key == key => {
                        ask.placement = Some(std::sync::Arc::new(crate::constraint::Placement::from_text(tags, &text)));
                        continue;
                    }
                    _ => return Err(WireError { offset: at, what: format!("AskPlacement for app {app} key {key:?} does not follow its AskUpdated") }),
                }
            }
            tag::CONTAINER_TAGS => Event::ContainerTags { container: r.u64()?, tags: r.list()? },
            other => return Err(WireError { offset: at, what: format!("unknown event tag {other}") }),
        };
        out.push(ev);
    }
    Ok(())
}

/// Encode decisions as `[count, record...]` into `out` (cleared first).
pub fn encode_decisions(decisions: &[Decision], resource_types: usize, out: &mut Vec<i64>) {
    out.clear();
    out.push(decisions.len() as i64);
    for d in decisions {
        match d {
            Decision::Allocate { container, app, node, key, resources, locality, execution } => {
                out.extend_from_slice(&[
                    DECISION_ALLOCATE,
                    *container as i64,
                    *app as i64,
                    *node as i64,
                    key.priority as i64,
                    key.allocation_request_id,
                    locality.code(),
                    execution.code(),
                ]);
                out.extend_from_slice(&resources.0[..resource_types]);
            }
            Decision::Preempt { container } => {
                out.extend_from_slice(&[DECISION_PREEMPT, *container as i64]);
            }
        }
    }
}

/// Encoder for event batches: the Rust twin of the Java `EventBatch`, used by
/// tests and the JNI benchmark to build the exact bytes the shim sends.
#[derive(Default)]
pub struct EventWriter {
    pub buf: Vec<u8>,
}

impl EventWriter {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i64(&mut self, v: i64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.u16(s.len() as u16);
        self.buf.extend_from_slice(s.as_bytes());
        self
    }
    fn res(&mut self, r: &Resources, k: usize) -> &mut Self {
        self.u8(k as u8);
        for v in &r.0[..k] {
            self.i64(*v);
        }
        self
    }

    /// Append one event; `k` is the number of resource types to write.
    pub fn event(&mut self, e: &Event, k: usize) -> &mut Self {
        match e {
            Event::NodeAdded { node, host, rack, capacity, labels, attributes } => {
                let attrs: Vec<String> = attributes.iter().map(|(a, b)| format!("{a}={b}")).collect();
                self.u8(tag::NODE_ADDED).u32(*node).str(host).str(rack).res(capacity, k);
                self.str(&labels.join(",")).str(&attrs.join(","))
            }
            Event::NodeRemoved { node } => self.u8(tag::NODE_REMOVED).u32(*node),
            Event::NodeResourceUpdated { node, capacity } => {
                self.u8(tag::NODE_RESOURCE_UPDATED).u32(*node).res(capacity, k)
            }
            Event::NodeUtilization { node, used } => self.u8(tag::NODE_UTILIZATION).u32(*node).res(used, k),
            Event::AppAdded { app, yarn_id, queue, user, name, app_type, tags, submit_ms, priority } => self
                .u8(tag::APP_ADDED)
                .u32(*app)
                .str(queue)
                .str(user)
                .str(name)
                .str(app_type)
                .str(&tags.join(","))
                .i64(*submit_ms)
                .i32(*priority)
                .str(yarn_id),
            Event::AppRemoved { app } => self.u8(tag::APP_REMOVED).u32(*app),
            Event::AttemptAdded { app, attempt } => self.u8(tag::ATTEMPT_ADDED).u32(*app).u32(*attempt),
            Event::AttemptRemoved { app, attempt } => self.u8(tag::ATTEMPT_REMOVED).u32(*app).u32(*attempt),
            Event::AskUpdated { app, ask } => {
                self.u8(tag::ASK_UPDATED)
                    .u32(*app)
                    .i32(ask.key.priority)
                    .i64(ask.key.allocation_request_id)
                    .res(&ask.capability, k)
                    .i32(ask.count)
                    .u8(ask.relax_locality as u8)
                    .u8(ask.execution.code() as u8)
                    .str(&ask.label)
                    .u16(ask.locations.len() as u16);
                for (loc, c) in &ask.locations {
                    self.str(loc).i32(*c);
                }
                if let Some(p) = &ask.placement {
                    self.u8(tag::ASK_PLACEMENT).u32(*app).i32(ask.key.priority).i64(ask.key.allocation_request_id);
                    self.str(&p.tags.join(",")).str(&p.text);
                }
                self
            }
            Event::NodeAttributesUpdated { node, labels, attributes } => {
                let attrs: Vec<String> = attributes.iter().map(|(a, b)| format!("{a}={b}")).collect();
                self.u8(tag::NODE_ATTRIBUTES_UPDATED).u32(*node).str(&labels.join(",")).str(&attrs.join(","))
            }
            Event::ContainerTags { container, tags } => self.u8(tag::CONTAINER_TAGS).i64(*container as i64).str(&tags.join(",")),
            Event::ContainerLaunched { container, at_ms } => {
                self.u8(tag::CONTAINER_LAUNCHED).i64(*container as i64).i64(*at_ms)
            }
            Event::ContainerFinished { container, exit_status, at_ms } => self
                .u8(tag::CONTAINER_FINISHED)
                .i64(*container as i64)
                .i32(*exit_status)
                .i64(*at_ms),
            Event::ContainerRecovered { container, app, node, key, resources, execution, start_ms } => self
                .u8(tag::CONTAINER_RECOVERED)
                .i64(*container as i64)
                .u32(*app)
                .u32(*node)
                .i32(key.priority)
                .i64(key.allocation_request_id)
                .res(resources, k)
                .u8(execution.code() as u8)
                .i64(*start_ms),
            Event::AllocationRejected { container } => self.u8(tag::ALLOCATION_REJECTED).i64(*container as i64),
            Event::NodeLoadEstimate { host, used, expires_ms } => {
                self.u8(tag::NODE_LOAD_ESTIMATE).str(host).res(used, k).i64(*expires_ms)
            }
            Event::HistorySample { app_id, user, name, size_ms } => {
                self.u8(tag::HISTORY_SAMPLE).str(app_id).str(user).str(name).i64(*size_ms)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_events() -> Vec<Event> {
        vec![
            Event::NodeAdded {
                node: 3,
                host: "nm1.example".into(),
                rack: "/r1".into(),
                capacity: Resources::new(8192, 8),
                labels: vec!["gpu".into()],
                attributes: vec![("os".into(), "linux".into())],
            },
            Event::AppAdded {
                app: 1,
                yarn_id: "application_1_0001".into(),
                queue: "root.default".into(),
                user: "alice".into(),
                name: "word count".into(),
                app_type: "MAPREDUCE".into(),
                tags: vec!["a".into(), "b".into()],
                submit_ms: 1234,
                priority: 2,
            },
            Event::AttemptAdded { app: 1, attempt: 1 },
            Event::AskUpdated {
                app: 1,
                ask: Ask {
                    key: SchedulerKey { priority: 20, allocation_request_id: -1 },
                    capability: Resources::new(1024, 1),
                    count: 5,
                    relax_locality: true,
                    execution: ExecutionType::Opportunistic,
                    locations: vec![("nm1.example".into(), 2), ("/r1".into(), 2)],
                    label: String::new(),
                    placement: None,
                },
            },
            Event::AskUpdated {
                app: 1,
                ask: Ask {
                    key: SchedulerKey { priority: 10, allocation_request_id: 4 },
                    capability: Resources::new(2048, 1),
                    count: 3,
                    relax_locality: true,
                    execution: ExecutionType::Guaranteed,
                    locations: vec![],
                    label: "gpu".into(),
                    placement: Some(std::sync::Arc::new(crate::constraint::Placement::from_text(
                        vec!["hbase".into(), "rs".into()],
                        "and(notin,node,hbase;attr,node,java,eq,11)",
                    ))),
                },
            },
            Event::NodeAttributesUpdated { node: 3, labels: vec![], attributes: vec![("java".into(), "11".into())] },
            Event::ContainerTags { container: 9, tags: vec!["hbase".into()] },
            Event::ContainerLaunched { container: 9, at_ms: 55 },
            Event::ContainerFinished { container: 9, exit_status: -100, at_ms: 60 },
            Event::ContainerRecovered {
                container: RECOVERED_KEY_BIT | 4,
                app: 1,
                node: 3,
                key: SchedulerKey { priority: 0, allocation_request_id: 0 },
                resources: Resources::new(2048, 1),
                execution: ExecutionType::Guaranteed,
                start_ms: 7,
            },
            Event::AllocationRejected { container: 11 },
            Event::NodeUtilization { node: 3, used: Resources::new(100, 2) },
            Event::NodeResourceUpdated { node: 3, capacity: Resources::new(4096, 4) },
            Event::AttemptRemoved { app: 1, attempt: 1 },
            Event::AppRemoved { app: 1 },
            Event::NodeRemoved { node: 3 },
            Event::NodeLoadEstimate { host: "nm-1".into(), used: Resources::new(2048, 1500), expires_ms: 90_000 },
            Event::HistorySample { app_id: "application_1_0002".into(), user: "alice".into(), name: "wc".into(), size_ms: 123_456 },
        ]
    }

    #[test]
    fn every_event_round_trips() {
        let events = sample_events();
        let mut w = EventWriter::default();
        for e in &events {
            w.event(e, 2);
        }
        let mut back = vec![];
        decode_events(&w.buf, &mut back).unwrap();
        assert_eq!(format!("{events:?}"), format!("{back:?}"));
    }

    #[test]
    fn truncated_and_unknown_records_are_errors() {
        let mut w = EventWriter::default();
        w.event(&Event::AppRemoved { app: 1 }, 2);
        let mut out = vec![];
        let err = decode_events(&w.buf[..3], &mut out).unwrap_err();
        assert_eq!(err.offset, 1);
        let err = decode_events(&[99], &mut out).unwrap_err();
        assert!(err.what.contains("unknown event tag 99"));
    }

    #[test]
    fn decisions_encode_with_resource_width() {
        let d = vec![
            Decision::Allocate {
                container: 5,
                app: 2,
                node: 7,
                key: SchedulerKey { priority: 20, allocation_request_id: 3 },
                resources: Resources::new(1024, 1),
                locality: crate::model::Locality::OffSwitch,
                execution: ExecutionType::Guaranteed,
            },
            Decision::Preempt { container: 8 },
        ];
        let mut out = vec![];
        encode_decisions(&d, 2, &mut out);
        assert_eq!(out, vec![2, 1, 5, 2, 7, 20, 3, 2, 0, 1024, 1, 2, 8]);
    }
}
