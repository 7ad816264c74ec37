//! Outstanding container requests of an application, per scheduler key.

use super::resource::Resources;
use serde::Serialize;

/// The priority YARN's RM asks an ApplicationMaster container at
/// (`RMAppAttemptImpl.AM_CONTAINER_PRIORITY`); tasks ask at others
/// (MapReduce: maps 20, reduces 10).
pub const AM_PRIORITY: i32 = 0;

/// YARN `SchedulerRequestKey`: the AM's priority (lower value = more urgent)
/// and the allocation request id. Ordering puts the most urgent key first,
/// as YARN's schedulers iterate them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SchedulerKey {
    pub priority: i32,
    pub allocation_request_id: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ExecutionType {
    Guaranteed,
    Opportunistic,
}

impl ExecutionType {
    pub fn from_code(code: u8) -> Self {
        if code == 1 {
            ExecutionType::Opportunistic
        } else {
            ExecutionType::Guaranteed
        }
    }
    pub fn code(self) -> i64 {
        match self {
            ExecutionType::Guaranteed => 0,
            ExecutionType::Opportunistic => 1,
        }
    }
}

/// How well a placement matches an ask's locality (YARN `NodeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Locality {
    NodeLocal,
    RackLocal,
    OffSwitch,
}

impl Locality {
    pub fn code(self) -> i64 {
        match self {
            Locality::NodeLocal => 0,
            Locality::RackLocal => 1,
            Locality::OffSwitch => 2,
        }
    }
}

/// One scheduler key's outstanding ask (YARN `ResourceRequest`s for that key,
/// folded: `count` is the ANY count, `locations` the host/rack counts).
#[derive(Debug, Clone, Serialize)]
pub struct Ask {
    pub key: SchedulerKey,
    pub capability: Resources,
    pub count: i32,
    pub relax_locality: bool,
    pub execution: ExecutionType,
    /// (host or rack name, outstanding count) for the named locations.
    pub locations: Vec<(String, i32)>,
    /// Node label expression; empty means the default partition.
    pub label: String,
    /// From a YARN `SchedulingRequest`: the allocation tags its containers
    /// carry and the placement constraint they must satisfy (`None` for
    /// plain `ResourceRequest`s). Shared, so the `constraints` filter can
    /// tell an unchanged ask from a re-sent one by pointer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<std::sync::Arc<crate::model::constraint::Placement>>,
}

impl Ask {
    /// A plain ask: `count` containers of `capability` anywhere (relaxed
    /// locality, no named location), GUARANTEED, in the default partition,
    /// without a placement constraint — what the simulator, the benches and
    /// most tests ask for. Other asks set the fields that differ over it.
    pub fn anywhere(key: SchedulerKey, capability: Resources, count: i32) -> Ask {
        Ask {
            key,
            capability,
            count,
            relax_locality: true,
            execution: ExecutionType::Guaranteed,
            locations: Vec::new(),
            label: String::new(),
            placement: None,
        }
    }

    fn location_count(&self, name: &str) -> i32 {
        self.locations.iter().find(|(n, _)| n == name).map(|(_, c)| *c).unwrap_or(0)
    }

    /// The best locality this ask can get on a node, or `None` when the ask
    /// forbids the node (relax-locality off and neither host nor rack named).
    pub fn locality_on(&self, host: &str, rack: &str) -> Option<Locality> {
        if self.location_count(host) > 0 {
            Some(Locality::NodeLocal)
        } else if self.location_count(rack) > 0 {
            Some(Locality::RackLocal)
        } else if self.relax_locality || self.locations.is_empty() {
            Some(Locality::OffSwitch)
        } else {
            None
        }
    }

    /// Mirror of YARN's `AppSchedulingInfo.allocate`: one container fewer
    /// outstanding, at the placed host and rack too.
    pub fn consume_one(&mut self, host: &str, rack: &str, locality: Locality) {
        self.count -= 1;
        for (name, c) in self.locations.iter_mut() {
            let hit = match locality {
                Locality::NodeLocal => name == host || name == rack,
                Locality::RackLocal => name == rack,
                Locality::OffSwitch => false,
            };
            if hit && *c > 0 {
                *c -= 1;
            }
        }
    }
}
