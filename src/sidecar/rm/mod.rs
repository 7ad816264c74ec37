//! The ResourceManager side: REST client (HA, TLS, auth), response models
//! and the polling loop.

pub mod client;
pub mod model;
pub mod poller;
