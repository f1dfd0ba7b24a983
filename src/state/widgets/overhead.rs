//! Widget `overhead`: the explorer's step issued by a CPU lane (Python,
//! dispatch, launch) beside the GPU lane, with the remedy toggles
//! (`model::overhead`).

use super::{inputs, NativeOnly, Spec};
use crate::model::overhead::{self, OverheadView, Remedies};
use crate::state::params::params;
use crate::state::State;

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
    reads: Some(|s| inputs(s, true, |w, k| k.overhead = w.overhead)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::url::encode;
    use crate::state::widgets::tests::states;

    /// The widget's one call gives what its separate calls gave.
    #[test]
    fn view_is_what_the_separate_calls_gave() {
        for s in states() {
            let (shape, m, rem) = (s.setting.shape, s.machine(), remedies(&s));
            let q = encode(&s);
            let o = view(&s);
            assert_eq!(o.run, overhead::run(&shape, &m, rem), "{q}");
            let ratio = overhead::double_batch_ratio(&shape, &m, rem);
            assert_eq!(o.double_batch.to_bits(), ratio.to_bits(), "{q}");
            assert_eq!(o.limit, overhead::limit(&shape, &m, rem), "{q}");
            assert_eq!(o.one_add, overhead::one_add(1000.0, &m), "{q}");
            assert_eq!(
                o.python_flops,
                overhead::flops_per_python_op(s.setting.flops)
            );
        }
    }
}
