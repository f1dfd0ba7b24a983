//! The `llm` widget's one model entry point ([`widget`]): everything the widget
//! draws and publishes for one state, computed once per change. The step, the
//! double-the-batch ratio, the 1–8 GPU scaling sweep, the batch sweep, every
//! sentence (each counterfactual re-run inside) and the fit, read from one
//! another where one already ran what the next needs.

use super::spec::{self, SpecRun, SpecView};
use super::step::{self, LlmStep, Scaling, SweepPoint};
use super::{advice, spread, LlmRun, Phase};
use crate::model::setting::Setting;

/// What the `llm` widget shows for one state. The readouts' parts are always
/// there; what is only drawn (`sweep`, `sentences`, `fit`) is empty unless asked
/// for (`drawn`).
#[derive(Clone, Debug, PartialEq)]
pub struct LlmView {
    /// The step (its run holds the spread the model could split).
    pub step: LlmStep,
    /// `wall(2·batch) / wall(batch)` (`llm_double_batch_ratio`).
    pub double_batch: f64,
    /// The step on 1, 2, 4 and 8 tensor-parallel GPUs.
    pub scaling: Scaling,
    /// A spread the model cannot split: what runs instead, and why.
    pub spread_notes: Vec<String>,
    /// The batch sweep chart's points.
    pub sweep: Vec<SweepPoint>,
    /// The advice list, in the widget's order.
    pub sentences: Vec<String>,
    /// Weights + KV cache against the GPU's memory, in words.
    pub fit: String,
    /// Speculative decoding against this step (`None`: off, or prefill).
    pub spec: Option<SpecView>,
}

/// The widget's model for `asked` (the parallel spread as the controls ask for
/// it; [`spread`] settles what runs) on `setting`, the GPU named `hw_name`;
/// with what is only drawn where `drawn` (the widget on the screen).
pub fn widget(
    asked: &LlmRun,
    sr: &SpecRun,
    setting: &Setting,
    hw_name: &str,
    drawn: bool,
) -> LlmView {
    let (par, spread_notes) = spread(&asked.config, asked.par);
    let r = LlmRun { par, ..*asked };
    let st = step::full(&r, setting);
    let spec = spec::view(&r, sr, setting, st.wall, st.fit.max_batch, drawn);
    let sweep = if drawn {
        step::sweep(&r, setting)
    } else {
        Vec::new()
    };
    let scaling = step::scaling(&r, setting);
    // the ratio's two runs: this step's wall, and twice the batch from the sweep
    // where it ran it (the same run, so the same number)
    let twice = r.batch.saturating_mul(2);
    let twice_wall = sweep
        .iter()
        .find(|p| p.batch == twice)
        .map(|p| p.wall)
        .unwrap_or_else(|| {
            step::wall(
                &LlmRun { batch: twice, ..r },
                setting,
                step::KvRead::AsWritten,
            )
        });
    let double_batch = crate::model::overhead::doubling(st.wall, twice_wall);
    if !drawn {
        return LlmView {
            step: st,
            double_batch,
            scaling,
            spread_notes,
            sweep,
            sentences: Vec::new(),
            fit: String::new(),
            spec,
        };
    }
    let mut sentences = vec![
        advice::where_time_goes(&st),
        advice::double_batch_with(&r, &st, double_batch),
    ];
    if r.phase == Phase::Decode {
        sentences.push(advice::critical(&st, setting, hw_name));
    }
    sentences.extend(
        advice::counterfactuals(&r, setting, &st)
            .into_iter()
            .map(|c| c.2),
    );
    sentences.extend(
        advice::parallel_counterfactuals(&r, setting, &st, &scaling)
            .into_iter()
            .map(|c| c.2),
    );
    sentences.extend(advice::parallel(&r, &st, &scaling));
    if r.par.dep > 1 {
        sentences.push(super::vs_tp::against_tp(&r, setting).map_or_else(
            || super::vs_tp::no_tp_words(&r),
            |v| super::vs_tp::vs_tp_words(&v, r.batch),
        ));
    }
    LlmView {
        fit: advice::capacity(&st, hw_name),
        step: st,
        double_batch,
        scaling,
        sweep,
        sentences,
        spread_notes,
        spec,
    }
}
