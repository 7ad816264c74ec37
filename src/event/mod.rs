//! The vocabulary between drivers and the engine: events in, decisions out.
//!
//! It sits below both the engine and the policies (plugins observe events;
//! the engine applies them), so neither imports the other for it.

mod decisions_out;
mod events_in;

pub use decisions_out::Decision;
pub use events_in::Event;
