//! State → model: each widget's one model entry point, read from the state.
//!
//! The declaration table (`state::widgets`) says what a widget's controls are;
//! this module says what the model makes of them. Each widget calls one method
//! here once per state change (through `ui::Ctx::live`) and draws what it
//! returns: `llm_view`, `dit_view`, `bert_view`, `overhead_view`,
//! `fusion_view`, `microbench_view`. The counterfactual re-runs, sweeps and
//! comparisons a widget shows are computed inside the model's entry point, never
//! in the component. The runs (`llm_run`, `dit_run`) are the inputs those entry
//! points take, also used by "Compare GPUs" and the tests.

use super::State;
use crate::model::bert::{self, BertView};
use crate::model::dit::{self, DitView};
use crate::model::fusion::{self, FusionView};
use crate::model::llm::{self, view::LlmView};
use crate::model::overhead::{self, OverheadView, Remedies};
use crate::model::{microbench, Dtype};

/// The microbenchmark's dtype: the one asked for (`mb_dtype`) and the one shown,
/// which falls back to fp32 (every preset has it) where the preset lacks the one
/// asked for; the widget says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MbDtype {
    pub wanted: Dtype,
    pub used: Dtype,
}

impl State {
    pub fn mb_dtype(&self) -> MbDtype {
        let wanted = self.widgets.mb_dtype;
        let used = if self.hw.supports(wanted) {
            wanted
        } else {
            Dtype::Fp32
        };
        MbDtype { wanted, used }
    }

    /// The microbenchmark widget's model: its own dtype and size on the explorer's
    /// hardware (bandwidth, pointwise ceiling, launch overhead).
    pub fn microbench(&self) -> microbench::Bench {
        microbench::bench(
            &self.machine(),
            self.mb_dtype().used,
            f64::from(self.widgets.mb_elems),
            self.hw.name,
        )
    }

    /// Everything the microbenchmark widget shows: [`State::microbench`] and
    /// the measured sweeps beside it ([`microbench::widget`]).
    pub fn microbench_view(&self) -> microbench::BenchView {
        microbench::widget(self.microbench(), self.hw.id)
    }

    /// The `llm` widget's run as its controls ask for it: its model (the custom
    /// shape from its keys, KV heads at most the heads), controls and spread,
    /// before [`llm::spread`] checks the spread against the model.
    fn llm_asked(&self) -> llm::LlmRun {
        let w = &self.widgets;
        let config = w.llm_model.config().map(|c| c.0).unwrap_or(llm::LlmConfig {
            layers: w.llm_layers,
            hidden: w.llm_hidden,
            heads: w.llm_heads,
            kv_heads: w.llm_kv_heads.min(w.llm_heads),
            ffn: w.llm_ffn,
            vocab: w.llm_vocab,
            experts: 1,
            top_k: 1,
        });
        llm::LlmRun {
            config,
            phase: w.llm_phase,
            batch: w.llm_batch,
            context: w.llm_context,
            wdtype: w.llm_wdtype,
            kvdtype: w.llm_kvdtype,
            graphs: w.llm_graphs,
            flash: w.llm_flash,
            par: self.llm_parallel(),
        }
    }

    /// The `llm` widget's run: [`State::llm_asked`] with the spread the model
    /// can split.
    pub fn llm_run(&self) -> llm::LlmRun {
        let r = self.llm_asked();
        llm::LlmRun {
            par: llm::spread(&r.config, r.par).0,
            ..r
        }
    }

    /// The spread the `llm` controls ask for, before [`llm::spread`] checks it
    /// against the model.
    pub fn llm_parallel(&self) -> llm::Parallel {
        let w = &self.widgets;
        llm::Parallel {
            tp: w.llm_tp.n(),
            pp: w.llm_pp.n(),
            link: self.llm_link(),
            overlap: w.llm_overlap,
        }
    }

    /// Everything the `llm` widget shows ([`llm::view::widget`]); what is only
    /// drawn where `drawn`.
    pub fn llm_view(&self, drawn: bool) -> LlmView {
        llm::view::widget(&self.llm_asked(), &self.setting(), &self.hw_name(), drawn)
    }

    /// The `dit` widget's run.
    pub fn dit_run(&self) -> dit::DitRun {
        let w = &self.widgets;
        dit::DitRun {
            model: w.dit_model,
            res: w.dit_res,
            batch: w.dit_batch,
            flash: w.dit_flash,
            graphs: w.dit_graphs,
            fused: w.dit_fused,
            sp: w.dit_sp.n(),
            // kept on one GPU too: the scaling chart uses it
            link: self.dit_link(),
        }
    }

    /// Everything the `dit` widget shows ([`dit::widget`]); what is only drawn
    /// where `drawn`.
    pub fn dit_view(&self, drawn: bool) -> DitView {
        dit::widget(&self.dit_run(), &self.setting(), drawn)
    }

    /// Everything the `bert` widget shows: BERT-base with the widget's batch,
    /// sequence length and fusion on the explorer's machine ([`bert::widget`]).
    pub fn bert_view(&self) -> BertView {
        let w = &self.widgets;
        bert::widget(w.bert_batch, w.bert_seq, &self.machine(), w.bert_fused)
    }

    /// The `overhead` widget's remedy toggles, as the model's flags.
    pub fn overhead_remedies(&self) -> Remedies {
        let w = &self.widgets;
        Remedies {
            cuda_graphs: w.graphs,
            compiled: w.compiled,
            cpp: w.cpp,
        }
    }

    /// Everything the `overhead` widget shows: the explorer's step issued with
    /// the widget's remedies ([`overhead::widget`]).
    pub fn overhead_view(&self) -> OverheadView {
        overhead::widget(&self.setting(), self.overhead_remedies())
    }

    /// The elements of the explorer's tensor (batch × hidden): the `fusion`
    /// widget's chain runs on it.
    pub fn elements(&self) -> f64 {
        f64::from(self.batch) * f64::from(self.hidden)
    }

    /// Everything the `fusion` widget shows: its chain on the explorer's tensor
    /// and machine ([`fusion::widget`]).
    pub fn fusion_view(&self) -> FusionView {
        fusion::widget(self.widgets.fusion_n, self.elements(), &self.machine())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microbench_defaults_to_the_essay_and_falls_back_to_fp32() {
        use crate::model::{hardware, Regime};
        // default: A100, fp32, 2^28 elements (1 GiB) whatever the explorer's dtype
        let s = super::super::State::default();
        assert_eq!(s.dtype, Dtype::Bf16);
        let b = s.microbench();
        assert_eq!(b.dtype, Dtype::Fp32);
        assert_eq!(b.bytes(), f64::from(1u32 << 30));
        assert!((b.crossover.repeat - 50.16).abs() < 0.01);
        assert_eq!(b.regime_at_1(), Regime::Memory);
        // fp8 on an A100: shown as fp32, the choice kept for presets that have it
        let mut s = s;
        s.widgets.mb_dtype = Dtype::Fp8;
        assert_eq!(
            s.mb_dtype(),
            MbDtype {
                wanted: Dtype::Fp8,
                used: Dtype::Fp32
            }
        );
        assert_eq!(s.microbench().dtype, Dtype::Fp32);
        let h100 = hardware::preset("h100-sxm").unwrap();
        s.select_preset(h100);
        assert_eq!(s.mb_dtype().used, Dtype::Fp8);
        assert!(s.microbench().crossover.repeat < b.crossover.repeat / 2.0);
        // the M2 Max has fp32 only
        s.select_preset(hardware::preset("m2-max").unwrap());
        assert_eq!(s.microbench().dtype, Dtype::Fp32);
        // small sizes: overhead-bound at repeat 1
        s.widgets.mb_elems = 1 << 10;
        assert_eq!(s.microbench().regime_at_1(), Regime::Overhead);
    }

    /// States over every preset with each widget's controls varied (batch,
    /// phase, model, spread, switches, resolution, remedies, chain length): the
    /// one-call tests' sweep.
    fn states() -> Vec<State> {
        use crate::model::dit::DitModel;
        use crate::model::hardware::PRESETS;
        use crate::model::llm::{LlmModel, Phase};
        use crate::state::widgets::{Choice, Degree, LinkChoice};
        let mut out = vec![State::default()];
        for (i, hw) in PRESETS.iter().enumerate() {
            let mut s = State::default();
            s.select_preset(hw);
            let bit = |b: usize| (i >> b) & 1 == 1;
            let w = &mut s.widgets;
            w.llm_model = LlmModel::ALL[i % LlmModel::ALL.len()];
            w.llm_phase = if i % 3 == 2 {
                Phase::Prefill
            } else {
                Phase::Decode
            };
            w.llm_batch = [1, 7, 64, 4096][i % 4];
            w.llm_context = [4096, 512, 32768][i % 3];
            w.llm_graphs = bit(0);
            w.llm_flash = !bit(2);
            w.llm_tp = Degree::ALL[(i + 1) % 4];
            w.llm_pp = Degree::ALL[(i / 3) % 3];
            w.llm_link = LinkChoice::ALL[i % LinkChoice::ALL.len()];
            w.llm_overlap = bit(1);
            w.llm_heads = [32, 12, 40][i % 3];
            w.dit_model = DitModel::ALL[i % 2];
            w.dit_res = [256, 9, 512, 49][i % 4];
            w.dit_batch = [1, 4, 32][i % 3];
            w.dit_flash = !bit(1);
            w.dit_fused = bit(0);
            w.dit_graphs = bit(2);
            w.dit_sp = Degree::ALL[i % 4];
            w.dit_link = LinkChoice::ALL[(i + 3) % LinkChoice::ALL.len()];
            w.graphs = bit(0);
            w.compiled = bit(1);
            w.cpp = bit(2);
            w.fusion_n = [1, 2, 8, 1024][i % 4];
            w.bert_batch = [1, 8, 64][i % 3];
            w.bert_seq = [128, 512, 8][i % 3];
            w.bert_fused = bit(1);
            s.batch = [256, 1, 4096][i % 3];
            out.push(s);
        }
        out
    }

    /// The `llm` widget's one call gives what its separate model calls gave,
    /// bit for bit: the step, the double-batch ratio (its two runs read from the
    /// step and the sweep), the scaling and batch sweeps, every sentence in the
    /// widget's order, the fit and the spread's notes.
    #[test]
    fn llm_view_is_what_the_separate_calls_gave() {
        use crate::model::llm::{advice, step, Phase};
        for s in states() {
            let (set, name) = (s.setting(), s.hw_name());
            let v = s.llm_view(true);
            let r = s.llm_run();
            let st = step::run(&r, &set);
            let sc = step::scaling(&r, &set);
            let ratio = step::double_batch_ratio(&r, &set);
            let mut said = vec![
                advice::where_time_goes(&st),
                advice::double_batch(&r, &set, &st),
            ];
            if r.phase == Phase::Decode {
                said.push(advice::critical(&st, &set, &name));
            }
            said.extend(
                advice::counterfactuals(&r, &set, &st)
                    .into_iter()
                    .map(|c| c.2),
            );
            said.extend(
                advice::parallel_counterfactuals(&r, &set, &st, &sc)
                    .into_iter()
                    .map(|c| c.2),
            );
            said.extend(advice::parallel(&r, &st, &sc));
            let q = super::super::url::encode(&s);
            assert_eq!(v.step, st, "{q}");
            assert_eq!(v.double_batch.to_bits(), ratio.to_bits(), "{q}");
            assert_eq!(v.scaling, sc, "{q}");
            assert_eq!(v.sweep, step::sweep(&r, &set), "{q}");
            assert_eq!(v.sentences, said, "{q}");
            assert_eq!(v.fit, advice::capacity(&st, &name), "{q}");
            assert_eq!(v.spread_notes, llm::spread(&r.config, s.llm_parallel()).1);
            // off the screen: the readouts' parts alike, nothing only drawn
            let off = s.llm_view(false);
            assert_eq!((&off.step, &off.scaling), (&v.step, &v.scaling), "{q}");
            assert_eq!(off.double_batch.to_bits(), ratio.to_bits(), "{q}");
            assert_eq!(off.spread_notes, v.spread_notes);
            assert!(off.sweep.is_empty() && off.sentences.is_empty() && off.fit.is_empty());
        }
    }

    /// The `dit` widget's one call gives what its separate calls gave.
    #[test]
    fn dit_view_is_what_the_separate_calls_gave() {
        use crate::model::dit::advice;
        for s in states() {
            let set = s.setting();
            let v = s.dit_view(true);
            let r = s.dit_run();
            let st = dit::run(&r, &set);
            let sc = dit::scaling(&r, &set);
            let mut said = vec![advice::split(&st), advice::double_batch(&r, &set)];
            said.extend(advice::switches(&r, &set).into_iter().map(|x| x.2));
            said.extend(advice::parallel(&st, &sc));
            let q = super::super::url::encode(&s);
            assert_eq!(v.step, st, "{q}");
            let ratio = dit::double_batch_ratio(&r, &set);
            assert_eq!(v.double_batch.to_bits(), ratio.to_bits(), "{q}");
            assert_eq!(v.scaling, sc, "{q}");
            assert_eq!(v.sentences, said, "{q}");
            assert_eq!(v.by_resolution, advice::by_resolution(&r, &set), "{q}");
            let off = s.dit_view(false);
            assert_eq!((&off.step, &off.scaling), (&v.step, &v.scaling), "{q}");
            assert_eq!(off.double_batch.to_bits(), ratio.to_bits(), "{q}");
            assert!(off.sentences.is_empty() && off.by_resolution.is_empty());
        }
    }

    /// The `overhead`, `fusion`, `bert` and `microbench` widgets' one calls give
    /// what their separate calls gave.
    #[test]
    fn small_widget_views_are_what_the_separate_calls_gave() {
        for s in states() {
            let (shape, m, rem) = (s.shape(), s.machine(), s.overhead_remedies());
            let q = super::super::url::encode(&s);
            let o = s.overhead_view();
            assert_eq!(o.run, overhead::run(&shape, &m, rem), "{q}");
            let ratio = overhead::double_batch_ratio(&shape, &m, rem);
            assert_eq!(o.double_batch.to_bits(), ratio.to_bits(), "{q}");
            assert_eq!(o.limit, overhead::limit(&shape, &m, rem), "{q}");
            assert_eq!(o.one_add, overhead::one_add(1000.0, &m), "{q}");
            assert_eq!(o.python_flops, overhead::flops_per_python_op(s.flops));
            let (n, e) = (s.widgets.fusion_n, f64::from(s.batch) * f64::from(s.hidden));
            let f = s.fusion_view();
            assert_eq!(f.compare, fusion::compare(n, e, &m), "{q}");
            assert_eq!(f.remat, fusion::remat(n, e, &m), "{q}");
            let w = &s.widgets;
            let p = bert::profile(
                &bert::BertConfig::BASE,
                w.bert_batch,
                w.bert_seq,
                &m,
                w.bert_fused,
            );
            let b = s.bert_view();
            assert_eq!(b.flop, p.flop_shares(), "{q}");
            assert_eq!(b.runtime, p.runtime_shares(), "{q}");
            assert_eq!(b.slowdown, p.slowdown_vs_matmul(), "{q}");
            assert_eq!(b.profile, p, "{q}");
            let mb = s.microbench_view();
            assert_eq!(mb.bench, s.microbench(), "{q}");
            let (id, dt, n) = (s.hw.id, mb.bench.dtype, mb.bench.n);
            let series = crate::model::measured::series_for(id, dt, n);
            assert_eq!(mb.overlays.len(), series.len(), "{q}");
            assert_eq!(mb.max_error.is_some(), !series.is_empty(), "{q}");
            assert_eq!(mb.elsewhere, crate::model::measured::elsewhere(id, dt, n));
        }
    }
}
