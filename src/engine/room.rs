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

/// Does some node the ask may go on have the free room for it now? ROSE
/// places an ask speculatively only when none has (§III-A, steps 2–3:
/// "once the resources in the cluster have been allocated, no further
/// regular resources are assigned", and only then does a job ask the
/// NodeManagers for speculative room); an ask some node has room for gets
/// a guaranteed container at that node's heartbeat instead of one that
/// may be evicted.
pub(super) fn fits_somewhere(s: &ClusterState, ask: &Ask) -> bool {
    s.nodes.values().any(|n| may_go_on(ask, n) && ask.capability.fits_in(&n.free()))
}
