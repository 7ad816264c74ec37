//! Plugin names (as `crate::config::pipeline` lists them) to implementations.
//! Each builder returns the plugin and its *identity*: the name plus the
//! configuration it was built from. On `-refreshQueues` a plugin whose
//! identity is unchanged is kept with all it has learned; any other is
//! built fresh.

use super::carbyne::leftover::CarbyneLeftover;
use super::carbyne::Carbyne;
use super::dress::Dress;
use super::estimate::history::{History, Mode};
use super::estimate::oracle::OracleTag;
use super::estimate::tasks::TaskRuntimes;
use super::estimate::NoEstimate;
use super::order::drf::Drf;
use super::order::fifo::Fifo;
use super::order::las::Las;
use super::order::queue::{CapacityQueues, DrfQueues};
use super::order::size::{By, SizeOrder};
use super::order::tetris::Tetris;
use super::points::{AppOrder, AskClassifier, Capabilities, Estimator, Filter, Leftover, Oversubscribe, Plugin, QueueOrder, Reserve};
use super::rose::Rose;
use super::slearn::estimator::SLearn;
use super::slearn::gate::{ArrivalOrder, PilotGate};
use super::slearn::gs::Gs;
use crate::config::{Config, DressConfig, RoseConfig, SLearnConfig};

/// A plugin, the identity it was built with and its capabilities (read
/// once, when it is built: `Plugin::capabilities`).
pub struct Slot<T: ?Sized> {
    pub identity: String,
    pub caps: Capabilities,
    pub plugin: Box<T>,
}

pub(super) fn slot<T: ?Sized + Plugin>(identity: String, plugin: Box<T>) -> Slot<T> {
    Slot { identity, caps: plugin.capabilities(), plugin }
}

/// Names the config accepts but this build cannot make are a bug the
/// `every_listed_name_builds` test catches; at runtime they are `None`.
/// `slearn`: the pipeline's `[slearn]` settings (the global section with
/// the pipeline's overrides), already validated by the config.
pub fn estimator(name: &str, c: &Config, slearn: &SLearnConfig) -> Option<Slot<dyn Estimator>> {
    Some(match name {
        "none" => slot("none".into(), Box::new(NoEstimate)),
        "history" => slot(format!("history|{:?}", c.history), Box::new(History::new(&c.history, Mode::Distribution))),
        "history-point" => slot(format!("history-point|{:?}", c.history), Box::new(History::new(&c.history, Mode::Point))),
        "oracle" => slot("oracle".into(), Box::new(OracleTag)),
        "tasks" => slot("tasks".into(), Box::new(TaskRuntimes::default())),
        "slearn" => slot(format!("slearn|{slearn:?}"), Box::new(SLearn::new(slearn))),
        _ => return None,
    })
}

/// `dress`: the pipeline's `[dress]` settings (the global section with the
/// pipeline's overrides), already validated by the config.
pub fn reserve(name: &str, dress: &DressConfig) -> Option<Option<Slot<dyn Reserve>>> {
    Some(match name {
        "none" => None,
        "dress" => Some(slot(format!("dress|{dress:?}"), Box::new(Dress::new(dress)))),
        _ => return None,
    })
}

pub fn queue_order(name: &str) -> Option<Option<Slot<dyn QueueOrder>>> {
    Some(match name {
        "flat" => None,
        "drf" => Some(slot("drf".into(), Box::new(DrfQueues))),
        "capacity" => Some(slot("capacity".into(), Box::new(CapacityQueues))),
        _ => return None,
    })
}

pub fn app_order(name: &str, c: &Config) -> Option<Slot<dyn AppOrder>> {
    if name == "gs" {
        return Some(slot(format!("gs|{:?}", c.gs), Box::new(Gs::new(&c.gs))));
    }
    let plugin: Box<dyn AppOrder> = match name {
        "fifo" => Box::new(Fifo),
        "drf" => Box::new(Drf),
        "sjf" => Box::new(SizeOrder(By::Size)),
        "srtf" => Box::new(SizeOrder(By::Remaining)),
        "las" => Box::new(Las),
        "tetris" => Box::new(Tetris::default()),
        _ => return None,
    };
    Some(slot(name.into(), plugin))
}

/// `c.carbyne` is the pipeline's `[carbyne]` (global keys with its own
/// `carbyne = { ... }` over them), as for the leftover plugins below.
pub fn classifier(name: &str, c: &Config) -> Option<Slot<dyn AskClassifier>> {
    match name {
        "carbyne" => {
            Some(slot(format!("carbyne|{:?}|{}", c.carbyne, c.queue_order()), Box::new(Carbyne::new(&c.carbyne, c.queue_order()))))
        }
        "pilots" => Some(slot("pilots".into(), Box::new(PilotGate))),
        _ => None,
    }
}

pub fn filter(name: &str, _c: &Config) -> Option<Slot<dyn Filter>> {
    match name {
        "constraints" => Some(slot("constraints".into(), Box::new(super::constraints::Constraints::default()))),
        _ => None,
    }
}

pub fn leftover(name: &str, c: &Config) -> Option<Option<Slot<dyn Leftover>>> {
    match name {
        "none" => Some(None),
        "carbyne" => Some(Some(slot(format!("carbyne|{:?}", c.carbyne), Box::new(CarbyneLeftover::new(&c.carbyne))))),
        "fifo" => Some(Some(slot("fifo".into(), Box::new(ArrivalOrder)))),
        _ => None,
    }
}

/// `rose`: the pipeline's `[rose]` settings (global keys with its own
/// `rose = { ... }` over them), already validated by the config.
pub fn oversubscribe(name: &str, rose: &RoseConfig) -> Option<Option<Slot<dyn Oversubscribe>>> {
    match name {
        "none" => Some(None),
        "rose" => Some(Some(slot(format!("rose|{rose:?}"), Box::new(Rose::new(rose))))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::pipeline as names;

    #[test]
    fn every_listed_name_builds() {
        let c = Config::default();
        for n in names::ESTIMATORS {
            assert!(estimator(n, &c, &c.slearn).is_some(), "estimate {n}");
        }
        for n in names::RESERVES {
            assert!(reserve(n, &c.dress).is_some(), "reserve {n}");
        }
        for n in names::QUEUE_ORDERS {
            assert!(queue_order(n).is_some(), "queue order {n}");
        }
        for n in names::APP_ORDERS {
            assert!(app_order(n, &c).is_some(), "app order {n}");
        }
        for n in names::CLASSIFIERS {
            assert!(classifier(n, &c).is_some(), "classify {n}");
        }
        for n in names::FILTERS {
            assert!(filter(n, &c).is_some(), "filter {n}");
        }
        for n in names::LEFTOVERS {
            assert!(leftover(n, &c).is_some(), "leftover {n}");
        }
        for n in names::OVERSUBSCRIBERS {
            assert!(oversubscribe(n, &c.rose).is_some(), "oversubscribe {n}");
        }
    }
}
