//! An engine plus the buffers one JNI crossing reuses: decode the batch,
//! apply it, optionally schedule one node, encode the decisions.

use super::wire::{self, WireError};
use crate::config::{Config, ConfigError};
use crate::engine::{Decision, Engine, EngineError, Event};

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error(transparent)]
    Engine(#[from] EngineError),
}

pub struct Session {
    /// Read through [`Session::engine`]; fed directly (events the sidecar
    /// pushed, tests) through [`Session::engine_mut`].
    engine: Engine,
    resource_types: usize,
    events: Vec<Event>,
    decisions: Vec<Decision>,
    encoded: Vec<i64>,
}

/// The control channel reads the engine through the session that drives it.
impl crate::control::EngineDriver for Session {
    fn engine(&self) -> &Engine {
        &self.engine
    }
}

impl Session {
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }

    pub fn new(config_text: &str, resource_names: Vec<String>) -> Result<Session, ConfigError> {
        Session::with_config(Config::parse(config_text)?, resource_names)
    }

    /// A session on an already parsed config.
    pub fn with_config(config: Config, resource_names: Vec<String>) -> Result<Session, ConfigError> {
        let resource_types = resource_names.len().max(2);
        let engine = Engine::new(config, resource_names)?;
        Ok(Session {
            engine,
            resource_types,
            events: Vec::with_capacity(64),
            decisions: Vec::with_capacity(64),
            encoded: Vec::with_capacity(256),
        })
    }

    /// `-refreshQueues`: apply new config text to the live engine in place
    /// (see `Engine::reconfigure`). On error nothing changes.
    pub fn reconfigure(&mut self, config_text: &str) -> Result<(), ConfigError> {
        self.engine.reconfigure(Config::parse(config_text)?)
    }

    /// One crossing: apply `batch`, then (if `node` is `Some`) run a
    /// scheduling pass for that node. Returns the encoded decisions.
    ///
    /// A malformed batch is rejected whole before anything is applied, so
    /// the engine never sees half a batch.
    pub fn step(&mut self, batch: &[u8], now_ms: i64, node: Option<u32>) -> Result<&[i64], SessionError> {
        self.absorb(batch, now_ms)?;
        if let Some(n) = node {
            self.engine.schedule_node(n, now_ms, &mut self.decisions)?;
        }
        Ok(self.encode())
    }

    /// One crossing of asynchronous scheduling: apply `batch`, then run a
    /// scheduling round between heartbeats (`Engine::schedule_round`, at
    /// most `max_nodes` nodes, 0 = all). Returns the encoded decisions.
    pub fn round(&mut self, batch: &[u8], now_ms: i64, max_nodes: usize) -> Result<&[i64], SessionError> {
        self.absorb(batch, now_ms)?;
        self.engine.schedule_round(now_ms, max_nodes, &mut self.decisions)?;
        Ok(self.encode())
    }

    /// Decode and apply a batch (whole, or not at all), clear the decisions.
    fn absorb(&mut self, batch: &[u8], now_ms: i64) -> Result<(), SessionError> {
        self.events.clear();
        wire::decode_events(batch, &mut self.events)?;
        self.engine.advance_clock(now_ms);
        for e in self.events.drain(..) {
            self.engine.apply(e);
        }
        self.decisions.clear();
        Ok(())
    }

    fn encode(&mut self) -> &[i64] {
        wire::encode_decisions(&self.decisions, self.resource_types, &mut self.encoded);
        &self.encoded
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::wire::EventWriter;
    use crate::model::{Ask, Resources, SchedulerKey};

    #[test]
    fn one_batch_adds_cluster_and_schedules() {
        let mut s = Session::new("[scheduler]\npolicy = \"fifo\"\n", vec!["memory-mb".into(), "vcores".into()]).unwrap();
        let mut w = EventWriter::default();
        w.event(
            &Event::NodeAdded {
                node: 0,
                host: "h".into(),
                rack: "/r".into(),
                capacity: Resources::new(4096, 4),
                labels: vec![],
                attributes: vec![],
            },
            2,
        );
        w.event(
            &Event::AppAdded {
                app: 0,
                yarn_id: "application_0_0".into(),
                queue: "default".into(),
                user: "u".into(),
                name: "n".into(),
                app_type: "MAPREDUCE".into(),
                tags: vec![],
                submit_ms: 0,
                priority: 0,
            },
            2,
        );
        w.event(&Event::AttemptAdded { app: 0, attempt: 1 }, 2);
        w.event(
            &Event::AskUpdated {
                app: 0,
                ask: Ask::anywhere(SchedulerKey { priority: 0, allocation_request_id: 0 }, Resources::new(1024, 1), 1),
            },
            2,
        );
        let out = s.step(&w.buf, 10, Some(0)).unwrap();
        assert_eq!(out, &[1, 1, 1, 0, 0, 0, 0, 2, 0, 1024, 1]);
    }

    #[test]
    fn malformed_batch_applies_nothing() {
        let mut s = Session::new("", vec![]).unwrap();
        let mut w = EventWriter::default();
        w.event(&Event::NodeRemoved { node: 1 }, 2);
        w.buf.push(200);
        assert!(s.step(&w.buf, 0, None).is_err());
        assert_eq!(s.engine.counters().events, 0);
    }
}
