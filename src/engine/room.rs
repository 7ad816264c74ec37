//! Where an ask may go in the allocated view: the node-side checks the
//! pass and its over-subscription phase share.

use crate::model::{Ask, ClusterState, Node};

/// YARN partitions: an ask without a label expression goes to unlabelled
/// nodes only; a labelled ask goes to nodes carrying that label.
pub(super) fn label_matches(label: &str, n: &Node) -> bool {
    if label.is_empty() {
        n.labels.is_empty()
    } else {
        n.labels.contains(label)
    }
}

/// Could `ask` go on `n` by its locality and label?
pub(super) fn may_go_on(ask: &Ask, n: &Node) -> bool {
    ask.locality_on(&n.host, &n.rack).is_some() && label_matches(&ask.label, n)
}

/// Could the allocated view serve what is asked, as far as `ask`'s size
/// goes: is there free room, on the nodes it may go on, for at least
/// `outstanding` containers of its size (every container still asked for,
/// over all apps)? ROSE places an ask speculatively only when not (§III-A,
/// steps 2–3: "once the resources in the cluster have been allocated, no
/// further regular resources are assigned", and only then does a job ask
/// the NodeManagers for speculative room): a lone task that another node
/// has room for gets a guaranteed container at that node's heartbeat, not
/// one that may be evicted; a backlog larger than the free room left in
/// pieces across the nodes is the "allocated" cluster ROSE over-subscribes.
pub(super) fn serves(s: &ClusterState, ask: &Ask, outstanding: i64) -> bool {
    let mut slots = 0i64;
    for n in s.nodes.values().filter(|n| may_go_on(ask, n)) {
        slots = slots.saturating_add(n.free().count_fitting(&ask.capability));
        if slots >= outstanding {
            return true;
        }
    }
    false
}
