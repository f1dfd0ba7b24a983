//! Widget `serve`: serving under load (`model::serve`), a
//! continuous-batching engine in steady state on the `llm` widget's model,
//! dtypes, GPU and spread: it reads them from `s.widgets.llm` (one state; its
//! selects below are the same fields under their own element ids). Whether
//! decode is replayed from CUDA graphs is its own key, `serve_graphs` (on by
//! default, as the engines it prices run it), not the `llm` widget's
//! `llm_graphs`. Its own keys (`serve_*`) and its one model call, [`view`].

use crate::model::serve::{self, limits as l, view::ServeView, ServeRun};
use crate::state::data::State;
use crate::state::fields::Field;
use crate::state::params::{params, ChoiceField};
use crate::state::spec::{inputs, NativeOnly, Reads, Spec};

params! {
    in serve;
    isl: Int[l::ISL.0, l::ISL.1] = 1000, "serve_isl", "Input tokens per request";
    osl: Int[l::OSL.0, l::OSL.1] = 1000, "serve_osl", "Output tokens per request";
    /// A closed loop: a finished request is replaced at once. With `llm_dep`
    /// above 1, the deployment's, split evenly over the ranks.
    c: Int[l::CONCURRENCY.0, l::CONCURRENCY.1] = 16, "serve_c", "Requests in flight (concurrency)";
    /// Chunked prefill: the tokens one engine step may carry, the decode tokens first and
    /// prompt tokens in what is left (vLLM's `max_num_batched_tokens`, TensorRT-LLM's
    /// `max_num_tokens`; with `llm_dep` above 1, on each rank).
    chunk: Int[l::CHUNK.0, l::CHUNK.1] = serve::measured::CHUNK, "serve_chunk", "Prefill chunk (tokens per step)";
    /// The KV cache may cap the running batch lower. With `llm_dep` above 1,
    /// the deployment's, split evenly over the ranks.
    max_seqs: Int[l::MAX_SEQS.0, l::MAX_SEQS.1] = serve::measured::MAX_SEQS, "serve_max_seqs", "Most sequences running (sequences)";
    /// The engine's CPU time per step that the GPU waits for (the default:
    /// TensorRT-LLM's executor with its overlap scheduler,
    /// https://github.com/NVIDIA/TensorRT-LLM/issues/13957).
    engine_us: Int[l::ENGINE_US.0, l::ENGINE_US.1] = serve::ENGINE_US as u32, "serve_engine_us", "Engine CPU time per step (µs)";
    /// Decode replayed from CUDA graphs, as TensorRT-LLM, vLLM and SGLang run it
    /// by default (0: every kernel launched from the CPU, eager).
    graphs: Flag = true, "serve_graphs", "CUDA graphs (decode replayed from a graph)";
    /// Replaces the GPU's cited on-demand price (RunPod's list price for the H100
    /// SXM and H200; other GPUs have none, and the cost stays empty until one is
    /// typed); typing the GPU's own price back drops the key.
    usd_h: Milli[USD_MILLI.0, USD_MILLI.1] = 0, "serve_usd_h", "Price per GPU-hour ($)";
}

/// `serve_usd_h`: $0.01 to $1000 per GPU-hour, in thousandths of a dollar; 0
/// (absent) is the GPU's own cited price (`model::serve::price`).
pub const USD_MILLI: (u32, u32) = (10, 1_000_000);

/// The price in use: typed, else the GPU's cited one (`None`: neither).
pub fn price(s: &State) -> Option<f64> {
    match s.widgets.serve.usd_h {
        0 => serve::price(s.setting.hw).map(|p| p.usd_per_gpu_h),
        t => Some(f64::from(t) / 1000.0),
    }
}

/// The price's control: a slider and box in dollars per GPU-hour showing the
/// price in use (the GPU's own until one is typed; where it has none, $1 with
/// the cost readouts empty); typing the GPU's own price back clears the key.
pub const PRICE: Field = Field {
    id: "serve_usd_h",
    label: "Price per GPU-hour",
    box_unit: "$",
    base_unit: "$",
    scale: 1.0,
    min: USD_MILLI.0 as f64 / 1000.0,
    max: USD_MILLI.1 as f64 / 1000.0,
    integer: false,
    get: |s| price(s).unwrap_or(1.0),
    set: |s, v| {
        let own = serve::price(s.setting.hw).map(|p| p.usd_per_gpu_h);
        let t = (v * 1000.0).round();
        s.widgets.serve.usd_h = if Some(t) == own.map(|o| (o * 1000.0).round()) || !t.is_finite() {
            0
        } else {
            t.clamp(f64::from(USD_MILLI.0), f64::from(USD_MILLI.1)) as u32
        };
    },
};

/// The `llm` widget's selects as this widget shows them: the same state, their
/// own element ids.
pub const MODEL: ChoiceField<crate::model::llm::LlmModel> = ChoiceField {
    id: "serve-llm_model",
    ..super::llm::field::model
};
pub const WDTYPE: ChoiceField<crate::model::llm::WeightDtype> = ChoiceField {
    id: "serve-llm_wdtype",
    ..super::llm::field::wdtype
};
pub const KVDTYPE: ChoiceField<crate::model::llm::KvDtype> = ChoiceField {
    id: "serve-llm_kvdtype",
    ..super::llm::field::kvdtype
};
pub const TP: ChoiceField<super::common::Degree> = ChoiceField {
    id: "serve-llm_tp",
    ..super::llm::field::tp
};
pub const DEP: ChoiceField<super::common::Degree> = ChoiceField {
    id: "serve-llm_dep",
    ..super::llm::field::dep
};
/// The run as the controls ask for it: the `llm` widget's run (the spread as
/// asked) with this widget's CUDA graphs, lengths, concurrency and engine.
pub fn asked(s: &State) -> ServeRun {
    let w = &s.widgets.serve;
    ServeRun {
        llm: crate::model::llm::LlmRun {
            graphs: w.graphs,
            ..super::llm::asked(s)
        },
        isl: w.isl,
        osl: w.osl,
        concurrency: w.c,
        chunk: w.chunk,
        max_seqs: w.max_seqs,
        engine_s: f64::from(w.engine_us) * 1e-6,
        spec: super::llm::spec(s),
    }
}

/// THE WIDGET'S ONE MODEL CALL: everything it shows ([`serve::view::widget`]);
/// what is only drawn where `drawn`.
pub fn view(s: &State, drawn: bool) -> ServeView {
    let typed = match s.widgets.serve.usd_h {
        0 => None,
        t => Some(f64::from(t) / 1000.0),
    };
    serve::view::widget(&asked(s), &s.beyond(), typed, drawn)
}

/// The headlines (output tokens per second, inter-token latency) at the low
/// and the high end of a measured GPU's spread ([`State::beyond_ends`]: two
/// steady states, remembered), in words; `None` on a datasheet preset or where
/// the model does not fit.
pub fn range(s: &State) -> Option<String> {
    let [x, y] = ends(s)?;
    Some(format!(
        "Across the measured spread: {}, inter-token latency {}.",
        crate::model::mygpu::range(x.tok_s, y.tok_s, "tok/s"),
        crate::model::mygpu::range(x.itl, y.itl, "s")
    ))
}

/// [`range`]'s steady states at the low and the high end.
pub fn ends(s: &State) -> Option<[serve::Serve; 2]> {
    let [lo, hi] = s.beyond_ends()?;
    let a = asked(s);
    let r = ServeRun {
        llm: crate::model::llm::LlmRun {
            par: crate::model::llm::spread(&a.llm.config, a.llm.par).0,
            ..a.llm
        },
        ..a
    };
    Some([serve::run(&r, &lo)?, serve::run(&r, &hi)?])
}

pub const SPEC: Spec = Spec {
    id: "serve",
    title: "Serving under load: time to first token, inter-token latency, throughput and cost",
    // 10,360 px of content at 720 px wide once the TensorRT-LLM overview
    // table held its 22 DEP rows (embed.test.mjs measured it)
    embed_height: 10900,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| view(s, true).serve.map_or(1.0, |v| v.itl))),
    on_gpu: None,
    reads: Some(Reads {
        inputs: |s| {
            inputs(s, false, |w, k| {
                k.llm = w.llm;
                k.serve = w.serve;
            })
        },
        same_view: NativeOnly::new(|a, b| view(a, true) == view(b, true)),
    }),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware;
    use crate::model::llm::KvDtype;
    use crate::model::verdict::{HELPS_FROM, WORSE_FROM};
    use crate::state::registry::tests::states;
    use crate::state::url::{decode, encode};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
    }

    /// The states the serving tests run: the shared ones at a few loads,
    /// prompt lengths, engines and price, CUDA graphs on and off.
    fn loads() -> Vec<State> {
        let mut out = states();
        for (i, s) in out.iter_mut().enumerate() {
            let w = &mut s.widgets.serve;
            w.c = [1, 16, 300, 4096][i % 4];
            w.isl = [1000, 128, 20000][i % 3];
            w.engine_us = [580, 0][i % 2];
            w.graphs = i % 3 != 1;
            w.usd_h = [0, 2500][i % 2];
        }
        out
    }

    /// A change made to a state.
    type Change<'a> = dyn Fn(&mut State) + 'a;

    /// Each remedy the view lists is the widget's own view at the state with
    /// that change made: its figures after are that view's, its gain the
    /// largest of the headline figures' gains (TTFT, ITL and cost before ÷
    /// after, throughput per GPU after ÷ before), and it helps exactly when
    /// that gain reaches the page's bar with no figure much worse.
    #[test]
    fn a_remedy_is_the_view_at_the_state_it_changes() {
        let mut seen = 0;
        for s in loads() {
            let (v, q) = (view(&s, true), encode(&s));
            let Some(now) = v.serve else { continue };
            let w = s.widgets.serve;
            let changes: [(&str, &Change<'_>); 5] = [
                ("graphs", &|t| t.widgets.serve.graphs = true),
                ("flash", &|t| t.widgets.llm.flash = true),
                ("fp8_kv", &|t| t.widgets.llm.kvdtype = KvDtype::Fp8),
                ("larger_chunk", &|t| {
                    t.widgets.serve.chunk = (w.chunk * 2).min(l::CHUNK.1)
                }),
                ("smaller_chunk", &|t| {
                    t.widgets.serve.chunk = (w.chunk / 2).max(l::CHUNK.0)
                }),
            ];
            for (id, change) in changes {
                let r = v.remedies.iter().find(|r| r.id == id).unwrap();
                let Some(after) = r.after else {
                    assert_eq!((r.speedup, r.helps), (1.0, false), "{q}: {id}");
                    continue;
                };
                let mut t = s.clone();
                change(&mut t);
                let a = view(&t, false);
                let b = a.serve.unwrap();
                assert!(
                    close(after.itl, b.itl) && close(after.ttft, b.ttft),
                    "{q}: {id}"
                );
                let mut gains = vec![
                    now.ttft / b.ttft,
                    now.itl / b.itl,
                    b.tok_s_gpu / now.tok_s_gpu,
                ];
                if let (Some(x), Some(y)) = (v.usd_per_mtok, a.usd_per_mtok) {
                    gains.push(x / y);
                }
                let best = gains.iter().copied().fold(0.0, f64::max);
                assert!(
                    close(r.speedup, best),
                    "{q}: {id}: {} against {best}",
                    r.speedup
                );
                let worse = gains.iter().any(|g| g * WORSE_FROM < 1.0);
                assert_eq!(r.helps, best >= HELPS_FROM && !worse, "{q}: {id}");
                seen += 1;
            }
        }
        assert!(seen > 20, "{seen}");
    }

    /// What the view must show for its keys: the cost scales with the price
    /// typed and is empty without one; decode's CUDA graphs are this
    /// widget's own key, not the llm widget's; the sweep passes through the
    /// load now, and more requests in flight never shorten the time between
    /// tokens. Off the screen it publishes the same figures and draws nothing.
    #[test]
    fn the_view_follows_its_keys() {
        for s in loads() {
            let (v, q) = (view(&s, true), encode(&s));
            let mut t = s.clone();
            t.widgets.serve.usd_h = 1000;
            let one = view(&t, false).usd_per_mtok;
            t.widgets.serve.usd_h = 2000;
            let two = view(&t, false).usd_per_mtok;
            match v.serve {
                Some(_) => assert!(close(two.unwrap(), 2.0 * one.unwrap()), "{q}"),
                None => assert!(one.is_none() && two.is_none(), "{q}"),
            }
            let mut t = s.clone();
            t.widgets.llm.graphs = !s.widgets.llm.graphs;
            assert_eq!(view(&t, true), v, "{q}");
            t.widgets.serve.graphs = !s.widgets.serve.graphs;
            assert_eq!(
                view(&t, false).run.llm.graphs,
                t.widgets.serve.graphs,
                "{q}"
            );
            assert_eq!(v.run.llm.graphs, s.widgets.serve.graphs, "{q}");
            if let Some(now) = v.serve {
                let here = v
                    .sweep
                    .iter()
                    .find(|p| p.concurrency == s.widgets.serve.c)
                    .unwrap();
                assert!(
                    close(here.itl, now.itl) && close(here.ttft, now.ttft),
                    "{q}"
                );
                for p in v.sweep.windows(2) {
                    assert!(
                        p[1].itl >= p[0].itl * (1.0 - 1e-12),
                        "{q}: {}",
                        p[1].concurrency
                    );
                }
            }
            let off = view(&s, false);
            assert_eq!(
                (off.serve, off.usd_per_mtok),
                (v.serve, v.usd_per_mtok),
                "{q}"
            );
            assert!(off.sweep.is_empty() && off.sentences.is_empty() && off.remedies.is_empty());
        }
    }

    #[test]
    fn the_keys_round_trip_and_bad_values_are_refused() {
        let q = "serve_isl=5000&serve_osl=500&serve_c=250&serve_chunk=4096&serve_max_seqs=128&serve_engine_us=0&serve_usd_h=2.5&serve_graphs=0";
        let (s, n) = decode(q);
        assert!(n.is_empty(), "{n:?}");
        let w = &s.widgets.serve;
        assert_eq!(
            (w.isl, w.osl, w.c, w.chunk, w.max_seqs, w.engine_us, w.usd_h),
            (5000, 500, 250, 4096, 128, 0, 2500)
        );
        assert!(!w.graphs && !asked(&s).llm.graphs);
        assert!(encode(&s).contains("serve_graphs=0"));
        assert_eq!(decode(&encode(&s)), (s.clone(), vec![]));
        assert_eq!(price(&s), Some(2.5));
        for (q, why) in [
            ("serve_c=0", "greater than zero"),
            ("serve_c=5000", "out of range"),
            ("serve_isl=lots", "not a number"),
            ("serve_engine_us=-1", "negative"),
            ("serve_usd_h=0.001", "out of range"),
            ("serve_usd_h=0", "greater than zero"),
            ("serve_graphs=maybe", "1 or 0"),
        ] {
            let (s, n) = decode(q);
            assert_eq!(n.len(), 1, "{q}");
            assert!(n[0].reason.contains(why), "{q}: {}", n[0].reason);
            assert_eq!(s.widgets.serve, Params::default(), "{q}");
        }
        // the defaults are a moderate chat load: 1000 in, 1000 out, 16 in flight
        let d = Params::default();
        assert_eq!(
            (d.isl, d.osl, d.c, d.chunk, d.max_seqs, d.engine_us, d.usd_h),
            (1000, 1000, 16, 8192, 256, 580, 0)
        );
        // decode replayed from CUDA graphs, whatever the llm widget's own key says
        assert!(d.graphs);
        let (s, _) = decode("llm_graphs=0");
        assert!(!s.widgets.llm.graphs && asked(&s).llm.graphs);
        assert!(!encode(&State::default()).contains("serve_graphs"));
        assert_eq!(f64::from(d.engine_us), serve::ENGINE_US);
    }

    #[test]
    fn the_price_is_the_gpus_own_until_typed() {
        let mut s = State::default();
        s.select_preset(hardware::preset("h100-sxm").unwrap());
        assert_eq!(price(&s), Some(3.49));
        assert_eq!((PRICE.get)(&s), 3.49);
        (PRICE.set)(&mut s, 2.0);
        assert_eq!((s.widgets.serve.usd_h, price(&s)), (2000, Some(2.0)));
        // typing the GPU's own price back drops the key
        (PRICE.set)(&mut s, 3.49);
        assert_eq!(s.widgets.serve.usd_h, 0);
        // a GPU with no cited price: no cost until one is typed
        s.select_preset(hardware::preset("mi300x").unwrap());
        assert_eq!(price(&s), None);
        assert!(view(&s, false).usd_per_mtok.is_none());
        (PRICE.set)(&mut s, 1.5);
        assert!(view(&s, false).usd_per_mtok.is_some());
        // the box's range is the URL's
        assert!(PRICE.parse_box("0.001").is_err() && PRICE.parse_box("1001").is_err());
        assert_eq!(PRICE.parse_box("0.01"), Ok(0.01));
    }

    #[test]
    fn its_selects_are_the_llm_widgets_fields() {
        let mut s = State::default();
        (MODEL.set)(&mut s, crate::model::llm::LlmModel::Llama3_70b);
        (TP.set)(&mut s, crate::state::widgets::common::Degree::Two);
        let l = &s.widgets.llm;
        assert_eq!(
            (l.model, l.tp.n()),
            (crate::model::llm::LlmModel::Llama3_70b, 2)
        );
        assert_eq!(
            asked(&s).llm.config,
            crate::model::llm::LlmModel::Llama3_70b.config_or_toy()
        );
        for id in [MODEL.id, WDTYPE.id, KVDTYPE.id, TP.id] {
            assert!(id.starts_with("serve-llm_"), "{id}");
        }
    }
}
