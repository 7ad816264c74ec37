//! Blocking client of the control channel (the sidecar runs it on a blocking
//! thread; tests call it directly). One connection per request keeps it
//! simple and makes an engine restart invisible to the caller.

use super::protocol::Request;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("control channel at {0} unreachable: {1}")]
    Unreachable(String, std::io::Error),
    #[error("control channel I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("control channel answered something that is not JSON: {0}")]
    Malformed(String),
    #[error("engine refused the request: {0}")]
    Refused(String),
}

#[derive(Clone, Debug)]
pub struct ControlClient {
    pub address: String,
    secret: String,
    pub timeout: Duration,
}

impl ControlClient {
    pub fn new(address: impl Into<String>, secret: impl Into<String>, timeout: Duration) -> ControlClient {
        ControlClient { address: address.into(), secret: secret.into(), timeout }
    }

    fn resolve(&self) -> Result<SocketAddr, ClientError> {
        let unreachable = |e| ClientError::Unreachable(self.address.clone(), e);
        self.address.to_socket_addrs().map_err(unreachable)?.next().ok_or_else(|| unreachable(std::io::Error::other("no address")))
    }

    /// Send one request; `Ok` holds the answer when it says `"ok": true`.
    pub fn call(&self, op: &str, inputs: Vec<Value>) -> Result<Value, ClientError> {
        let addr = self.resolve()?;
        let stream = TcpStream::connect_timeout(&addr, self.timeout).map_err(|e| ClientError::Unreachable(self.address.clone(), e))?;
        stream.set_read_timeout(Some(self.timeout))?;
        stream.set_write_timeout(Some(self.timeout))?;
        let req = Request { secret: self.secret.clone(), op: op.into(), inputs };
        let mut line = serde_json::to_vec(&req).map_err(|e| ClientError::Malformed(e.to_string()))?;
        line.push(b'\n');
        (&stream).write_all(&line)?;
        let mut reader = BufReader::new(&stream);
        let mut answer = String::new();
        reader.read_line(&mut answer)?;
        let v: Value = serde_json::from_str(&answer).map_err(|e| ClientError::Malformed(format!("{e}: {:.200}", answer)))?;
        if v.get("ok").and_then(Value::as_bool) == Some(true) {
            Ok(v)
        } else {
            Err(ClientError::Refused(v.get("error").and_then(Value::as_str).unwrap_or("no reason given").to_string()))
        }
    }
}
