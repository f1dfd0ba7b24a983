//! Widget `shapes`: "What shapes do matrix multiplications like?":
//! one GEMM `C[M, N] = A[M, K] · B[K, N]` on the shared GPU, priced by the GEMM
//! model (`model::shapes`) on the preset's achievable roofs.

use crate::model::shapes::{self as view, ShapesView, SweepKey};
use crate::model::Dtype;
use crate::state::data::State;
use crate::state::params::params;
use crate::state::spec::{inputs, NativeOnly, Reads, Spec};

params! {
    in shapes;
    m: Int[view::DIM.0, view::DIM.1] = 4096, "mm_m", "M (rows of A and C)";
    n: Int[view::DIM.0, view::DIM.1] = 4096, "mm_n", "N (columns of B and C)";
    k: Int[view::DIM.0, view::DIM.1] = 4096, "mm_k", "K (the shared dimension)";
    /// The dtype asked for: one the preset lacks is kept, and the widget shows
    /// the preset's default dtype and says so.
    dtype: Choice<Dtype> = Dtype::Bf16, "mm_dtype", "Dtype";
}

/// THE WIDGET'S ONE MODEL CALL: the GEMM on the shared GPU; `None` on the lab's
/// measured GPU that matched no datasheet preset, whose SMs are not known.
pub fn view(s: &State) -> Option<ShapesView> {
    let w = &s.widgets.shapes;
    view::view_on(w.m, w.n, w.k, w.dtype, &s.setting)
}

/// The headline (achieved FLOP/s) at the low and the high end of a measured
/// GPU's spread (`model::mygpu::ends`: two GEMMs priced), in words; `None` on
/// a datasheet preset.
pub fn range(s: &State) -> Option<String> {
    let [lo, hi] = rates(s)?;
    Some(format!(
        "Across the measured spread: {} achieved.",
        crate::model::mygpu::range(lo, hi, "FLOP/s")
    ))
}

/// [`range`]'s two numbers: achieved FLOP/s at the low and the high end.
pub fn rates(s: &State) -> Option<[f64; 2]> {
    let w = &s.widgets.shapes;
    let [lo, hi] = crate::model::mygpu::ends(&s.setting, s.spread)?;
    let at = |t| view::view_on(w.m, w.n, w.k, w.dtype, t).map(|v| v.flops);
    Some([at(&lo)?, at(&hi)?])
}

/// The notice where the GPU lacks the dtype asked for: the widget shows the
/// GPU's default dtype instead and says so.
pub fn fallback(s: &State) -> Option<String> {
    let (hw, wanted) = (s.setting.hw, s.widgets.shapes.dtype);
    (!hw.supports(wanted)).then(|| {
        format!(
            "The {} has no {} mode: this widget shows {}.",
            hw.name,
            wanted.label(),
            hw.default_dtype().label()
        )
    })
}

/// What the chart's sweep depends on ([`view::sweep`] draws it): it stays while
/// N moves below the sweep's end, so dragging N redraws one point.
pub fn sweep_key(s: &State) -> SweepKey {
    let w = &s.widgets.shapes;
    SweepKey::of_on(w.m, w.n, w.k, w.dtype, &s.setting)
}

/// The chart's sweep for `key`: TFLOP/s against N on multiples of the
/// alignment and one past each, priced by the GEMM model.
pub fn sweep(key: SweepKey) -> view::Sweep {
    view::sweep(key)
}

/// The note under the chart: how the GEMM model did against the matmuls timed
/// on the lent GPUs (fixed data: the same for every state).
pub fn measured_note() -> String {
    use crate::model::shapes::measured;
    measured::lent_summary(&measured::lent())
}

pub const SPEC: Spec = Spec {
    id: "shapes",
    title: "What shapes do matrix multiplications like?",
    // 1276 px at 720 px wide by default (the lent sweep's note says what is
    // left); the pad remedy, a fifth sentence and a dtype notice add ~80
    // (tests/e2e/embed.test.mjs)
    embed_height: 1360,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| view(s).map_or(1.0, |v| v.seconds))),
    on_gpu: None,
    reads: Some(Reads {
        inputs: |s| inputs(s, false, |w, k| k.shapes = w.shapes),
        same_view: NativeOnly::new(|a, b| view(a) == view(b) && sweep_key(a) == sweep_key(b)),
    }),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Regime;
    use crate::state::url::{decode, encode};

    /// The fallback notice shows where the GPU lacks the dtype asked for, and
    /// names the dtype the view is priced in.
    #[test]
    fn the_fallback_names_the_dtype_shown() {
        let (s, _) = decode("hw=h100-sxm&mm_dtype=fp8");
        assert_eq!(fallback(&s), None);
        let (s, _) = decode("hw=v100&mm_dtype=fp8");
        let said = fallback(&s).unwrap_or_default();
        let shown = view(&s).map(|v| v.dtype);
        assert_eq!(shown, Some(s.setting.hw.default_dtype()), "{said}");
        assert!(
            said.contains("no fp8 mode")
                && said.ends_with(&format!("shows {}.", shown.unwrap().label())),
            "{said}"
        );
    }

    #[test]
    fn keys_round_trip_and_fall_back() {
        let (s, n) = decode("hw=h100-sxm&mm_m=8192&mm_k=768&mm_n=50257&mm_dtype=fp8");
        assert!(n.is_empty(), "{n:?}");
        let w = &s.widgets.shapes;
        assert_eq!((w.m, w.n, w.k, w.dtype), (8192, 50257, 768, Dtype::Fp8));
        let q = encode(&s);
        assert!(
            q.contains("mm_n=50257") && q.contains("mm_dtype=fp8"),
            "{q}"
        );
        assert_eq!(decode(&q).0, s);
        let (d, _) = decode("");
        assert!(!encode(&d).contains("mm_"), "defaults are not written");
        let (s, n) = decode("mm_m=0&mm_n=abc&mm_k=65537&mm_dtype=fp4");
        assert_eq!(n.len(), 4, "{n:?}");
        assert_eq!(s.widgets.shapes, Params::default());
    }

    #[test]
    fn the_sweep_is_the_view_at_each_of_its_points() {
        for q in [
            "hw=h100-sxm",
            "hw=a100-80gb&mm_m=512&mm_k=1000&mm_n=3000",
            "hw=h200&mm_dtype=fp8&mm_m=64&mm_n=100",
        ] {
            let (s, _) = decode(q);
            let v = view(&s).unwrap();
            let sw = sweep(sweep_key(&s));
            assert!(!sw.aligned.is_empty() && !sw.unaligned.is_empty(), "{q}");
            assert_eq!(sw.align, v.align, "{q}");
            assert!(sw.aligned.iter().all(|p| p.n % v.align == 0), "{q}");
            assert!(sw.unaligned.iter().all(|p| p.n % v.align == 1), "{q}");
            // every point is the widget's own view at that N, under its roof
            for p in sw.aligned.iter().chain(&sw.unaligned).step_by(5) {
                let mut t = s.clone();
                t.widgets.shapes.n = p.n;
                let at = view(&t).unwrap();
                assert!((at.flops / p.flops - 1.0).abs() < 1e-12, "{q} {}", p.n);
                assert!(p.flops <= v.roof * (1.0 + 1e-12), "{q} {}", p.n);
                // N moved within the sweep's upper half keeps its key: the sweep
                // is not redone
                let top = sweep_key(&s).top;
                if p.n > top / 4 && p.n <= top / 2 {
                    assert_eq!(sweep_key(&t), sweep_key(&s), "{q} {}", p.n);
                }
            }
        }
        // no sweep where the GPU's SMs are unknown
        let (s, _) = decode("hw=measured&flops=1e13&bw=1e11");
        assert_eq!(sweep(sweep_key(&s)), view::Sweep::default());
    }

    #[test]
    fn the_measured_note_counts_the_lent_matmuls_by_their_targets() {
        let rows = crate::model::shapes::measured::lent();
        let within = rows
            .iter()
            .filter(|r| r.error().abs() <= r.target())
            .count();
        assert!(
            within < rows.len() && within * 10 > rows.len() * 9,
            "{within}"
        );
        let note = measured_note();
        assert!(
            note.contains(&format!("Checked against {} matmuls", rows.len())),
            "{note}"
        );
        assert!(
            note.contains(&format!("{within} within their targets")),
            "{note}"
        );
        // the claim it makes of every row holds
        assert!(note.contains("none beyond 30 %"), "{note}");
        assert!(rows.iter().all(|r| r.error().abs() <= 0.30));
    }

    #[test]
    fn the_view_follows_the_state() {
        let (s, _) = decode("hw=h100-sxm&mm_m=1");
        assert_eq!(view(&s).map(|v| v.regime), Some(Regime::Memory));
        let (s, _) = decode("hw=measured&flops=1e13&bw=1e11");
        assert!(view(&s).is_none());
        // a dtype the preset lacks falls back to its default
        let (s, _) = decode("hw=a100-40gb&mm_dtype=fp8");
        assert_eq!(view(&s).map(|v| v.dtype), Some(Dtype::Bf16));
    }
}
