//! Widget `llm`: a decoder-only LLM's decode step or prefill on the explorer's
//! hardware: kernels on the roofline, where the time goes (weights, KV cache,
//! activations, compute, overhead), whether it fits in memory, the batch sweep with
//! the critical batch, and what graphs, FlashAttention and fp8 weights would buy.
//! Every sentence comes from `model::llm::advice`.

use super::roofline::RooflineData;
use super::scaling::label;
use crate::geom;
use crate::model::llm::step::{self, LlmStep, SweepPoint};
use crate::model::llm::view::LlmView;
use crate::model::llm::{LlmModel, Phase};
use crate::model::{units, Bound};
use crate::state::widgets::llm::{self as spec, field};
use crate::ui::chart::backend::{AnyBackend, AnyError};
use crate::ui::chart::plot::{csv, plot_with, shared, Marks, Plot, PlotCanvas};
use crate::ui::chart::{self, Area, Look};
use crate::ui::kit::controls::{GpuPicker, LogSlider, Select, Toggle};
use crate::ui::kit::later::Later;
use crate::ui::kit::readout::Readout;
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The KV cache's series: the palette's pink.
const KV_COLOR: RGBColor = crate::ui::chart::palette::rgb(crate::ui::chart::palette::PINK);

/// The split's parts: CSS class and words, in the bar's order.
const PARTS: &[(&str, &str)] = &[
    ("memory", "weight loading"),
    ("kv", "KV-cache loading"),
    ("vector", "activations"),
    ("compute", "compute"),
    ("overhead", "overhead"),
    ("comm", "communication"),
];

/// A split's seconds in [`PARTS`]' order.
fn seconds(p: &step::Split) -> [f64; 6] {
    [
        p.weights,
        p.kv,
        p.activations,
        p.compute,
        p.overhead,
        p.comm,
    ]
}

/// The split bar's parts: class, label, seconds.
fn parts(st: &LlmStep) -> Vec<(&'static str, &'static str, f64)> {
    PARTS
        .iter()
        .zip(seconds(&st.split))
        .map(|(&(c, l), t)| (c, l, t))
        .collect()
}

/// The scaling chart: the step on 1–8 tensor-parallel GPUs.
fn scaling_chart(v: &LlmView) -> super::scaling::Scaling {
    let (r, sc) = (&v.step.run, &v.scaling);
    super::scaling::Scaling {
        parts: PARTS,
        points: sc
            .points
            .iter()
            .map(|p| super::scaling::Point {
                gpus: p.gpus,
                wall: p.wall,
                parts: seconds(&p.split).to_vec(),
                fits: p.fits,
            })
            .collect(),
        current: r.par.gpus(),
        stops: sc.stops_paying.map(|t| t * r.par.pp),
        link: r.par.link.name,
    }
}

#[component]
pub fn Llm(ctx: Ctx) -> impl IntoView {
    // the widget's one model call (`state::widgets::llm::view`): the step, the ratio, the
    // scaling and batch sweeps, the fit and every sentence, computed once per
    // change on the live path (its figures are readouts; off-screen only they)
    // and drawn held while the widget is off-screen; the rest only reads its
    // fields
    let live = ctx.live_drawn(spec::view);
    let v = ctx.held(live);
    let st = Memo::new(move |_| v.with(|v| v.step.clone()));
    let embed = crate::ui::kit::ctx::in_embed();
    let fits = Memo::new(move |_| st.with(|s| s.fits));
    view! {
        <LlmControls ctx=ctx live=live/>
        <Later name="llm-readouts">
        <LlmReadouts ctx=ctx live=live st=st fits=fits/>
        </Later>
        <Later name="llm-spec">
        <super::llm_spec::LlmSpec ctx=ctx live=live v=v/>
        </Later>
        <Later name="llm-fit">
        <LlmFit ctx=ctx v=v st=st fits=fits/>
        </Later>
        <Later name="llm-sweep">
        <LlmSweep ctx=ctx v=v/>
        </Later>
        <Later name="llm-scaling">
        <LlmScaling ctx=ctx v=v/>
        </Later>
        <Later name="llm-roofline">
        <LlmRoofline ctx=ctx st=st/>
        </Later>
        <Later name="llm-measured">
        // the model against measured runs: in an embed, behind a disclosure
        {if embed {
            view! {
                <details class="llm-measured-fold">
                    <summary>"The model against measured decode speeds (gpt-fast, NVIDIA NIM): tables and a chart"</summary>
                    <super::llm_measured::VsMeasured ctx=ctx/>
                </details>
            }.into_any()
        } else {
            view! { <super::llm_measured::VsMeasured ctx=ctx/> }.into_any()
        }}
        </Later>
        <Later name="llm-layer">
        <LlmLayer st=st embed=embed/>
        </Later>
    }
}

/// The widget's controls: the model and the step, the spread over GPUs (with
/// what the model could not split), and the custom shape's sliders.
#[component]
fn LlmControls(ctx: Ctx, live: Memo<LlmView>) -> impl IntoView {
    let spread_notes = Memo::new(move |_| live.with(|v| v.spread_notes.clone()));
    // on one GPU the link's typed figures move nothing in the step: greyed out
    let link_off = Signal::derive(move || {
        live.with(|v| crate::state::widgets::common::link_off(v.step.run.par.gpus()))
    });
    let custom = Memo::new(move |_| ctx.state.with(|s| s.widgets.llm.model == LlmModel::Custom));
    view! {
        <div class="controls-inline">
            <GpuPicker ctx=ctx id="llm-hw" range=crate::state::widgets::llm::range/>
            <Select ctx=ctx field=field::model/>
            <Select ctx=ctx field=field::phase/>
            <Select ctx=ctx field=field::wdtype/>
            <Select ctx=ctx field=field::kvdtype/>
            <LogSlider ctx=ctx field=field::batch/>
            <LogSlider ctx=ctx field=field::context/>
            <Toggle ctx=ctx flag=field::graphs/>
            <Toggle ctx=ctx flag=field::flash/>
        </div>
        <div class="controls-inline" id="llm-parallel">
            <Select ctx=ctx field=field::tp/>
            <Select ctx=ctx field=field::pp/>
            <Select ctx=ctx field=field::dep/>
            <Select ctx=ctx field=spec::LINK_SELECT/>
            <LogSlider ctx=ctx field=spec::LINK_BW off=link_off/>
            <LogSlider ctx=ctx field=spec::LINK_LAT off=link_off/>
            <Toggle ctx=ctx flag=field::overlap/>
        </div>
        {move || spread_notes.with(|n| n.iter().map(|t| view! {
            <p class="field-error llm-spread" role="status">{t.clone()}</p>
        }).collect_view())}
        {move || custom.get().then(|| view! {
            <div class="controls-inline" id="llm-custom">
                <LogSlider ctx=ctx field=field::layers/>
                <LogSlider ctx=ctx field=field::hidden/>
                <LogSlider ctx=ctx field=field::heads/>
                <LogSlider ctx=ctx field=field::kv_heads/>
                <LogSlider ctx=ctx field=field::ffn/>
                <LogSlider ctx=ctx field=field::vocab/>
                <LogSlider ctx=ctx field=field::experts/>
                <LogSlider ctx=ctx field=field::active_experts/>
                <LogSlider ctx=ctx field=field::expert_ffn/>
                <LogSlider ctx=ctx field=field::shared_experts/>
            </div>
        })}
    }
}

/// The model's sentence and the readouts (`data-metric`), from the live value,
/// marked hypothetical when the state does not fit.
#[component]
fn LlmReadouts(
    ctx: Ctx,
    live: Memo<LlmView>,
    st: Memo<LlmStep>,
    fits: Memo<bool>,
) -> impl IntoView {
    let readout = move |name: &'static str,
                        raw: fn(&LlmStep) -> String,
                        text: fn(&LlmStep) -> String| {
        view! { <Readout name=name raw=Signal::derive(move || live.with(|v| raw(&v.step))) text=Signal::derive(move || live.with(|v| text(&v.step)))/> }
    };
    view! {
        <p class="note">
            {move || ctx.view.with(|s| st.with(|st| {
                let src = s.widgets.llm.model.config().map(|c| c.1)
                    .unwrap_or("custom shape from the sliders (KV heads at most the heads)");
                let c = &st.run.config;
                format!(
                    "{} parameters ({} active per token), {} per step on {}, matmuls at {} {}. Config: {src}.",
                    units::words(c.total_params()), units::words(c.active_params()),
                    units::count(st.kernel_count, "kernel", "kernels"), s.hw_name(),
                    units::si(st.machine.matmul_flops, "FLOP/s"), s.beyond_roof_words())
            }))}
        </p>
        {move || (!fits.get()).then(|| view! {
            <p class="notice llm-hypothetical" role="status">"Hypothetical: this state does not fit in the GPU's memory (see below), so its figures say what it would do if it did."</p>
        })}
        <dl class="metrics" class:hypothetical=move || !fits.get() aria-live="polite">
            <div class="metric"><dt>"Time per step"</dt><dd>{readout("llm_step_s", |s| s.wall.to_string(), |s| units::si(s.wall, "s"))}</dd></div>
            <div class="metric"><dt>"Tokens per second"</dt><dd>{readout("llm_tokens_per_s", |s| s.tokens_per_s.to_string(), |s| units::sig3(s.tokens_per_s))}</dd></div>
            <div class="metric"><dt>{label::LIMITS}</dt><dd>{readout("llm_regime", |s| s.regime.id().to_string(), |s| s.regime.label().to_string())}</dd>
                <dd class="note llm-halvings">"halve one cost: "
                    {readout("llm_speedup_flops2", |s| s.limit.flops2.to_string(), |s| format!("2× FLOP/s {}×", units::sig3(s.limit.flops2)))}", "
                    {readout("llm_speedup_bw2", |s| s.limit.bw2.to_string(), |s| format!("2× bandwidth {}×", units::sig3(s.limit.bw2)))}", "
                    {readout("llm_speedup_overhead_half", |s| s.limit.overhead_half.to_string(), |s| format!("half the CPU overhead {}×", units::sig3(s.limit.overhead_half)))}", "
                    {readout("llm_speedup_link2", |s| s.limit.link2.to_string(), |s| format!("2× link {}×", units::sig3(s.limit.link2)))}
                </dd></div>
            <div class="metric"><dt>"GPUs"</dt><dd>{readout("llm_gpus", |s| s.run.par.gpus().to_string(), |s| s.run.par.gpus().to_string())}</dd></div>
            <div class="metric"><dt>{label::COMM_SHARE}</dt><dd>{readout("llm_comm_share", |s| (s.split.comm / s.wall.max(f64::MIN_POSITIVE)).to_string(), |s| units::percent(s.split.comm / s.wall.max(f64::MIN_POSITIVE)))}</dd></div>
            <div class="metric"><dt>"Experts' all-to-all share"</dt><dd>{readout("llm_dep_a2a_share", |s| (s.a2a / s.wall.max(f64::MIN_POSITIVE)).to_string(), |s| units::percent(s.a2a / s.wall.max(f64::MIN_POSITIVE)))}</dd></div>
            <div class="metric"><dt>"Memory per GPU"</dt><dd>{readout("llm_per_gpu_bytes", |s| (s.weight_bytes + s.kv_bytes).to_string(), |s| units::si(s.weight_bytes + s.kv_bytes, "B"))}</dd></div>
            <div class="metric"><dt>"Fewest GPUs that fit (tensor parallel)"</dt><dd>{readout("llm_min_tp", |s| s.fit.min_tp.map(|t| t.to_string()).unwrap_or_default(), |s| s.fit.min_tp.map(|t| t.to_string()).unwrap_or_else(|| if s.capacity > 0.0 { "more than 8".into() } else { "unknown".into() }))}</dd></div>
            <div class="metric"><dt>{label::EFFICIENCY}</dt><dd><Readout name="llm_scaling_efficiency" raw=Signal::derive(move || live.with(|v| v.scaling.efficiency.value.to_string()))
                text=Signal::derive(move || live.with(|v| units::percent(v.scaling.efficiency.value)))/></dd></div>
            <div class="metric"><dt>{crate::model::parallel::STOPS_LABEL}</dt><dd><Readout name="llm_tp_stops_paying" raw=Signal::derive(move || live.with(|v| v.scaling.stops_paying.map(|t| t.to_string()).unwrap_or_default()))
                text=Signal::derive(move || live.with(|v| crate::model::parallel::stops_words(v.scaling.stops_paying)))/></dd></div>
            <div class="metric"><dt>{label::DOUBLE_BATCH}</dt><dd><Readout name="llm_double_batch_ratio" raw=Signal::derive(move || live.with(|v| v.double_batch.to_string()))
                text=Signal::derive(move || live.with(|v| units::sig3(v.double_batch)))/></dd></div>
            <div class="metric"><dt>"Weights per GPU"</dt><dd>{readout("llm_weight_bytes", |s| s.weight_bytes.to_string(), |s| units::si(s.weight_bytes, "B"))}</dd></div>
            <div class="metric"><dt>"KV cache per GPU"</dt><dd>{readout("llm_kv_bytes", |s| s.kv_bytes.to_string(), |s| units::si(s.kv_bytes, "B"))}</dd></div>
            <div class="metric"><dt>"Parameters"</dt><dd>{readout("llm_params_total", |s| s.run.config.total_params().to_string(), |s| units::words(s.run.config.total_params()))}</dd></div>
            <div class="metric"><dt>"Active per token"</dt><dd>{readout("llm_params_active", |s| s.run.config.active_params().to_string(), |s| units::words(s.run.config.active_params()))}</dd></div>
            <div class="metric"><dt>"Experts read per MoE layer"</dt><dd>{readout("llm_experts_touched", |s| s.experts_touched.to_string(), |s| units::sig3(s.experts_touched))}</dd></div>
            <div class="metric"><dt>"Critical batch"</dt><dd>{readout("llm_critical_batch", |s| s.critical_batch.to_string(), |s| units::sig3(s.critical_batch))}</dd></div>
            <div class="metric"><dt>"Fits in memory"</dt><dd>{readout("llm_fits", |s| if s.fits { "1" } else { "0" }.to_string(), |s| if s.fits { "yes" } else { "no" }.to_string())}</dd></div>
            <div class="metric"><dt>"Largest batch that fits"</dt><dd>{readout("llm_max_batch", |s| s.fit.max_batch.map(|b| b.to_string()).unwrap_or_default(), |s| s.fit.max_batch.map(|b| b.to_string()).unwrap_or_else(|| "unknown".into()))}</dd></div>
            <div class="metric"><dt>"Critical batch within reach"</dt><dd>{readout("llm_critical_reachable", |s| s.fit.critical_reachable.map(|r| if r { "1" } else { "0" }.to_string()).unwrap_or_default(), |s| match s.fit.critical_reachable { Some(true) => "yes", Some(false) => "no", None => "unknown" }.to_string())}</dd></div>
        </dl>
    }
}

/// The weights and the KV cache against the GPU's memory, the comparison with
/// other GPUs, where the step's time goes and the advice.
#[component]
fn LlmFit(ctx: Ctx, v: Memo<LlmView>, st: Memo<LlmStep>, fits: Memo<bool>) -> impl IntoView {
    let sentences = Memo::new(move |_| v.with(|v| v.sentences.clone()));
    let fit_text = Memo::new(move |_| v.with(|v| v.fit.clone()));
    let bar = move || {
        st.with(|st| {
            let w = st.wall.max(f64::MIN_POSITIVE);
            parts(st)
                .into_iter()
                .map(|(class, label, t)| {
                    view! { <div class=format!("share {class}") style=format!("width:{:.3}%", 100.0 * t / w)
                        title=format!("{label}: {}", units::si(t, "s"))></div> }
                })
                .collect_view()
        })
    };
    let bar_label = move || {
        st.with(|st| {
            let w = st.wall.max(f64::MIN_POSITIVE);
            let list: Vec<String> = parts(st)
                .iter()
                .map(|(_, l, t)| format!("{l} {}", units::percent(t / w)))
                .collect();
            format!("Where the step's time goes: {}", list.join(", "))
        })
    };
    let mem = move || {
        st.with(|st| {
            let cap = if st.capacity > 0.0 {
                st.capacity
            } else {
                st.weight_bytes + st.kv_bytes
            };
            let total = (st.weight_bytes + st.kv_bytes).max(cap);
            let pct = |b: f64| 100.0 * b / total.max(f64::MIN_POSITIVE);
            view! {
                <div class="share memory" style=format!("width:{:.3}%", pct(st.weight_bytes))
                    title=format!("weights {}", units::si(st.weight_bytes, "B"))></div>
                <div class="share kv" style=format!("width:{:.3}%", pct(st.kv_bytes))
                    title=format!("KV cache {}", units::si(st.kv_bytes, "B"))></div>
            }
        })
    };
    view! {
        <div class="llm-memory" class:notice=move || !fits.get()>
            <div class="share-bar" role="img" aria-label=move || fit_text.get()>{mem}</div>
            <p class="note" id="llm-fit">{move || fit_text.get()}</p>
        </div>
        <super::compare::CompareGpus ctx=ctx prefix="llm" rate="tokens/s" row=spec::compare_row/>
        <div class="share-bar" role="img" aria-label=bar_label>{bar}</div>
        <ul class="legend">
            <li><span class="swatch memory"></span>"weight loading"</li>
            <li><span class="swatch kv"></span>"KV-cache loading"</li>
            <li><span class="swatch vector"></span>"activations"</li>
            <li><span class="swatch compute"></span>"compute"</li>
            <li><span class="swatch region overhead"></span>"overhead"</li>
            <li><span class="swatch comm"></span>{label::COMM_SWATCH}</li>
        </ul>
        // not `Lines`: it would link leptos's keyed `For` into the page's .wasm
        // (~7 KB gzipped), which nothing else there uses
        <ul class="llm-advice" aria-live="polite">
            {move || sentences.get().into_iter().map(|t| view! { <li>{t}</li> }).collect_view()}
        </ul>
    }
}

/// The batch sweep chart and its note.
#[component]
fn LlmSweep(ctx: Ctx, v: Memo<LlmView>) -> impl IntoView {
    let sweep = Memo::new(move |_| {
        v.with(|v| Sweep {
            points: v.sweep.clone(),
            batch: v.step.run.batch,
            critical: v.step.critical_batch,
            max_batch: v.step.fit.max_batch,
            prefill: v.step.run.phase == Phase::Prefill,
        })
    });
    view! {
        <PlotCanvas ctx=ctx id="llm-canvas" data=shared(sweep)
            label=Signal::derive(move || format!(
                "Batch sweep: time per step and tokens per second against the batch, log scales; the critical batch is about {}{}.",
                units::sig3(sweep.with(|s| s.critical)),
                sweep.with(|s| s.oom_from().map(|x| format!("; batches above {x} do not fit in memory (greyed)")).unwrap_or_default())))/>
        <p class="note">"Left: the time per step (black) and its parts, coloured as in the bar above; right: tokens per second. The violet line is the critical batch (decode only); grey, beyond the black line, the batches that do not fit in memory."</p>
    }
}

/// The step on 1–8 GPUs, chart and note.
#[component]
fn LlmScaling(ctx: Ctx, v: Memo<LlmView>) -> impl IntoView {
    let scale_chart = Memo::new(move |_| v.with(scaling_chart));
    view! {
        <PlotCanvas ctx=ctx id="llm-scaling" data=shared(scale_chart)
            label=Signal::derive(move || scale_chart.with(|c| format!(
                "Time per step against the GPU count (tensor parallel) over {}, with its parts; {}.",
                c.link,
                c.stops.map(|g| format!("adding GPUs stops paying {}", crate::model::parallel::stops_words(Some(g)))).unwrap_or_else(|| "every doubling up to 8 pays".into()))))/>
        <p class="note">"The step on 1, 2, 4 and 8 GPUs (those that split the heads evenly): black the time per step, the lines its parts as in the bar above, teal the time spent waiting on the other GPUs. A doubling that buys less than 1.1× no longer pays (dashed)."</p>
    }
}

/// One layer's kernels and the whole step on the roofline of this machine, with
/// its legend.
#[component]
fn LlmRoofline(ctx: Ctx, st: Memo<LlmStep>) -> impl IntoView {
    // one layer's kernels and the whole step on the roofline of this machine
    let roof = Memo::new(move |_| st.with(roof_of));
    view! {
        <PlotCanvas ctx=ctx id="llm-roofline" data=shared(roof)
            label=Signal::derive(move || st.with(|s| format!(
                "One layer's kernels on the roofline of this machine; the whole step is {}.",
                s.regime.label())))/>
        <ul class="legend">
            <li><span class="swatch memory"></span>"memory roof"</li>
            <li><span class="swatch compute"></span>"matmul ceiling"</li>
            <li><span class="swatch vector"></span>"pointwise ceiling"</li>
            <li>"● a kernel of one layer   × the whole step, overhead included"</li>
            {move || st.with(|s| (s.link_bytes > 0.0).then(|| view! {
                <li><span class="swatch comm"></span>"the link's roof; ▲ the step at its FLOPs per byte sent over the link (a collective's latency is not on any roof)"</li>
            }))}
        </ul>
    }
}

/// One layer's kernels as a table, folded when long (an eager layer) or in an
/// embed.
#[component]
fn LlmLayer(st: Memo<LlmStep>, embed: bool) -> impl IntoView {
    view! {
        <details class="llm-layer-list" open=move || !embed && st.with(|s| s.layer.len() <= OPEN_ROWS)>
            <summary>{move || st.with(|s| {
                let ops: f64 = s.layer.iter().map(|r| r.dispatches).sum();
                format!("One transformer layer: {}, {} dispatched", units::count(s.layer.len() as u32, "kernel", "kernels"), units::amount(ops, "op", "ops"))
            })}</summary>
            <div class="table-scroll" tabindex="0" role="region" aria-label="One layer's kernels, scrollable">
                <table class="kernels llm-layer">
                    <caption>"One transformer layer's kernels on the roofline"</caption>
                    <thead><tr><th scope="col">"kernel"</th><th scope="col">"time"</th><th scope="col">"intensity"</th><th scope="col">"bound by"</th></tr></thead>
                    <tbody>
                        {move || st.with(|s| s.layer.iter().map(|row| {
                            let (class, b) = match row.bound {
                                _ if row.floored => ("overhead", "fixed cost"),
                                Bound::Compute => ("compute", "compute"),
                                Bound::Memory => ("memory", "memory"),
                            };
                            view! { <tr><th scope="row">{row.name}</th><td>{units::si(row.time, "s")}</td>
                                <td>{format!("{} FLOP/B", units::sig3(row.intensity))}</td><td class=class>{b}</td></tr> }
                        }).collect_view())}
                    </tbody>
                </table>
            </div>
        </details>
    }
}

/// One layer's kernels and the whole step on the roofline of its machine (the
/// `serve` widget draws its decode step the same way).
pub(super) fn roof_of(st: &LlmStep) -> RooflineData {
    let (kernels, step, link) = crate::model::llm::roof::of(st);
    RooflineData {
        m: st.machine,
        kernels,
        step: Some(step),
        measured: None,
        link,
    }
}

/// The layer's kernel table is open by default up to this many rows (a compiled
/// layer); an eager layer's long list starts folded.
const OPEN_ROWS: usize = 16;

/// The batch sweep chart's data.
#[derive(Clone, PartialEq)]
struct Sweep {
    points: Vec<SweepPoint>,
    batch: u32,
    critical: f64,
    /// The largest batch that fits (`None`: memory unknown); the sweep beyond it
    /// is greyed, with the out-of-memory line at it.
    max_batch: Option<u32>,
    prefill: bool,
}

impl Sweep {
    /// The batch from which the sweep runs out of memory, if it does within it.
    fn oom_from(&self) -> Option<f64> {
        self.max_batch
            .filter(|&m| self.points.iter().any(|p| p.batch > m))
            .map(|m| f64::from(m).max(1.0))
    }
}

impl Plot for Sweep {
    fn height(&self, w: f64) -> f64 {
        crate::ui::chart::two_panel_height(w)
    }
    plot_with!(marks render);
    fn csv(&self) -> String {
        csv(
            &[
                "batch",
                "step_s",
                "tokens_per_s",
                "weights_s",
                "kv_s",
                "activations_s",
                "compute_s",
                "overhead_s",
                "fits",
            ],
            self.points.iter().map(|p| {
                vec![
                    p.batch.to_string(),
                    p.wall.to_string(),
                    p.tokens_per_s.to_string(),
                    p.split.weights.to_string(),
                    p.split.kv.to_string(),
                    p.split.activations.to_string(),
                    p.split.compute.to_string(),
                    p.split.overhead.to_string(),
                    u8::from(p.fits).to_string(),
                ]
            }),
        )
    }
}

/// A line of the sweep: name, colour, value.
type Series = (&'static str, RGBColor, fn(&SweepPoint) -> f64);

/// Decades around the positive values.
fn decades(vals: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = vals
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        return (1e-6, 1.0);
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
    (lo, hi)
}

/// The batch sweep's x range.
const XR: (f64, f64) = (1.0, 1e4);

fn render(
    s: &Sweep,
    root: Area<AnyBackend<'_>>,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let (w, h) = root.dim_in_pixel();
    let (a, b) = if f64::from(w) / look.dpr < 560.0 {
        root.split_vertically(h / 2)
    } else {
        root.split_horizontally(w / 2)
    };
    draw_step_times(&a, s, look, marks)?;
    draw_tokens(&b, s, look, marks)
}

fn err(e: DrawingAreaErrorKind<AnyError>) -> String {
    e.to_string()
}

/// The chart a sweep panel draws in.
type Ch<'a, 'b> = ChartContext<'a, AnyBackend<'b>, chart::LogLog>;

impl Sweep {
    /// The critical batch is drawn (decode only, inside the x range).
    fn shows_critical(&self) -> bool {
        !self.prefill && self.critical >= XR.0 && self.critical <= XR.1
    }
}

/// Beyond the largest batch that fits: a grey veil over what cannot run and
/// the out-of-memory line at its edge; and the critical batch's line.
fn draw_markers(ch: &mut Ch, s: &Sweep, (lo, hi): (f64, f64), look: &Look) -> Result<(), String> {
    let pal = look.pal;
    if let Some(x) = s.oom_from() {
        let band = Rectangle::new([(x, lo), (XR.1, hi)], pal.muted.mix(0.28).filled());
        ch.draw_series(std::iter::once(band)).map_err(err)?;
        let line = LineSeries::new(vec![(x, lo), (x, hi)], pal.ink.stroke_width(look.px(1.5)));
        ch.draw_series(line).map_err(err)?;
    }
    if s.shows_critical() {
        ch.draw_series(LineSeries::new(
            vec![(s.critical, lo), (s.critical, hi)],
            pal.vector.stroke_width(look.px(1.5)),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// The left (or upper) panel: seconds per step and its parts against the
/// batch, each batch a point a reader can ask about.
fn draw_step_times(
    a: &Area<AnyBackend<'_>>,
    s: &Sweep,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    let largest = |p: &SweepPoint| {
        p.split
            .weights
            .max(p.split.kv)
            .max(p.split.compute)
            .max(p.split.overhead)
    };
    let yt = decades(s.points.iter().flat_map(|p| [p.wall, largest(p) * 0.5]));
    let mut ch = chart::log_log(a, XR, yt, "batch (sequences)", "seconds per step", look)?;
    marks.area(&chart::plot_rect(&ch), XR, yt);
    let series: [Series; 5] = [
        ("step", pal.ink, |p| p.wall),
        ("weights", pal.memory, |p| p.split.weights),
        ("KV cache", KV_COLOR, |p| p.split.kv),
        ("compute", pal.compute, |p| p.split.compute),
        ("overhead", pal.muted, |p| p.split.overhead),
    ];
    for (_, color, get) in series {
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|p| (f64::from(p.batch), get(p)))
            .filter(|p| p.1 >= yt.0 && p.1 <= yt.1)
            .collect();
        let width = if color == pal.ink { 2.5 } else { 1.5 };
        ch.draw_series(LineSeries::new(pts, color.stroke_width(look.px(width))))
            .map_err(err)?;
    }
    draw_markers(&mut ch, s, yt, look)?;
    for p in &s.points {
        let at = (f64::from(p.batch), p.wall);
        if at.1 < yt.0 || at.1 > yt.1 {
            continue;
        }
        let current = p.batch == s.batch;
        marks.point(
            ch.backend_coord(&at),
            if current { "llm-current" } else { "llm-batch" },
            at,
            "",
            vec![
                format!(
                    "batch {}{}",
                    p.batch,
                    if current { " (current)" } else { "" }
                ),
                format!("step {}", units::si(p.wall, "s")),
                format!("{} tokens/s", units::sig3(p.tokens_per_s)),
                if p.fits {
                    "fits in memory".into()
                } else {
                    "does not fit in memory".into()
                },
            ],
        );
        let size = look.px(if current { 5.0 } else { 3.0 });
        let dot = if p.fits { pal.ink } else { pal.muted };
        ch.draw_series(std::iter::once(Circle::new(at, size, dot.filled())))
            .map_err(err)?;
    }
    Ok(())
}

/// The right (or lower) panel: tokens per second against the batch, with the
/// markers' labels.
fn draw_tokens(
    b: &Area<AnyBackend<'_>>,
    s: &Sweep,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    let yr = decades(s.points.iter().map(|p| p.tokens_per_s));
    let mut ch = chart::log_log(b, XR, yr, "batch (sequences)", "tokens per second", look)?;
    let pts: Vec<(f64, f64)> = s
        .points
        .iter()
        .map(|p| (f64::from(p.batch), p.tokens_per_s))
        .collect();
    ch.draw_series(LineSeries::new(
        pts.clone(),
        pal.compute.stroke_width(look.px(2.5)),
    ))
    .map_err(err)?;
    ch.draw_series(s.points.iter().zip(&pts).map(|(p, &at)| {
        let dot = if p.fits { pal.compute } else { pal.muted };
        Circle::new(at, look.px(3.0), dot.filled())
    }))
    .map_err(err)?;
    draw_markers(&mut ch, s, yr, look)?;
    draw_marker_labels(b, &ch, s, &pts, yr, look, marks)
}

/// The markers' labels, placed clear of the curve, its dots, the lines and
/// each other (`geom::marker_labels`).
fn draw_marker_labels(
    b: &Area<AnyBackend<'_>>,
    ch: &Ch,
    s: &Sweep,
    pts: &[(f64, f64)],
    yr: (f64, f64),
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    let size = 11.0 * look.dpr;
    let mut labels: Vec<(&'static str, String, RGBColor, f64)> = Vec::new();
    if s.shows_critical() {
        labels.push((
            "critical batch",
            format!("critical batch ≈ {}", units::sig3(s.critical)),
            pal.vector,
            s.critical,
        ));
    }
    if let Some(x) = s.oom_from() {
        labels.push(("out of memory", "out of memory".into(), pal.ink, x));
    }
    let px = |p: (f64, f64)| chart::to_px(ch, p);
    let curve: Vec<[(f64, f64); 2]> = pts.windows(2).map(|w| [px(w[0]), px(w[1])]).collect();
    let r = f64::from(look.px(3.0));
    let dots: Vec<geom::Rect> = pts
        .iter()
        .map(|&p| {
            let (x, y) = px(p);
            geom::Rect::at(x - r, y - r, 2.0 * r, 2.0 * r)
        })
        .collect();
    let markers: Vec<(f64, (f64, f64), bool)> = labels
        .iter()
        .map(|l| (px((l.3, yr.0)).0, chart::text_size(&l.1, size), true))
        .collect();
    let boxes = geom::marker_labels(
        &markers,
        &curve,
        &dots,
        chart::plot_rect(ch),
        3.0 * look.dpr,
    );
    let (ox, oy) = {
        let (x, y) = b.get_pixel_range();
        (f64::from(x.start), f64::from(y.start))
    };
    for ((name, text, color, _), bx) in labels.iter().zip(&boxes) {
        let Some(bx) = bx else { continue };
        let at = ((bx.x0 - ox).round() as i32, (bx.y0 - oy).round() as i32);
        let end = ((bx.x1 - ox).round() as i32, (bx.y1 - oy).round() as i32);
        b.draw(&Rectangle::new([at, end], pal.bg.mix(0.75).filled()))
            .map_err(err)?;
        b.draw(&Text::new(
            text.as_str(),
            at,
            look.font(11.0, color).pos(Pos::new(HPos::Left, VPos::Top)),
        ))
        .map_err(err)?;
        marks.label(name, bx);
    }
    Ok(())
}
