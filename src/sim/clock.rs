//! The trace-driven simulator's events and clock: what can happen
//! ([`SimEvent`]), the queue they wait in ([`Clock`], the simulators' one
//! [`EventQueue`](super::event_queue::EventQueue)) and the heartbeat grid.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SimEvent {
    /// Job (index into the sorted trace) is submitted.
    Arrival(u32),
    /// The RM asks for the job's ApplicationMaster container.
    AmAsk(u32),
    /// This container is RUNNING (an AM starts up; a task starts its work).
    Launch(u64),
    /// The job's AM has started and asks for its first tasks.
    AmReady(u32),
    /// The task in this container ends.
    TaskEnd(u64),
    /// The job's AM has finished its job and exits.
    AmExit(u32),
    /// A start-up on the shared host may be done (processor sharing,
    /// `crate::sim::host`); valid for this generation of the host only.
    HostWake(u64),
    /// This node heartbeats and reports its ended containers to the RM
    /// (`SimOptions::ends_at_heartbeat`).
    NodeReport(u32),
    /// This node heartbeats out of band: a container on it ended
    /// (`SimOptions::oob_heartbeats`).
    OutOfBandHeartbeat(u32),
    /// The job's AM simulator steps (`--cluster-model sls`,
    /// `crate::sim::sls`): processes its last response, asks, pulls.
    AmStep(u32),
}

/// The trace-driven simulator's event queue (times in ms).
pub type Clock = super::event_queue::EventQueue<SimEvent>;

/// The first heartbeat-grid time at or after `t`.
pub fn grid_ceil(t: i64, interval: i64) -> i64 {
    (t + interval - 1).div_euclid(interval) * interval
}

/// The first time at or after `t` when a node of heartbeat slot `slot`
/// heartbeats, heartbeats falling on a grid of `sub` ms whose sub-intervals
/// take turns among `slots` slots (the simulator's heartbeat rounds visit
/// slot `(time / sub) mod slots`).
pub fn next_heartbeat(t: i64, slot: u32, sub: i64, slots: i64) -> i64 {
    let offset = (slot as i64).rem_euclid(slots) * sub;
    grid_ceil(t - offset, sub * slots) + offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_then_insertion_order() {
        let mut c = Clock::default();
        c.push(5, SimEvent::TaskEnd(1));
        c.push(3, SimEvent::Arrival(9));
        c.push(5, SimEvent::Arrival(0));
        assert_eq!(c.pop(), Some((3, SimEvent::Arrival(9))));
        assert_eq!(c.pop(), Some((5, SimEvent::TaskEnd(1))));
        assert_eq!(c.pop(), Some((5, SimEvent::Arrival(0))));
        assert_eq!(grid_ceil(1001, 1000), 2000);
        assert_eq!(grid_ceil(1000, 1000), 1000);
    }

    #[test]
    fn a_nodes_next_heartbeat_is_in_its_slot() {
        // 3 s heartbeats in 10 slots of 300 ms: slot 4 beats at 1.2 s, 4.2 s, ...
        assert_eq!(next_heartbeat(0, 4, 300, 10), 1200);
        assert_eq!(next_heartbeat(1200, 4, 300, 10), 1200);
        assert_eq!(next_heartbeat(1201, 4, 300, 10), 4200);
        assert_eq!(next_heartbeat(5000, 0, 300, 10), 6000);
        // One common grid: every node beats on multiples of the interval.
        assert_eq!(next_heartbeat(17_000, 0, 3000, 1), 18_000);
        assert_eq!(next_heartbeat(17_000, 7, 3000, 1), 18_000);
        for t in [0, 1, 299, 300, 2999, 3000, 123_456] {
            for slot in 0..10 {
                let h = next_heartbeat(t, slot, 300, 10);
                assert!(h >= t && h - t < 3000, "{t} {slot} {h}");
                assert_eq!((h / 300).rem_euclid(10), slot as i64, "{t} {slot} {h}");
            }
        }
    }
}
