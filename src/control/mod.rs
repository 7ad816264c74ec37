//! The control channel between the engine (inside the ResourceManager's JVM)
//! and the sidecar (`shepherd sidecar`).
//!
//! ```text
//!   sidecar ── TCP, loopback, one JSON line per request ──► listener thread (in libshepherd.so)
//!              {"secret":…, "op":"state"|"gauges"|"push"|"hello"}       │ reads the engine under its lock
//!                                                                       │ queues pushed inputs in the Inbox
//!   ShepherdScheduler ──JNI step──► drain Inbox into the engine as events, then the heartbeat batch
//! ```
//!
//! The engine stays authoritative: the listener thread only reads the engine
//! and queues inputs; the JNI `step` path applies them as
//! [`crate::Event`]s at the start of the next crossing, so every decision is
//! still a function of the event sequence. Inputs carry a time-to-live;
//! stale and invalid ones are dropped and counted, and without the sidecar
//! the engine runs on its defaults.
//!
//! * [`protocol`] — request and response shapes, the pushed inputs.
//! * [`inputs`]   — validating pushed inputs into events (the engine applies them).
//! * [`inbox`]    — inputs waiting for the next crossing, with their counters.
//! * [`timing`]   — the engine's decision-time histogram (measured around `step`).
//! * [`secret`]   — the shared secret: read from a file, compared in constant time.
//! * [`shared`]   — what the JNI handle and the listener thread share.
//! * [`listener`] — the loopback listener thread(s), one per address, shared
//!   by the engines of one JVM (a rebuilt engine takes over the port).
//! * [`handler`]  — what each request does.
//! * [`client`]   — the blocking client the sidecar and the tests use.

pub mod client;
pub mod handler;
pub mod inbox;
pub mod inputs;
pub mod listener;
pub mod protocol;
pub mod secret;
pub mod shared;
pub mod timing;

pub use shared::{EngineDriver, EngineShared};
