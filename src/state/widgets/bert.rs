//! Widget `bert`: BERT-base by operator class, FLOP share against time share
//! (`model::bert`), with its own batch, sequence length and fusion.

use super::{inputs, NativeOnly, Spec};
use crate::model::bert::{self, BertView};
use crate::state::params::params;
use crate::state::State;

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
    reads: Some(|s| inputs(s, true, |w, k| k.bert = w.bert)),
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
            let (w, m, q) = (&s.widgets.bert, s.machine(), encode(&s));
            let p = bert::profile(&bert::BertConfig::BASE, w.batch, w.seq, &m, w.fused);
            let b = view(&s);
            assert_eq!(b.flop, p.flop_shares(), "{q}");
            assert_eq!(b.runtime, p.runtime_shares(), "{q}");
            assert_eq!(b.slowdown, p.slowdown_vs_matmul(), "{q}");
            assert_eq!(b.profile, p, "{q}");
        }
    }
}
