//! Over-subscription's speculative containers (ROSE): an OPPORTUNISTIC
//! container the engine allocates is marked speculative, and when the
//! controller takes one back (`Decision::Preempt`) its work is lost, its
//! resources are released and its task is asked for again, first.

use super::am::stage_key;
use super::run::Sim;
use crate::engine::Event;
use crate::model::{Ask, ContainerId};

impl Sim<'_> {
    /// Container `c`, just allocated, is OPPORTUNISTIC: a speculative
    /// container of the oversubscribe point, which the controller may take
    /// back.
    pub(super) fn speculative(&mut self, c: ContainerId) {
        if let Some(rt) = self.tasks.get_mut(&c) {
            rt.speculative = true;
            self.rec.speculative();
        }
    }

    /// The controller took speculative container `c` back: its work is
    /// lost and its task asked for again.
    pub(super) fn evict(&mut self, c: ContainerId, t: i64) {
        let Some(rt) = self.tasks.remove(&c) else { return };
        self.rec.evicted(t, rt.launched_ms);
        let (res, used) = (rt.resources, rt.used);
        if rt.launched_ms.is_some() {
            self.running -= 1;
            self.running_changed(t);
            self.use_on(rt.node, t, used, false);
            self.rec.stopped(t, used);
        }
        self.rec.released(t, res);
        self.engine.apply(Event::ContainerFinished { container: c, exit_status: crate::model::exit::PREEMPTED, at_ms: t });
        self.cluster.refresh(&self.engine, rt.node);
        let j = rt.job;
        let run = &mut self.runs[j as usize];
        run.allocated -= res;
        self.rec.share(j, t, run.allocated);
        let st = &mut run.stages[rt.stage];
        st.waiting.retain(|w| *w != c);
        st.held.retain(|h| h.0 != c);
        st.retry.push(rt.task);
        self.rec.asked(j, rt.stage, t, 1);
        let key = stage_key(rt.stage);
        let count = self.engine.state().apps.get(&j).and_then(|a| a.asks.get(&key)).map_or(0, |a| a.count) + 1;
        self.pending += 1;
        *self.shapes.entry((res.0[0], res.0[1])).or_default() += 1;
        self.engine.apply(Event::AskUpdated { app: j, ask: Ask::anywhere(key, res, count) });
    }
}
