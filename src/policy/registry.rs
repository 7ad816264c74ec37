//! The implementations of the plugin registry's entries
//! (`crate::config::plugins`, which knows the names, the points and the
//! typed configuration each entry makes): [`build`] turns a
//! [`PluginConfig`] into its plugin, one `match` arm per variant.
//!
//! A plugin is held with its *identity*: its name and the configuration it
//! was built from, compared with `==`. On `-refreshQueues` a plugin whose
//! identity is unchanged is kept with all it has learned; any other is
//! built fresh ([`slot`]).

use super::carbyne::leftover::CarbyneLeftover;
use super::carbyne::Carbyne;
use super::constraints::Constraints;
use super::dress::Dress;
use super::estimate::history::{History, Mode};
use super::estimate::oracle::OracleTag;
use super::estimate::tasks::TaskRuntimes;
use super::estimate::NoEstimate;
use super::noop::{FlatQueues, NoLeftover, NoOversubscribe, NoReserve};
use super::order::drf::Drf;
use super::order::fifo::Fifo;
use super::order::las::Las;
use super::order::queue::{CapacityQueues, DrfQueues};
use super::order::size::{By, SizeOrder};
use super::order::tetris::Tetris;
use super::points::{AppOrder, AskClassifier, Capabilities, Estimator, Filter, Leftover, Oversubscribe, QueueOrder, Reserve};
use super::rose::Rose;
use super::slearn::estimator::SLearn;
use super::slearn::gate::{ArrivalOrder, PilotGate};
use super::slearn::gs::Gs;
use crate::config::plugins::{find, Identity, PluginConfig, Point, Sections};

/// A plugin, the identity it was built with and its capabilities (read
/// once, when it is built: `Plugin::capabilities`).
pub struct Slot<T: ?Sized> {
    pub identity: Identity,
    pub caps: Capabilities,
    pub plugin: Box<T>,
}

/// A plugin as the trait of the point it was built for.
pub enum Built {
    Estimator(Box<dyn Estimator>),
    Reserve(Box<dyn Reserve>),
    QueueOrder(Box<dyn QueueOrder>),
    AppOrder(Box<dyn AppOrder>),
    Classifier(Box<dyn AskClassifier>),
    Filter(Box<dyn Filter>),
    Leftover(Box<dyn Leftover>),
    Oversubscribe(Box<dyn Oversubscribe>),
}

/// The plugin `config` configures.
pub fn build(config: &PluginConfig) -> Built {
    use PluginConfig as C;
    match config {
        C::NoEstimate => Built::Estimator(Box::new(NoEstimate)),
        C::History(h) => Built::Estimator(Box::new(History::new(h, Mode::Distribution))),
        C::HistoryPoint(h) => Built::Estimator(Box::new(History::new(h, Mode::Point))),
        C::Oracle => Built::Estimator(Box::new(OracleTag)),
        C::Tasks(a) => Built::Estimator(Box::new(TaskRuntimes::new(a))),
        C::SLearn(s, a) => Built::Estimator(Box::new(SLearn::new(s, a))),
        C::NoReserve => Built::Reserve(Box::new(NoReserve)),
        C::Dress(d) => Built::Reserve(Box::new(Dress::new(d))),
        C::FlatQueues => Built::QueueOrder(Box::new(FlatQueues)),
        C::DrfQueues => Built::QueueOrder(Box::new(DrfQueues)),
        C::CapacityQueues => Built::QueueOrder(Box::new(CapacityQueues)),
        C::Fifo => Built::AppOrder(Box::new(Fifo)),
        C::Drf => Built::AppOrder(Box::new(Drf)),
        C::Sjf => Built::AppOrder(Box::new(SizeOrder(By::Size))),
        C::Srtf => Built::AppOrder(Box::new(SizeOrder(By::Remaining))),
        C::Las => Built::AppOrder(Box::new(Las)),
        C::Tetris => Built::AppOrder(Box::new(Tetris::default())),
        C::Gs(g) => Built::AppOrder(Box::new(Gs::new(g))),
        C::CarbyneClassify(c, a, queue_order) => Built::Classifier(Box::new(Carbyne::new(c, a, queue_order))),
        C::Pilots => Built::Classifier(Box::new(PilotGate)),
        C::Constraints => Built::Filter(Box::new(Constraints::default())),
        C::NoLeftover => Built::Leftover(Box::new(NoLeftover)),
        C::CarbyneLeftover(c, a) => Built::Leftover(Box::new(CarbyneLeftover::new(c, a))),
        C::ArrivalOrder => Built::Leftover(Box::new(ArrivalOrder)),
        C::NoOversubscribe => Built::Oversubscribe(Box::new(NoOversubscribe)),
        C::Rose(r) => Built::Oversubscribe(Box::new(Rose::new(r))),
    }
}

/// The trait object of one point, taken out of what [`build`] made.
pub trait AtPoint {
    /// The slot of a plugin built for this point, or `None` when `built`
    /// serves another.
    fn slot(identity: Identity, built: Built) -> Option<Slot<Self>>;
}

macro_rules! at_point {
    ($($variant:ident => $point:ident),* $(,)?) => {$(
        impl AtPoint for dyn $point {
            fn slot(identity: Identity, built: Built) -> Option<Slot<Self>> {
                match built {
                    Built::$variant(plugin) => Some(Slot { identity, caps: plugin.capabilities(), plugin }),
                    _ => None,
                }
            }
        }
    )*};
}

at_point!(
    Estimator => Estimator,
    Reserve => Reserve,
    QueueOrder => QueueOrder,
    AppOrder => AppOrder,
    Classifier => AskClassifier,
    Filter => Filter,
    Leftover => Leftover,
    Oversubscribe => Oversubscribe,
);

/// The identity plugin `name` has at `point` in a pipeline with `sections`;
/// `None` when the point has no plugin of that name.
pub fn identity(point: Point, name: &str, sections: &Sections) -> Option<Identity> {
    Some(find(point, name)?.identity(point, sections))
}

/// The plugin with `identity`: the one of `old` with that identity (taken
/// out of `old`, with what it learned), else a fresh one.
pub fn keep_or_build<T: ?Sized + AtPoint>(identity: Identity, old: &mut Vec<Slot<T>>) -> Slot<T> {
    if let Some(i) = old.iter().position(|s| s.identity == identity) {
        return old.remove(i);
    }
    let built = build(&identity.config);
    T::slot(identity, built).expect("the registry configures each entry's plugin for the points it lists")
}

/// The plugin `name` at `point` (as [`keep_or_build`]).
pub fn slot<T: ?Sized + AtPoint>(point: Point, name: &str, sections: &Sections, old: &mut Vec<Slot<T>>) -> Option<Slot<T>> {
    Some(keep_or_build(identity(point, name, sections)?, old))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::plugins::PLUGINS;
    use crate::config::Config;

    fn builds<T: ?Sized + AtPoint>(point: Point, name: &str, s: &Sections) -> bool {
        slot::<T>(point, name, s, &mut Vec::new()).is_some()
    }

    #[test]
    fn every_entry_builds_at_each_of_its_points() {
        let c = Config::default();
        let s = Sections::global(&c);
        for e in PLUGINS {
            for &point in e.points {
                let ok = match point {
                    Point::Estimate => builds::<dyn Estimator>(point, e.name, &s),
                    Point::Reserve => builds::<dyn Reserve>(point, e.name, &s),
                    Point::QueueOrder => builds::<dyn QueueOrder>(point, e.name, &s),
                    Point::AppOrder => builds::<dyn AppOrder>(point, e.name, &s),
                    Point::Classify => builds::<dyn AskClassifier>(point, e.name, &s),
                    Point::Filter => builds::<dyn Filter>(point, e.name, &s),
                    Point::Leftover => builds::<dyn Leftover>(point, e.name, &s),
                    Point::Oversubscribe => builds::<dyn Oversubscribe>(point, e.name, &s),
                };
                assert!(ok, "{} at {point:?}", e.name);
                let plugin = match build(&e.identity(point, &s).config) {
                    Built::Estimator(p) => p.name(),
                    Built::Reserve(p) => p.name(),
                    Built::QueueOrder(p) => p.name(),
                    Built::AppOrder(p) => p.name(),
                    Built::Classifier(p) => p.name(),
                    Built::Filter(p) => p.name(),
                    Built::Leftover(p) => p.name(),
                    Built::Oversubscribe(p) => p.name(),
                };
                assert_eq!(plugin, e.name, "the plugin built for `{}` at {point:?} names itself so", e.name);
            }
        }
    }

    /// Identities compare the configuration a plugin was built from, not
    /// its name alone: a changed section rebuilds it, an unchanged one
    /// keeps it (with what it learned).
    #[test]
    fn identities_compare_names_and_configurations() {
        let a = Config::default();
        let mut b = Config::default();
        b.dress.theta = 0.2;
        let (sa, sb) = (Sections { dress: a.dress.clone(), ..Sections::global(&a) }, Sections::global(&b));
        assert_eq!(identity(Point::Reserve, "dress", &sa), identity(Point::Reserve, "dress", &Sections::global(&a)));
        assert_ne!(identity(Point::Reserve, "dress", &sa), identity(Point::Reserve, "dress", &sb));
        assert_eq!(identity(Point::Reserve, "none", &sa), identity(Point::Reserve, "none", &sb));
        // history and history-point share their section, not their identity.
        assert_ne!(identity(Point::Estimate, "history", &sa), identity(Point::Estimate, "history-point", &sa));
        // Carbyne's classifier depends on the queue order, its leftover order does not.
        let mut flat = Config::default();
        flat.scheduler.queue_order = "flat".into();
        let sf = Sections::global(&flat);
        assert_ne!(identity(Point::Classify, "carbyne", &sa), identity(Point::Classify, "carbyne", &sf));
        assert_eq!(identity(Point::Leftover, "carbyne", &sa), identity(Point::Leftover, "carbyne", &sf));
        assert_eq!(identity(Point::Leftover, "lottery", &sa), None);
    }

    #[test]
    fn a_kept_plugin_leaves_the_old_list() {
        let c = Config::default();
        let s = Sections::global(&c);
        let mut old: Vec<Slot<dyn AppOrder>> = vec![slot(Point::AppOrder, "drf", &s, &mut Vec::new()).unwrap()];
        let fresh = slot(Point::AppOrder, "fifo", &s, &mut old).unwrap();
        assert_eq!((fresh.identity.name, old.len()), ("fifo", 1));
        let kept = slot(Point::AppOrder, "drf", &s, &mut old).unwrap();
        assert_eq!((kept.identity.name, old.len()), ("drf", 0));
    }
}
