//! Widget `microbench`: the essay's repeat microbenchmark (`model::microbench`)
//! in its own dtype and tensor size, on the explorer's hardware, with the
//! measured sweeps beside it.

use crate::model::{microbench, Dtype};
use crate::state::data::State;
use crate::state::params::params;
use crate::state::spec::{inputs, NativeOnly, Reads, Spec};

/// The tensor size in elements: 2^10 … 2^30, the essay's 2^28.
pub const ELEMS: (u32, u32) = (1 << 10, 1 << 30);
pub const ELEMS_DEFAULT: u32 = 1 << 28;

params! {
    in microbench;
    /// The storage dtype of the swept tensor: one the preset lacks is kept, and
    /// the widget shows fp32 and says so.
    dtype: Choice<Dtype> = Dtype::Fp32, "mb_dtype", "Dtype";
    /// The swept tensor's size (the control picks powers of two; the default,
    /// 2^28, is 1 GiB in fp32).
    elems: Int[ELEMS.0, ELEMS.1] = ELEMS_DEFAULT, "mb_elems", "Tensor size (elements)";
}

/// The dtype: the one asked for (`mb_dtype`) and the one shown, which falls
/// back to fp32 (every preset has it) where the preset lacks the one asked for;
/// the widget says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MbDtype {
    pub wanted: Dtype,
    pub used: Dtype,
}

pub fn dtype(s: &State) -> MbDtype {
    let wanted = s.widgets.microbench.dtype;
    let used = if s.setting.hw.supports(wanted) {
        wanted
    } else {
        Dtype::Fp32
    };
    MbDtype { wanted, used }
}

/// The benchmark: its own dtype and size on the explorer's hardware
/// (bandwidth, pointwise ceiling, launch overhead).
pub fn bench(s: &State) -> microbench::Bench {
    microbench::bench(
        &s.cached(),
        dtype(s).used,
        f64::from(s.widgets.microbench.elems),
        s.setting.hw.name,
    )
}

/// THE WIDGET'S ONE MODEL CALL: [`bench`] and the measured sweeps beside it
/// ([`microbench::widget`]).
pub fn view(s: &State) -> microbench::BenchView {
    microbench::widget(bench(s), s.setting.hw.id)
}

pub const SPEC: Spec = Spec {
    id: "microbench",
    title: "The repeat microbenchmark",
    // its own controls (the GPU select among them), the regions' legend, three
    // panels and the sentences: 1149 px at 720 px wide in its tallest state,
    // 1008 by default (tests/e2e/microbench.test.mjs)
    embed_height: 1195,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| view(s).bench.n)),
    on_gpu: None,
    reads: Some(Reads {
        inputs: |s| inputs(s, true, |w, k| k.microbench = w.microbench),
        same_view: NativeOnly::new(|a, b| view(a) == view(b)),
    }),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{hardware, Regime};
    use crate::state::registry::tests::states;
    use crate::state::url::{decode, encode};

    #[test]
    fn defaults_to_the_essay_and_falls_back_to_fp32() {
        // default: A100, fp32, 2^28 elements (1 GiB) whatever the explorer's dtype
        let s = State::default();
        assert_eq!(s.setting.dtype, Dtype::Bf16);
        let b = bench(&s);
        assert_eq!(b.dtype, Dtype::Fp32);
        assert_eq!(b.bytes(), f64::from(1u32 << 30));
        assert!((b.crossover.repeat - 50.16).abs() < 0.01);
        assert_eq!(b.regime_at_1(), Regime::Memory);
        // fp8 on an A100: shown as fp32, the choice kept for presets that have it
        let mut s = s;
        s.widgets.microbench.dtype = Dtype::Fp8;
        assert_eq!(
            dtype(&s),
            MbDtype {
                wanted: Dtype::Fp8,
                used: Dtype::Fp32
            }
        );
        assert_eq!(bench(&s).dtype, Dtype::Fp32);
        s.select_preset(hardware::preset("h100-sxm").unwrap());
        assert_eq!(dtype(&s).used, Dtype::Fp8);
        assert!(bench(&s).crossover.repeat < b.crossover.repeat / 2.0);
        // the M2 Max has fp32 only
        s.select_preset(hardware::preset("m2-max").unwrap());
        assert_eq!(bench(&s).dtype, Dtype::Fp32);
        // small sizes: overhead-bound at repeat 1
        s.widgets.microbench.elems = 1 << 10;
        assert_eq!(bench(&s).regime_at_1(), Regime::Overhead);
    }

    #[test]
    fn keys_round_trip_and_fall_back() {
        let (s, n) = decode("mb_dtype=bf16&mb_elems=1048576");
        assert!(n.is_empty(), "{n:?}");
        let w = &s.widgets.microbench;
        assert_eq!((w.dtype, w.elems), (Dtype::Bf16, 1 << 20));
        let q = encode(&s);
        assert!(
            q.contains("mb_dtype=bf16") && q.contains("mb_elems=1048576"),
            "{q}"
        );
        assert_eq!(decode(&q), (s, vec![]));
        // defaults are not written
        assert!(!encode(&State::default()).contains("mb_"));
        // a dtype the preset lacks is kept (the widget falls back and says so)
        let (s, n) = decode("mb_dtype=fp8");
        assert!(n.is_empty());
        assert_eq!(dtype(&s).used, Dtype::Fp32);
        assert_eq!(decode(&encode(&s)), (s, vec![]));
        for (q, key) in [
            ("mb_dtype=fp64", "mb_dtype"),
            ("mb_dtype=", "mb_dtype"),
            ("mb_elems=1023", "mb_elems"),
            ("mb_elems=2000000000", "mb_elems"),
            ("mb_elems=4096.5", "mb_elems"),
            ("mb_elems=abc", "mb_elems"),
        ] {
            let (s, n) = decode(q);
            assert_eq!(n.len(), 1, "{q}: {n:?}");
            assert_eq!(n[0].param, key, "{q}");
            assert_eq!(s, State::default(), "{q}");
        }
        let mb = crate::state::registry::param("mb_elems").unwrap();
        assert!(mb.parse("1073741825").is_err());
        assert_eq!(mb.parse("1073741824"), Ok(1 << 30));
        assert_eq!(mb.parse("1000000"), Ok(1_000_000));
    }

    /// The measured sweeps follow the widget's GPU, dtype and size: on the
    /// H100 in fp32 at 2^28 elements PyTorch's and Triton's, at 2^26 the
    /// WGSL one, elsewhere none and a sentence saying where they are. The
    /// published error is the largest of the overlaid points' errors, each
    /// point the measured time beside the model's at that repeat.
    #[test]
    fn the_overlays_follow_the_gpu_dtype_and_size() {
        use crate::model::measured::h100;
        let mut s = State::default();
        s.select_preset(hardware::preset("h100-sxm").unwrap());
        s.widgets.microbench.dtype = Dtype::Fp32;
        for (elems, ids) in [
            (h100::TORCH_ELEMENTS, vec!["triton-fused", "pytorch-eager"]),
            (h100::WGSL_ELEMENTS, vec!["wgsl-fused"]),
            (1024.0, vec![]),
        ] {
            s.widgets.microbench.elems = elems as u32;
            let v = view(&s);
            let got: Vec<&str> = v.overlays.iter().map(|o| o.series.id).collect();
            assert_eq!(got, ids, "{elems}");
            assert_eq!(v.elsewhere.is_some(), ids.is_empty(), "{elems}");
            let errors: Vec<f64> = v
                .overlays
                .iter()
                .flat_map(|o| {
                    assert_eq!(o.points.len(), o.series.points.len());
                    o.points.iter().zip(o.series.points).map(|(p, m)| {
                        assert_eq!((p.repeat, p.measured_s), *m);
                        p.error().abs()
                    })
                })
                .collect();
            match v.max_error {
                None => assert!(errors.is_empty(), "{elems}"),
                Some(e) => {
                    assert!(errors.iter().all(|x| *x <= e), "{elems}: {e}");
                    assert!(errors.contains(&e), "{elems}: {e}");
                }
            }
        }
        s.widgets.microbench.dtype = Dtype::Bf16;
        s.widgets.microbench.elems = h100::TORCH_ELEMENTS as u32;
        assert!(view(&s).overlays.is_empty());
    }

    /// The sweep as the essay tells it: a kernel's time never falls as its
    /// repeat grows; up to the crossover repeat the kernel is memory-bound
    /// and past it compute-bound (launch overhead aside); and the chart's
    /// shaded regions tile the plotted range and name each point's regime.
    #[test]
    fn more_repeats_never_run_faster_and_the_regions_name_each_point() {
        for s in states() {
            let (b, q) = (view(&s).bench, encode(&s));
            for w in b.points.windows(2) {
                assert!(w[1].runtime >= w[0].runtime, "{q}: {}", w[1].repeat);
            }
            for p in &b.points {
                let r = f64::from(p.repeat);
                let want = if r < b.crossover.repeat {
                    Regime::Memory
                } else {
                    Regime::Compute
                };
                if p.regime != Regime::Overhead && (r / b.crossover.repeat - 1.0).abs() > 0.05 {
                    assert_eq!(p.regime, want, "{q}: repeat {r}");
                }
                let (regime, ..) = b
                    .spans
                    .iter()
                    .find(|(_, from, to)| *from <= r && r <= *to)
                    .unwrap();
                assert_eq!(*regime, p.regime, "{q}: repeat {r}");
            }
            assert_eq!(
                b.spans.first().map(|x| x.1),
                Some(microbench::RANGE.0),
                "{q}"
            );
            assert_eq!(
                b.spans.last().map(|x| x.2),
                Some(microbench::RANGE.1),
                "{q}"
            );
            assert!(b.spans.windows(2).all(|w| w[0].2 == w[1].1), "{q}");
        }
    }
}
