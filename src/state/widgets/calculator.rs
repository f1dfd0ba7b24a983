//! Widget `calculator`: one operation (matmul, pointwise chain, row reduction or
//! attention, `model::ops`) on the explorer's hardware.

use crate::model::ops::{self, Attention, OpSummary, Reduction};
use crate::model::KernelGroup;
use crate::state::data::State;
use crate::state::params::{choice_enum, params};
use crate::state::spec::{NativeOnly, Spec};

choice_enum! {
    /// Which operation the calculator shows.
    pub enum CalcOp {
        Matmul = "matmul" "matmul [M,K] × [K,N]",
        Pointwise = "pointwise" "pointwise chain",
        Reduction = "reduction" "row reduction (layernorm / softmax)",
        Attention = "attention" "attention",
    }
}

choice_enum! {
    /// Which row reduction the calculator shows.
    pub enum Norm {
        LayerNorm = "layernorm" "layernorm",
        Softmax = "softmax" "softmax",
    }
}

params! {
    in calculator;
    op: Choice<CalcOp> = CalcOp::Matmul, "calc", "Operation";
    m: Int[1, 65536] = 4096, "calc_m", "M (rows of A)";
    n: Int[1, 65536] = 4096, "calc_n", "N (columns of B)";
    k: Int[1, 65536] = 4096, "calc_k", "K (shared dimension)";
    elems: Int[1, 1 << 30] = 1 << 26, "calc_elems", "Elements";
    ops: Int[1, 1024] = 4, "calc_ops", "Ops in the chain";
    fused: Flag = true, "calc_fused", "fused into one kernel";
    rows: Int[1, 1 << 20] = 8192, "calc_rows", "Rows";
    cols: Int[1, 1 << 20] = 4096, "calc_cols", "Columns (reduced)";
    norm: Choice<Norm> = Norm::LayerNorm, "calc_norm", "Kind";
    batch: Int[1, 1024] = 8, "calc_batch", "Batch";
    heads: Int[1, 256] = 16, "calc_heads", "Heads";
    seq: Int[1, 131072] = 4096, "calc_seq", "Sequence length";
    hd: Int[1, 512] = 128, "calc_hd", "Head dimension";
    flash: Flag = true, "calc_flash", "fused (FlashAttention-style): scores stay on chip";
}

/// The chosen operation's kernels, in the explorer's dtype.
pub fn kernels(s: &State) -> Vec<KernelGroup> {
    let w = &s.widgets.calculator;
    let b = s.setting.dtype.bytes();
    match w.op {
        CalcOp::Pointwise => ops::pointwise_chain(w.ops, f64::from(w.elems), b, w.fused),
        CalcOp::Reduction => {
            let kind = match w.norm {
                Norm::Softmax => Reduction::Softmax,
                Norm::LayerNorm => Reduction::LayerNorm,
            };
            ops::row_reduction(kind, w.rows, w.cols, b)
        }
        CalcOp::Attention => {
            let kind = if w.flash {
                Attention::Flash
            } else {
                Attention::Naive
            };
            ops::attention(w.batch, w.heads, w.seq, w.hd, b, kind)
        }
        CalcOp::Matmul => ops::matmul(w.m, w.n, w.k, b),
    }
}

/// The operation on the explorer's machine: its kernels and their summary.
pub fn view(s: &State) -> (Vec<KernelGroup>, OpSummary) {
    let groups = kernels(s);
    let summary = ops::summarize(&groups, &s.machine());
    (groups, summary)
}

pub const SPEC: Spec = Spec {
    id: "calculator",
    title: "Op calculator",
    embed_height: 1120,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| view(s).1.time)),
    on_gpu: None,
    reads: None,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::url::{decode, encode};

    #[test]
    fn keys_round_trip_and_fall_back() {
        let (s, n) = decode("bert_seq=128&graphs=1&calc=attention&fusion_n=7");
        assert!(n.is_empty(), "{n:?}");
        let w = &s.widgets;
        assert_eq!(
            (w.bert.seq, w.overhead.graphs, w.calculator.op, w.fusion.n),
            (128, true, CalcOp::Attention, 7)
        );
        let q = encode(&s);
        assert!(q.contains("bert_seq=128") && q.contains("calc=attention"));
        assert!(!q.contains("bert_batch"), "defaults are not written: {q}");
        assert_eq!(decode(&q).0, s);
        let (s, n) = decode("bert_seq=0&calc=conv");
        assert_eq!(n.len(), 2);
        assert_eq!(s, State::default());
        let p = |k| crate::state::registry::param(k).unwrap();
        assert!(p("bert_seq").parse("abc").is_err());
        assert!(p("bert_seq").parse("5000").is_err());
        assert!(p("bert_seq").parse("1.5").is_err());
        assert!(p("graphs").parse("yes").is_err());
        assert!(p("calc").parse("conv").is_err());
        assert_eq!(p("calc").parse("attention"), Ok(3));
    }

    #[test]
    fn every_operation_runs() {
        for op in [
            CalcOp::Matmul,
            CalcOp::Pointwise,
            CalcOp::Reduction,
            CalcOp::Attention,
        ] {
            let mut s = State::default();
            s.widgets.calculator.op = op;
            let (k, sum) = view(&s);
            assert!(!k.is_empty() && sum.time > 0.0, "{op:?}");
        }
    }
}
