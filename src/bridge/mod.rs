//! The JNI bridge between the Java shim (`org.shepherd.yarn.engine.NativeEngine`)
//! and the engine.
//!
//! * [`wire`] — the compact binary batch format events arrive in and the
//!   `long[]` format decisions leave in (mirrored by the Java `EventBatch` /
//!   `DecisionReader` classes).
//! * [`session`] — an engine plus reusable buffers: decode a batch, apply
//!   it, schedule a node, encode the decisions. No JNI types, so the
//!   benchmark and tests drive exactly what JNI drives.
//! * [`guard`] — the one helper every JNI entry goes through: it catches
//!   panics and errors and throws a Java exception instead.
//! * [`jni_entry`] — the `extern "system"` functions themselves.

pub mod guard;
pub mod jni_entry;
pub mod session;
pub mod wire;
