//! Widget `dit`: a diffusion transformer's denoising step
//! (`model::dit`). Its keys (`dit_*`), sequence parallelism over the shared link
//! ([`super::common`]), and its one model call, [`view`].

use super::common::{self, Degree, LinkChoice, Row};
use super::{inputs, NativeOnly, Spec};
use crate::model::dit::{self, DitModel, DitView};
use crate::model::setting::Setting;
use crate::state::params::{model_choice, params, ChoiceField};
use crate::state::State;

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
    flash: Flag = true, "dit_flash", "FlashAttention";
    /// The step replayed as one CUDA graph.
    graphs: Flag = false, "dit_graphs", "CUDA graphs (one launch per step)";
    fused: Flag = false, "dit_fused", "fuse adaLN scale/shift/gate and GELU into neighbours";
    /// Ulysses all-to-all where the degree divides the heads, ring attention otherwise.
    sp: Choice<Degree> = Degree::One, "dit_sp", "Sequence parallel (GPUs)";
    /// As `llm_link`.
    link: Choice<LinkChoice> = LinkChoice::Preset, "dit_link", "Link between GPUs";
    /// As `llm_link_bw`.
    link_bw: Milli[common::BW_MILLI.0, common::BW_MILLI.1] = 0, "dit_link_bw", "Link bandwidth, each way (GB/s)";
    /// As `llm_link_lat`.
    link_lat: Milli[common::LAT_MILLI.0, common::LAT_MILLI.1] = 0, "dit_link_lat", "Link latency per ring step (µs)";
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
    reads: Some(|s| inputs(s, false, |w, k| k.dit = w.dit)),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::dit::advice;
    use crate::state::url::encode;
    use crate::state::widgets::tests::states;

    /// The widget's one call gives what its separate calls gave.
    #[test]
    fn view_is_what_the_separate_calls_gave() {
        for s in states() {
            let set = s.beyond();
            let v = view(&s, true);
            let r = run(&s);
            let st = dit::run(&r, &set);
            let sc = dit::scaling(&r, &set);
            let mut said = vec![advice::split(&st), advice::double_batch(&r, &set)];
            said.extend(advice::switches(&r, &set).into_iter().map(|x| x.2));
            said.extend(advice::parallel(&st, &sc));
            let q = encode(&s);
            assert_eq!(v.step, st, "{q}");
            let ratio = dit::double_batch_ratio(&r, &set);
            assert_eq!(v.double_batch.to_bits(), ratio.to_bits(), "{q}");
            assert_eq!(v.scaling, sc, "{q}");
            assert_eq!(v.sentences, said, "{q}");
            assert_eq!(v.by_resolution, advice::by_resolution(&r, &set), "{q}");
            let off = view(&s, false);
            assert_eq!((&off.step, &off.scaling), (&v.step, &v.scaling), "{q}");
            assert_eq!(off.double_batch.to_bits(), ratio.to_bits(), "{q}");
            assert!(off.sentences.is_empty() && off.by_resolution.is_empty());
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
