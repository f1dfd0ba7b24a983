//! Widget `fusion`: an eager chain of `n` pointwise ops against the fused one,
//! and saving against recomputing its intermediates (`model::fusion`), on the
//! explorer's tensor and machine.

use super::{inputs, NativeOnly, Spec};
use crate::model::fusion::{self, FusionView};
use crate::state::params::params;
use crate::state::State;

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
    reads: Some(|s| inputs(s, true, |w, k| k.fusion = w.fusion)),
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
            let (n, m, q) = (s.widgets.fusion.n, s.machine(), encode(&s));
            let e = f64::from(s.setting.shape.batch) * f64::from(s.setting.shape.hidden);
            let f = view(&s);
            assert_eq!(f.compare, fusion::compare(n, e, &m), "{q}");
            assert_eq!(f.remat, fusion::remat(n, e, &m), "{q}");
        }
    }
}
