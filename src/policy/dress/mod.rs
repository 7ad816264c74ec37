//! DRESS building blocks (policy follows).
pub mod classify;
pub mod release;
pub mod reserve;
