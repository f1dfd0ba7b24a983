//! Widget `overhead`: the explorer's step issued by a CPU lane (Python,
//! dispatch, launch) beside the GPU lane, with the remedy toggles
//! (`model::overhead`).

use crate::model::overhead::{self, OverheadView, Remedies};
use crate::state::data::State;
use crate::state::params::params;
use crate::state::spec::{inputs, NativeOnly, Reads, Spec};

params! {
    in overhead;
    /// The overhead widget's remedy toggle: one CUDA-graph launch for the step.
    graphs: Flag = false, "graphs", "CUDA graphs (one launch for the whole step)";
    /// The overhead widget's remedy toggle: a JIT that fuses into fewer kernels.
    compiled: Flag = false, "compiled", "compile / fuse (a JIT: fewer kernels)";
    /// The overhead widget's remedy toggle: the loop in C++, no Python.
    cpp: Flag = false, "cpp", "C++ loop (no Python)";
}

/// The remedy toggles, as the model's flags.
pub fn remedies(s: &State) -> Remedies {
    let w = &s.widgets.overhead;
    Remedies {
        cuda_graphs: w.graphs,
        compiled: w.compiled,
        cpp: w.cpp,
    }
}

/// THE WIDGET'S ONE MODEL CALL: the explorer's step issued with the widget's
/// remedies ([`overhead::widget`]).
pub fn view(s: &State) -> OverheadView {
    overhead::widget(&s.setting, remedies(s))
}

pub const SPEC: Spec = Spec {
    id: "overhead",
    title: "Overhead: the CPU lane and the GPU lane",
    // 1160 px at 720 px wide by default
    embed_height: 1190,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| view(s).run.wall())),
    on_gpu: None,
    reads: Some(Reads {
        inputs: |s| inputs(s, true, |w, k| k.overhead = w.overhead),
        same_view: NativeOnly::new(|a, b| view(a) == view(b)),
    }),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::limit::{Halving, Limit, TIE};
    use crate::state::registry::tests::states;
    use crate::state::url::encode;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
    }

    /// The view's counterfactuals are the widget's own step at another state:
    /// each halving's speedup is the wall now over the wall with twice the
    /// FLOP/s, twice the bandwidth or half the overhead set in the explorer,
    /// and "double the batch" is the wall at twice the explorer's batch over
    /// the wall now. What limits the step is the largest of those speedups.
    #[test]
    fn its_counterfactuals_are_the_step_at_the_changed_state() {
        for s in states() {
            let (v, q) = (view(&s), encode(&s));
            let wall = |f: &dyn Fn(&mut State)| {
                let mut t = s.clone();
                f(&mut t);
                view(&t).run.wall()
            };
            let now = v.run.wall();
            let l = &v.limit;
            assert!(
                close(l.flops2, now / wall(&|t| t.setting.flops *= 2.0)),
                "{q}"
            );
            assert!(close(l.bw2, now / wall(&|t| t.setting.bw *= 2.0)), "{q}");
            let half = wall(&|t| t.setting.overhead *= 0.5);
            assert!(close(l.overhead_half, now / half), "{q}");
            let twice = wall(&|t| t.setting.shape.batch *= 2);
            assert!(close(v.double_batch, twice / now), "{q}");
            let best = Halving::ALL
                .map(|h| l.speedup(h))
                .into_iter()
                .fold(1.0, f64::max);
            assert!(l.speedup(Limit::halving(l.regime)) * TIE >= best, "{q}");
        }
    }

    /// A remedy never makes the step slower, and what each one changes is
    /// what it says: C++ drops Python from the CPU's cost per kernel, a JIT
    /// launches fewer kernels, CUDA graphs pay the CPU's cost once. The
    /// flamegraph's one tiny add is mostly CPU time.
    #[test]
    fn each_remedy_does_what_it_says_and_never_slows_the_step() {
        for s in states() {
            let q = encode(&s);
            let mut off = s.clone();
            off.widgets.overhead = Params::default();
            let base = view(&off);
            for (i, on) in [
                Params {
                    cpp: true,
                    ..Params::default()
                },
                Params {
                    compiled: true,
                    ..Params::default()
                },
                Params {
                    graphs: true,
                    ..Params::default()
                },
            ]
            .into_iter()
            .enumerate()
            {
                let mut t = off.clone();
                t.widgets.overhead = on;
                let r = view(&t).run;
                assert!(r.wall() <= base.run.wall(), "{q}: remedy {i}");
                match i {
                    0 => assert!(r.cost.python == 0.0 && r.cost.dispatch == base.run.cost.dispatch),
                    1 => assert!(r.kernel_count <= base.run.kernel_count, "{q}"),
                    _ => assert!(r.cpu_time() <= base.run.cost.total() * (1.0 + 1e-12), "{q}"),
                }
            }
            if s.setting.overhead >= 1e-6 {
                assert!(base.one_add.compute_share() < 0.01, "{q}");
            }
        }
    }
}
