//! Widget `bert`: BERT-base by operator class, FLOP share against time share
//! (`model::bert`), with its own batch, sequence length and fusion.

use crate::model::bert::{self, BertView};
use crate::state::data::State;
use crate::state::params::params;
use crate::state::spec::{inputs, NativeOnly, Reads, Spec};

params! {
    in bert;
    batch: Int[1, 512] = 8, "bert_batch", "Batch size";
    seq: Int[8, 4096] = 512, "bert_seq", "Sequence length";
    fused: Flag = false, "bert_fused", "fuse the non-matmul ops between matmuls";
}

/// THE WIDGET'S ONE MODEL CALL: BERT-base with the widget's batch, sequence
/// length and fusion on the explorer's machine ([`bert::widget`]).
pub fn view(s: &State) -> BertView {
    let w = &s.widgets.bert;
    bert::widget(w.batch, w.seq, &s.machine(), w.fused)
}

pub const SPEC: Spec = Spec {
    id: "bert",
    title: "BERT: FLOPs are not time",
    embed_height: 870,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| view(s).profile.wall)),
    on_gpu: None,
    reads: Some(Reads {
        inputs: |s| inputs(s, true, |w, k| k.bert = w.bert),
        same_view: NativeOnly::new(|a, b| view(a) == view(b)),
    }),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware;
    use crate::state::registry::tests::states;
    use crate::state::url::encode;

    /// The three readouts agree with one another as time = FLOPs ÷ FLOP/s:
    /// each class's time share over the matmuls' is its FLOP share over
    /// theirs times how much slower it runs. Shares sum to one, and the essay's
    /// point holds: the matmuls' share of the time is below their share of
    /// the FLOPs, every other class running slower than they do.
    #[test]
    fn the_shares_are_flops_over_achieved_rate() {
        for s in states() {
            let (v, q) = (view(&s), encode(&s));
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
            assert!(
                close(v.flop.sum(), 1.0) && close(v.runtime.sum(), 1.0),
                "{q}"
            );
            assert_eq!(v.slowdown.tensor, 1.0, "{q}");
            for c in [bert::OpClass::StatNormalization, bert::OpClass::ElementWise] {
                let want = v.flop.get(c) / v.flop.tensor * v.slowdown.get(c);
                let got = v.runtime.get(c) / v.runtime.tensor;
                assert!(close(got, want), "{q}: {c:?} {got} against {want}");
                assert!(v.slowdown.get(c) > 1.0, "{q}: {c:?}");
            }
            assert!(v.runtime.tensor < v.flop.tensor, "{q}");
        }
    }

    /// What changes what: the FLOP shares are the shape's, whatever the GPU
    /// and whether the ops are fused; fusing never adds time or kernels; a
    /// larger batch never takes less time; at the same tokens a longer
    /// sequence does more FLOPs (attention grows with its square).
    #[test]
    fn the_controls_move_the_view_as_the_model_says() {
        for s in states() {
            let (v, q) = (view(&s), encode(&s));
            let mut other = s.clone();
            let to = if s.setting.hw.id == "h100-sxm" {
                "t4"
            } else {
                "h100-sxm"
            };
            other.select_preset(hardware::preset(to).unwrap());
            assert_eq!(view(&other).flop, v.flop, "{q}");
            let (mut eager, mut fused) = (s.clone(), s.clone());
            eager.widgets.bert.fused = false;
            fused.widgets.bert.fused = true;
            let (e, f) = (view(&eager), view(&fused));
            assert_eq!(e.flop, f.flop, "{q}");
            assert!(f.profile.wall <= e.profile.wall, "{q}");
            assert!(f.profile.kernel_count < e.profile.kernel_count, "{q}");
            let mut twice = s.clone();
            twice.widgets.bert.batch *= 2;
            assert!(view(&twice).profile.wall >= v.profile.wall, "{q}");
        }
        let at = |batch, seq| {
            let mut s = State::default();
            s.widgets.bert = Params {
                batch,
                seq,
                fused: false,
            };
            view(&s).profile.flops.sum()
        };
        assert!(at(8, 512) < at(4, 1024));
        assert!(at(64, 8) < at(8, 64));
    }
}
