//! The order every order point returns: smaller is served first.

use std::cmp::Ordering;

/// A sort key: smaller is served first. Two floats and an integer tie-break
/// cover every policy so far (share, secondary share, arrival order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SortKey {
    /// Compared first: the pool an app's pool order ranks it in (0 without
    /// pool orders), so each pool's apps are ordered by their own plugin.
    pub group: u32,
    pub primary: f64,
    pub secondary: f64,
    pub tie_break: i64,
}

impl SortKey {
    pub fn new(primary: f64, secondary: f64, tie_break: i64) -> Self {
        SortKey { group: 0, primary, secondary, tie_break }
    }
}

impl Eq for SortKey {}

impl PartialOrd for SortKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SortKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.group
            .cmp(&other.group)
            .then(self.primary.total_cmp(&other.primary))
            .then(self.secondary.total_cmp(&other.secondary))
            .then(self.tie_break.cmp(&other.tie_break))
    }
}
