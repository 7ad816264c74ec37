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
//! | 17  | AskPlacement        | u32 app, i32 priority, i64 allocation_request_id, str allocation tags (comma-separated), str constraint (`crate::model::constraint::text`); completes the AskUpdated record just before it (same app and key), which then came from a `SchedulingRequest` |
//! | 18  | ContainerTags       | u64 container, str allocation tags (comma-separated) |
//! | 19  | AppMoved            | u32 app, str queue (the leaf it moved to) |
//! | 20  | AppPriorityChanged  | u32 app, i32 priority (the new YARN application priority) |
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
    // Placement constraints (crate::model::constraint).
    pub const NODE_ATTRIBUTES_UPDATED: u8 = 16;
    pub const ASK_PLACEMENT: u8 = 17;
    pub const CONTAINER_TAGS: u8 = 18;
    pub const APP_MOVED: u8 = 19;
    pub const APP_PRIORITY_CHANGED: u8 = 20;
}

pub const DECISION_ALLOCATE: i64 = 1;
pub const DECISION_PREEMPT: i64 = 2;
pub const DECISION_MARK_FOR_PREEMPTION: i64 = 3;

/// A batch the decoder refused. It names where (`offset`, the byte the bad
/// field starts at), which record kind and which field, so a shim/engine
/// version mismatch or a corrupted batch is diagnosable from the RM log line.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("malformed event batch at byte {offset}: {record} record at byte {record_offset}, field `{field}`: {what}")]
pub struct WireError {
    pub offset: usize,
    /// The record kind (`AskUpdated`, ...), or `unknown` for a bad tag.
    pub record: &'static str,
    /// Where the record (its tag byte) starts.
    pub record_offset: usize,
    /// The field being read (`tag` for an unknown record kind).
    pub field: &'static str,
    pub what: String,
}

/// The record kind of a tag, as named in errors.
pub fn record_name(t: u8) -> Option<&'static str> {
    Some(match t {
        tag::NODE_ADDED => "NodeAdded",
        tag::NODE_REMOVED => "NodeRemoved",
        tag::NODE_RESOURCE_UPDATED => "NodeResourceUpdated",
        tag::NODE_UTILIZATION => "NodeUtilization",
        tag::APP_ADDED => "AppAdded",
        tag::APP_REMOVED => "AppRemoved",
        tag::ATTEMPT_ADDED => "AttemptAdded",
        tag::ATTEMPT_REMOVED => "AttemptRemoved",
        tag::ASK_UPDATED => "AskUpdated",
        tag::CONTAINER_LAUNCHED => "ContainerLaunched",
        tag::CONTAINER_FINISHED => "ContainerFinished",
        tag::CONTAINER_RECOVERED => "ContainerRecovered",
        tag::ALLOCATION_REJECTED => "AllocationRejected",
        tag::NODE_LOAD_ESTIMATE => "NodeLoadEstimate",
        tag::HISTORY_SAMPLE => "HistorySample",
        tag::NODE_ATTRIBUTES_UPDATED => "NodeAttributesUpdated",
        tag::ASK_PLACEMENT => "AskPlacement",
        tag::CONTAINER_TAGS => "ContainerTags",
        tag::APP_MOVED => "AppMoved",
        tag::APP_PRIORITY_CHANGED => "AppPriorityChanged",
        _ => return None,
    })
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// The record being decoded and where it started, for errors.
    record: &'static str,
    record_at: usize,
}

impl<'a> Reader<'a> {
    fn fail(&self, offset: usize, field: &'static str, what: String) -> WireError {
        WireError { offset, record: self.record, record_offset: self.record_at, field, what }
    }
    fn take(&mut self, n: usize, field: &'static str, ty: &str) -> Result<&'a [u8], WireError> {
        let left = self.buf.len() - self.pos;
        if n > left {
            return Err(self.fail(self.pos, field, format!("truncated {ty}: needs {n} bytes, {left} left")));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self, field: &'static str) -> Result<u8, WireError> {
        Ok(self.take(1, field, "u8")?[0])
    }
    /// A u8 that must be 0 or 1 (booleans, the execution type): anything
    /// else means the batch is not the format this engine reads.
    fn flag(&mut self, field: &'static str) -> Result<u8, WireError> {
        let at = self.pos;
        match self.u8(field)? {
            v @ (0 | 1) => Ok(v),
            v => Err(self.fail(at, field, format!("value {v} is not 0 or 1"))),
        }
    }
    fn u16(&mut self, field: &'static str) -> Result<u16, WireError> {
        Ok(u16::from_le_bytes(self.take(2, field, "u16")?.try_into().unwrap()))
    }
    fn u32(&mut self, field: &'static str) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.take(4, field, "u32")?.try_into().unwrap()))
    }
    fn i32(&mut self, field: &'static str) -> Result<i32, WireError> {
        Ok(i32::from_le_bytes(self.take(4, field, "i32")?.try_into().unwrap()))
    }
    fn i64(&mut self, field: &'static str) -> Result<i64, WireError> {
        Ok(i64::from_le_bytes(self.take(8, field, "i64")?.try_into().unwrap()))
    }
    fn u64(&mut self, field: &'static str) -> Result<u64, WireError> {
        Ok(self.i64(field)? as u64)
    }
    fn str(&mut self, field: &'static str) -> Result<String, WireError> {
        let n = self.u16(field)? as usize;
        let at = self.pos;
        let bytes = self.take(n, field, "string")?;
        String::from_utf8(bytes.to_vec()).map_err(|e| self.fail(at, field, format!("string is not UTF-8 ({e})")))
    }
    fn list(&mut self, field: &'static str) -> Result<Vec<String>, WireError> {
        let s = self.str(field)?;
        Ok(s.split(',').filter(|p| !p.is_empty()).map(str::to_string).collect())
    }
    fn res(&mut self, field: &'static str) -> Result<Resources, WireError> {
        let at = self.pos;
        let k = self.u8(field)? as usize;
        if k > crate::model::resource::MAX_RESOURCE_TYPES {
            let max = crate::model::resource::MAX_RESOURCE_TYPES;
            return Err(self.fail(at, field, format!("{k} resource types (at most {max})")));
        }
        let mut v = [0i64; crate::model::resource::MAX_RESOURCE_TYPES];
        for slot in v.iter_mut().take(k) {
            *slot = self.i64(field)?;
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
    let mut r = Reader { buf, pos: 0, record: "unknown", record_at: 0 };
    while r.pos < buf.len() {
        let at = r.pos;
        let t = buf[at];
        r.pos += 1;
        r.record_at = at;
        r.record = match record_name(t) {
            Some(name) => name,
            None => {
                r.record = "unknown";
                return Err(r.fail(at, "tag", format!("unknown event tag {t}")));
            }
        };
        let ev = match t {
            tag::NODE_ADDED => Event::NodeAdded {
                node: r.u32("node")?,
                host: r.str("host")?,
                rack: r.str("rack")?,
                capacity: r.res("capability")?,
                labels: r.list("labels")?,
                attributes: pairs(r.list("attributes")?),
            },
            tag::NODE_REMOVED => Event::NodeRemoved { node: r.u32("node")? },
            tag::NODE_RESOURCE_UPDATED => Event::NodeResourceUpdated { node: r.u32("node")?, capacity: r.res("capability")? },
            tag::NODE_UTILIZATION => Event::NodeUtilization { node: r.u32("node")?, used: r.res("used")? },
            tag::APP_ADDED => {
                let (app, queue, user) = (r.u32("app")?, r.str("queue")?, r.str("user")?);
                let (name, app_type, tags) = (r.str("name")?, r.str("type")?, r.list("tags")?);
                let (submit_ms, priority, yarn_id) = (r.i64("submit_ms")?, r.i32("priority")?, r.str("yarn_id")?);
                Event::AppAdded { app, yarn_id, queue, user, name, app_type, tags, submit_ms, priority }
            }
            tag::APP_REMOVED => Event::AppRemoved { app: r.u32("app")? },
            tag::APP_MOVED => Event::AppMoved { app: r.u32("app")?, queue: r.str("queue")? },
            tag::APP_PRIORITY_CHANGED => Event::AppPriorityChanged { app: r.u32("app")?, priority: r.i32("priority")? },
            tag::ATTEMPT_ADDED => Event::AttemptAdded { app: r.u32("app")?, attempt: r.u32("attempt")? },
            tag::ATTEMPT_REMOVED => Event::AttemptRemoved { app: r.u32("app")?, attempt: r.u32("attempt")? },
            tag::ASK_UPDATED => {
                let app = r.u32("app")?;
                let key = SchedulerKey { priority: r.i32("priority")?, allocation_request_id: r.i64("allocation_request_id")? };
                let capability = r.res("capability")?;
                let count = r.i32("count")?;
                let relax_locality = r.flag("relax_locality")? != 0;
                let execution = ExecutionType::from_code(r.flag("execution")?);
                let label = r.str("label")?;
                let n = r.u16("locations")? as usize;
                let mut locations = Vec::with_capacity(n.min(r.buf.len() - r.pos));
                for _ in 0..n {
                    locations.push((r.str("location")?, r.i32("location_count")?));
                }
                Event::AskUpdated { app, ask: Ask { key, capability, count, relax_locality, execution, locations, label, placement: None } }
            }
            tag::CONTAINER_LAUNCHED => Event::ContainerLaunched { container: r.u64("container")?, at_ms: r.i64("at_ms")? },
            tag::CONTAINER_FINISHED => {
                Event::ContainerFinished { container: r.u64("container")?, exit_status: r.i32("exit_status")?, at_ms: r.i64("at_ms")? }
            }
            tag::CONTAINER_RECOVERED => Event::ContainerRecovered {
                container: r.u64("container")?,
                app: r.u32("app")?,
                node: r.u32("node")?,
                key: SchedulerKey { priority: r.i32("priority")?, allocation_request_id: r.i64("allocation_request_id")? },
                resources: r.res("resources")?,
                execution: ExecutionType::from_code(r.flag("execution")?),
                start_ms: r.i64("start_ms")?,
            },
            tag::ALLOCATION_REJECTED => Event::AllocationRejected { container: r.u64("container")? },
            tag::NODE_LOAD_ESTIMATE => {
                Event::NodeLoadEstimate { host: r.str("host")?, used: r.res("used")?, expires_ms: r.i64("expires_ms")? }
            }
            tag::HISTORY_SAMPLE => {
                Event::HistorySample { app_id: r.str("app_id")?, user: r.str("user")?, name: r.str("name")?, size_ms: r.i64("size_ms")? }
            }
            tag::NODE_ATTRIBUTES_UPDATED => {
                Event::NodeAttributesUpdated { node: r.u32("node")?, labels: r.list("labels")?, attributes: pairs(r.list("attributes")?) }
            }
            tag::ASK_PLACEMENT => {
                let app = r.u32("app")?;
                let key = SchedulerKey { priority: r.i32("priority")?, allocation_request_id: r.i64("allocation_request_id")? };
                let (tags, text) = (r.list("tags")?, r.str("constraint")?);
                match out.last_mut() {
                    Some(Event::AskUpdated { app: a, ask }) if *a == app && ask.key == key => {
                        ask.placement = Some(std::sync::Arc::new(crate::model::constraint::Placement::from_text(tags, &text)));
                        continue;
                    }
                    _ => return Err(r.fail(at, "app", format!("AskPlacement for app {app} key {key:?} does not follow its AskUpdated"))),
                }
            }
            tag::CONTAINER_TAGS => Event::ContainerTags { container: r.u64("container")?, tags: r.list("tags")? },
            _ => unreachable!("record_name knows every tag matched here"),
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
            Decision::MarkForPreemption { container } => {
                out.extend_from_slice(&[DECISION_MARK_FOR_PREEMPTION, *container as i64]);
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
            Event::NodeResourceUpdated { node, capacity } => self.u8(tag::NODE_RESOURCE_UPDATED).u32(*node).res(capacity, k),
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
            Event::AppMoved { app, queue } => self.u8(tag::APP_MOVED).u32(*app).str(queue),
            Event::AppPriorityChanged { app, priority } => self.u8(tag::APP_PRIORITY_CHANGED).u32(*app).i32(*priority),
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
            Event::ContainerLaunched { container, at_ms } => self.u8(tag::CONTAINER_LAUNCHED).i64(*container as i64).i64(*at_ms),
            Event::ContainerFinished { container, exit_status, at_ms } => {
                self.u8(tag::CONTAINER_FINISHED).i64(*container as i64).i32(*exit_status).i64(*at_ms)
            }
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
            Event::NodeLoadEstimate { host, used, expires_ms } => self.u8(tag::NODE_LOAD_ESTIMATE).str(host).res(used, k).i64(*expires_ms),
            Event::HistorySample { app_id, user, name, size_ms } => {
                self.u8(tag::HISTORY_SAMPLE).str(app_id).str(user).str(name).i64(*size_ms)
            }
            Event::NodeAttributesUpdated { node, labels, attributes } => {
                let attrs: Vec<String> = attributes.iter().map(|(a, b)| format!("{a}={b}")).collect();
                self.u8(tag::NODE_ATTRIBUTES_UPDATED).u32(*node).str(&labels.join(",")).str(&attrs.join(","))
            }
            Event::ContainerTags { container, tags } => self.u8(tag::CONTAINER_TAGS).i64(*container as i64).str(&tags.join(",")),
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
            Event::AppMoved { app: 1, queue: "beta".into() },
            Event::AppPriorityChanged { app: 1, priority: -3 },
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
                    placement: Some(std::sync::Arc::new(crate::model::constraint::Placement::from_text(
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
        assert_eq!((err.record, err.field), ("AppRemoved", "app"));
        assert!(err.to_string().contains("AppRemoved record at byte 0, field `app`: truncated u32"), "{err}");
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
            Decision::MarkForPreemption { container: 9 },
        ];
        let mut out = vec![];
        encode_decisions(&d, 2, &mut out);
        assert_eq!(out, vec![3, 1, 5, 2, 7, 20, 3, 2, 0, 1024, 1, 2, 8, 3, 9]);
    }
}
