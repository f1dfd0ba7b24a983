//! Widget `fusion`: an eager chain of `n` pointwise ops against the fused one,
//! and saving against recomputing its intermediates (`model::fusion`), on the
//! explorer's tensor and machine.

use crate::model::fusion::{self, FusionView};
use crate::state::data::State;
use crate::state::params::params;
use crate::state::spec::{inputs, NativeOnly, Reads, Spec};

params! {
    in fusion;
    n: Int[1, 1024] = 2, "fusion_n", "Ops in the chain (n)";
}

/// The elements of the explorer's tensor (batch × hidden): the chain runs on it.
pub fn elements(s: &State) -> f64 {
    f64::from(s.setting.shape.batch) * f64::from(s.setting.shape.hidden)
}

/// THE WIDGET'S ONE MODEL CALL: its chain on the explorer's tensor and machine
/// ([`fusion::widget`]).
pub fn view(s: &State) -> FusionView {
    fusion::widget(s.widgets.fusion.n, elements(s), &s.machine())
}

pub const SPEC: Spec = Spec {
    id: "fusion",
    title: "Operator fusion: count the trips",
    embed_height: 760,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| view(s).compare.fused_time)),
    on_gpu: None,
    reads: Some(Reads {
        inputs: |s| inputs(s, true, |w, k| k.fusion = w.fusion),
        same_view: NativeOnly::new(|a, b| view(a) == view(b)),
    }),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::timeline::Regime;
    use crate::state::registry::tests::states;
    use crate::state::url::encode;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
    }

    /// Fusing a chain of `n` ops: `n` kernels become one, its DRAM traffic
    /// falls `n`-fold, and the step is never slower nor more than `n` times
    /// faster. On the explorer's tensor: twice the batch, twice the elements.
    /// Recomputing the intermediates moves no more bytes than saving them and
    /// frees the `n − 1` tensors saving holds.
    #[test]
    fn fusing_n_ops_saves_at_most_n_fold() {
        for s in states() {
            let (v, q) = (view(&s), encode(&s));
            let (c, n) = (&v.compare, f64::from(s.widgets.fusion.n.max(1)));
            assert_eq!(
                (c.eager_kernels, c.fused_kernels),
                (s.widgets.fusion.n.max(1), 1),
                "{q}"
            );
            assert!(close(c.eager_bytes, n * c.fused_bytes), "{q}");
            let sp = c.speedup();
            assert!(sp >= 1.0 && sp <= n * (1.0 + 1e-9), "{q}: {sp}");
            let mut twice = s.clone();
            twice.setting.shape.batch *= 2;
            assert!(
                close(view(&twice).compare.elements, 2.0 * c.elements),
                "{q}"
            );
            let r = &v.remat;
            assert!(r.remat_bytes <= r.save_bytes, "{q}");
            let b = s.machine().elem_bytes;
            assert!(
                close(r.saved_memory + c.elements * b, n * c.elements * b),
                "{q}"
            );
        }
    }

    /// The essay's limits: on a large tensor the chain is memory-bound and
    /// fusion buys nearly `n`×, and a longer chain never runs faster; on a
    /// tiny one the launches set the pace and the note says so.
    #[test]
    fn a_memory_bound_chain_speeds_up_nearly_n_fold() {
        let mut s = State::default();
        s.widgets.fusion.n = 8;
        s.setting.shape.batch = 1 << 16;
        let c = view(&s).compare;
        assert_eq!(
            (c.eager_regime, c.fused_regime),
            (Regime::Memory, Regime::Memory)
        );
        assert!(c.speedup() > 7.5, "{}", c.speedup());
        assert_eq!(c.note(), None);
        let mut longer = s.clone();
        longer.widgets.fusion.n = 16;
        let l = view(&longer).compare;
        assert!(l.eager_time > c.eager_time && l.fused_time >= c.fused_time);
        s.setting.shape.batch = 1;
        let tiny = view(&s).compare;
        assert_eq!(tiny.fused_regime, Regime::Overhead);
        assert!(tiny.note().is_some());
    }
}
