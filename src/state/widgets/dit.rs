//! Widget `dit`: a diffusion transformer's denoising step
//! (`model::dit`). Its keys (`dit_*`), sequence parallelism over the shared link
//! ([`super::common`]), and its one model call, [`view`].

use super::common::{self, Degree, LinkChoice, Row};
use crate::model::dit::{self, DitModel, DitView};
use crate::model::mygpu;
use crate::model::setting::Setting;
use crate::state::data::State;
use crate::state::params::{model_choice, params, ChoiceField};
use crate::state::spec::{inputs, NativeOnly, Reads, Spec};

model_choice!(DitModel {
    XL2 = "DiT-XL/2 (image)",
    CogVideoX2b = "CogVideoX-2B (video, 480 × 720)",
});

params! {
    in dit;
    model: Choice<DitModel> = DitModel::XL2, "dit_model", "Model";
    /// Image side in px, rounded down to 16, or frames for video (choosing
    /// `cogvideox-2b` in the widget sets 49 frames, which the link then carries).
    res: Int[1, 1024] = 256, "dit_res", "Resolution (px) or frames";
    batch: Int[1, 256] = 1, "dit_batch", "Batch";
    flash: Flag = true, "dit_flash", common::label::FLASH;
    /// The step replayed as one CUDA graph.
    graphs: Flag = false, "dit_graphs", common::label::GRAPHS;
    fused: Flag = false, "dit_fused", "fuse adaLN scale/shift/gate and GELU into neighbours";
    /// Ulysses all-to-all where the degree divides the heads, ring attention otherwise.
    sp: Choice<Degree> = Degree::One, "dit_sp", "Sequence parallel (GPUs)";
    /// As `llm_link`.
    link: Choice<LinkChoice> = LinkChoice::Preset, "dit_link", common::label::LINK;
    /// As `llm_link_bw`.
    link_bw: Milli[common::BW_MILLI.0, common::BW_MILLI.1] = 0, "dit_link_bw", common::label::LINK_BW;
    /// As `llm_link_lat`.
    link_lat: Milli[common::LAT_MILLI.0, common::LAT_MILLI.1] = 0, "dit_link_lat", common::label::LINK_LAT;
}

/// The model select: switching model also resets the resolution to the new
/// model's default (256 px for an image model, 49 frames for a video one).
pub const MODEL: ChoiceField<DitModel> = ChoiceField {
    set: |s, v| {
        let w = &mut s.widgets.dit;
        if w.model != v {
            w.model = v;
            w.res = v.res_meaning().1;
        }
    },
    ..field::model
};

common::link_fields!(dit);

/// The widget's run.
pub fn run(s: &State) -> dit::DitRun {
    let w = &s.widgets.dit;
    dit::DitRun {
        model: w.model,
        res: w.res,
        batch: w.batch,
        flash: w.flash,
        graphs: w.graphs,
        fused: w.fused,
        sp: w.sp.n(),
        // kept on one GPU too: the scaling chart uses it
        link: LINK.link(s),
    }
}

/// THE WIDGET'S ONE MODEL CALL: everything it shows ([`dit::widget`]); what is
/// only drawn where `drawn`.
pub fn view(s: &State, drawn: bool) -> DitView {
    dit::widget(&run(s), &s.beyond(), drawn)
}

/// The headline (the denoising step's time) at the low and the high end of a
/// measured GPU's spread ([`State::beyond_ends`]: two wall-only steps), in
/// words; `None` on a datasheet preset.
pub fn range(s: &State) -> Option<String> {
    let [lo, hi] = walls(s)?;
    Some(format!(
        "Across the measured spread: {} a step.",
        mygpu::range(lo, hi, "s")
    ))
}

/// [`range`]'s two numbers: the step's time at the low and the high end.
pub fn walls(s: &State) -> Option<[f64; 2]> {
    let r = run(s);
    Some(s.beyond_ends()?.map(|t| dit::wall(&r, &t)))
}

/// One row of "Compare GPUs": this state's denoising step on a preset's setting
/// (samples per second = batch ÷ step; DiT's memory is not modelled).
pub fn compare_row(s: &State, on: &Setting) -> Result<Row, String> {
    let r = run(s);
    let st = dit::run(&r, on);
    Ok(Row {
        step: st.wall,
        rate: f64::from(r.batch.max(1)) / st.wall.max(f64::MIN_POSITIVE),
        fit: None,
        regime: st.regime,
    })
}

pub const SPEC: Spec = Spec {
    id: "dit",
    title: "Diffusion transformers: one denoising step",
    // 1843 px at 720 px wide by default (its GPU select, the folded
    // "compare GPUs" and the scaling chart included); 2020 on 4 GPUs with
    // the parallel sentences (2126 with the link's bandwidth and latency boxes)
    embed_height: 2300,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| view(s, true).step.wall)),
    on_gpu: Some(|s, before| LINK.follow_gpu(s, before)),
    reads: Some(Reads {
        inputs: |s| inputs(s, false, |w, k| k.dit = w.dit),
        same_view: NativeOnly::new(|a, b| view(a, true) == view(b, true)),
    }),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::limit::{Halving, Limit, TIE};
    use crate::state::params::Choice;
    use crate::state::registry::tests::states;
    use crate::state::url::encode;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
    }

    /// The view's figures are the widget's own step at other states: "double
    /// the batch" is the wall at twice the batch over the wall now; each
    /// point of the scaling chart is the step at that sequence-parallel
    /// degree, and its speedup the wall on one GPU over the wall on the
    /// run's own. What limits the step is the largest of its halvings.
    /// Off the screen it publishes the same figures and draws nothing.
    #[test]
    fn its_figures_are_the_step_at_the_changed_state() {
        for s in states() {
            let (v, q) = (view(&s, true), encode(&s));
            let wall = |f: &dyn Fn(&mut State)| {
                let mut t = s.clone();
                f(&mut t);
                view(&t, false).step.wall
            };
            let now = v.step.wall;
            let twice = wall(&|t| t.widgets.dit.batch *= 2);
            assert!(close(v.double_batch, twice / now), "{q}");
            for &d in Degree::ALL {
                let at = wall(&|t| t.widgets.dit.sp = d);
                let (_, p) = v.scaling.points.iter().find(|p| p.0 == d.n()).unwrap();
                assert!(close(p.wall, at), "{q}: {d:?}");
                if d == s.widgets.dit.sp {
                    assert!(close(at, now), "{q}");
                }
            }
            let one = wall(&|t| t.widgets.dit.sp = Degree::One);
            assert!(close(v.scaling.speedup, one / now), "{q}");
            let l = &v.step.limit;
            let best = Halving::ALL
                .map(|h| l.speedup(h))
                .into_iter()
                .fold(1.0, f64::max);
            assert_eq!(v.step.regime, l.regime, "{q}");
            assert!(l.speedup(Limit::halving(l.regime)) * TIE >= best, "{q}");
            let off = view(&s, false);
            assert_eq!((&off.step, &off.scaling), (&v.step, &v.scaling), "{q}");
            assert_eq!(off.double_batch.to_bits(), v.double_batch.to_bits(), "{q}");
            assert!(
                off.sentences.is_empty() && off.by_resolution.is_empty(),
                "{q}"
            );
            assert!(
                !v.sentences.is_empty() && !v.by_resolution.is_empty(),
                "{q}"
            );
        }
    }

    /// Fusing and CUDA graphs, turned on, never make the step slower, and
    /// FlashAttention and fusing launch no more kernels. (FlashAttention is
    /// not held to the wall: the model prices it slower than the unfused
    /// kernels in some states, e.g. DiT-XL/2 at 512 px on a B200 over 4 GPUs.)
    #[test]
    fn no_switch_makes_the_step_slower() {
        for s in states() {
            let q = encode(&s);
            let step = |f: &dyn Fn(&mut Params, bool)| {
                let (mut off, mut on) = (s.clone(), s.clone());
                f(&mut off.widgets.dit, false);
                f(&mut on.widgets.dit, true);
                (view(&off, false).step, view(&on, false).step)
            };
            let (off, on) = step(&|w, b| w.flash = b);
            assert!(on.kernel_count <= off.kernel_count, "{q}");
            let (off, on) = step(&|w, b| w.fused = b);
            assert!(
                on.wall <= off.wall && on.kernel_count <= off.kernel_count,
                "{q}"
            );
            let (off, on) = step(&|w, b| w.graphs = b);
            assert!(on.wall <= off.wall, "{q}");
        }
    }

    #[test]
    fn choosing_a_model_sets_its_resolution() {
        let mut s = State::default();
        (MODEL.set)(&mut s, DitModel::CogVideoX2b);
        assert_eq!(s.widgets.dit.res, DitModel::CogVideoX2b.res_meaning().1);
        // the same model again keeps a resolution set since
        s.widgets.dit.res = 9;
        (MODEL.set)(&mut s, DitModel::CogVideoX2b);
        assert_eq!(s.widgets.dit.res, 9);
    }
}
