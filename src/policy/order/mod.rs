//! Plugins of the order points: how queues share the cluster (`queue`) and
//! which application of a queue is served next (the rest).

pub mod drf;
pub mod fifo;
pub mod las;
pub mod queue;
pub mod size;
pub mod tetris;
