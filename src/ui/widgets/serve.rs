//! Widget `serve`: serving under load on the `llm` widget's model, GPU
//! and spread (one state): time to first token, inter-token latency, throughput
//! (all GPUs, per GPU, per user) and cost against concurrency; the knee where the
//! running batch is full; the decode step on the roofline; what would help; the
//! model against published runs. Everything comes from the one model call
//! (`state::widgets::serve::view`).

use crate::model::serve::published::{self, Published, Row};
use crate::model::serve::view::{usd, ServeView, SweepPoint};
use crate::model::serve::Serve as Steady;
use crate::model::units;
use crate::state::widgets::serve as st;
use crate::ui::chart::backend::{AnyBackend, AnyError};
use crate::ui::chart::plot::{csv, plot_with, shared, Marks, Plot, PlotCanvas};
use crate::ui::chart::{self, Area, Look};
use crate::ui::kit::controls::{GpuPicker, LogSlider, Select, Toggle};
use crate::ui::kit::readout::{Lines, Readout, Share, ShareBar};
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use plotters::prelude::*;

/// A readout's raw text from the steady state (empty until it has one).
type Raw = fn(&Steady) -> f64;

#[component]
pub fn Serve(ctx: Ctx) -> impl IntoView {
    let live = ctx.live_drawn(st::view);
    let v = ctx.held(live);
    let sentences = Memo::new(move |_| v.with(|v| v.sentences.clone()));
    let chart = Memo::new(move |_| v.with(Curves::of));
    // what would help and the trade-offs, two lists (the model's verdict)
    let remedies = Memo::new(move |_| v.with(|v| items(v, false)));
    let trade_offs = Memo::new(move |_| v.with(|v| items(v, true)));
    // the decode step one request sees on the roofline; where nothing fits, the
    // last one drawn stays (the notice says why)
    let roof = Memo::new(move |prev: Option<&super::roofline::RooflineData>| {
        v.with(|v| v.step.as_ref().map(super::llm::roof_of))
            .or_else(|| prev.cloned())
            .unwrap_or_else(|| super::roofline::RooflineData {
                m: ctx.view.with(|s| s.setting.machine()),
                kernels: Vec::new(),
                step: None,
                measured: None,
                link: None,
            })
    });
    // the rows held to targets and their largest error: fixed data, computed once
    let vs = published::targets();
    let max_error = vs.max_error;
    let fits = Memo::new(move |_| live.with(|v| v.serve.is_some()));
    let readout = |name: &'static str, raw: Raw, text: fn(f64) -> String| {
        view! { <Readout name=name
        raw=Signal::derive(move || live.with(|v| v.serve.map(|s| raw(&s).to_string()).unwrap_or_default()))
        text=Signal::derive(move || live.with(|v| v.serve.map(|s| text(raw(&s))).unwrap_or_else(|| "—".into())))/> }
    };
    let secs = |x: f64| units::si(x, "s");
    let rate = |x: f64| format!("{} tok/s", units::sig3(x));
    view! {
        <div class="controls-inline">
            <GpuPicker ctx=ctx id="serve-hw" range=crate::state::widgets::serve::range/>
            <Select ctx=ctx field=st::MODEL/>
            <Select ctx=ctx field=st::WDTYPE/>
            <Select ctx=ctx field=st::KVDTYPE/>
            <Select ctx=ctx field=st::TP/>
            <Select ctx=ctx field=st::DEP/>
            <Toggle ctx=ctx flag=st::field::graphs/>
        </div>
        <p class="note">{move || ctx.view.with(|s| format!("The model, GPU, dtypes, tensor parallelism and DEP are the LLM widget's (one state: moving them here moves them there); CUDA graphs are this widget's own; every step is priced {}.", s.beyond_roof_words()))}</p>
        <div class="controls-inline">
            <LogSlider ctx=ctx field=st::field::c/>
            <LogSlider ctx=ctx field=st::field::isl/>
            <LogSlider ctx=ctx field=st::field::osl/>
            <LogSlider ctx=ctx field=st::field::chunk/>
            <LogSlider ctx=ctx field=st::field::max_seqs/>
            <LogSlider ctx=ctx field=st::field::engine_us/>
            <LogSlider ctx=ctx field=st::PRICE/>
        </div>
        {move || live.with(|v| v.spread_notes.iter().map(|t| view! {
            <p class="field-error serve-spread" role="status">{t.clone()}</p>
        }).collect_view())}
        {move || (!fits.get()).then(|| view! {
            <p class="notice serve-none" role="status">{move || sentences.with(|s| s.first().cloned().unwrap_or_default())}</p>
        })}
        <dl class="metrics" aria-live="polite">
            <div class="metric"><dt>"Time to first token"</dt><dd>{readout("serve_ttft_s", |s| s.ttft, secs)}</dd></div>
            <div class="metric"><dt>"Inter-token latency"</dt><dd>{readout("serve_itl_s", |s| s.itl, secs)}</dd></div>
            <div class="metric"><dt>"End to end"</dt><dd>{readout("serve_e2e_s", |s| s.e2e, secs)}</dd></div>
            <div class="metric"><dt>"Output tokens/s, all GPUs"</dt><dd>{readout("serve_tok_s", |s| s.tok_s, rate)}</dd></div>
            <div class="metric"><dt>"per GPU"</dt><dd>{readout("serve_tok_s_gpu", |s| s.tok_s_gpu, rate)}</dd></div>
            <div class="metric"><dt>"per user (1 / ITL)"</dt><dd>{readout("serve_tok_s_user", |s| s.tok_s_user, rate)}</dd></div>
            <div class="metric"><dt>"Mean running batch"</dt><dd>{readout("serve_batch", |s| s.batch, units::sig3)}</dd></div>
            <div class="metric"><dt>"KV cache holds"</dt><dd><Readout name="serve_kv_max_seqs"
                raw=Signal::derive(move || live.with(|v| v.serve.and_then(|s| s.kv_max_seqs).map(|k| k.to_string()).unwrap_or_default()))
                text=Signal::derive(move || live.with(|v| v.serve.and_then(|s| s.kv_max_seqs).map(|k| format!("{k} sequences")).unwrap_or_else(|| "—".into())))/></dd></div>
            <div class="metric"><dt>"TTFT spent queueing"</dt><dd>{readout("serve_queue_share", Steady::queue_share, units::percent)}</dd></div>
            <div class="metric"><dt>"What limits the decode step"</dt><dd><Readout name="serve_regime"
                raw=Signal::derive(move || live.with(|v| v.serve.map(|s| s.regime.id().to_string()).unwrap_or_default()))
                text=Signal::derive(move || live.with(|v| v.serve.map(|s| s.regime.label().to_string()).unwrap_or_else(|| "—".into())))/></dd></div>
            <div class="metric"><dt>"Cost per million output tokens"</dt><dd><Readout name="serve_usd_per_mtok"
                raw=Signal::derive(move || live.with(|v| v.usd_per_mtok.map(|x| x.to_string()).unwrap_or_default()))
                text=Signal::derive(move || live.with(|v| v.usd_per_mtok.map(usd).unwrap_or_else(|| "type a price".into())))/>
                <span class="note">{move || live.with(|v| v.usd_per_mtok_in_out.map(|x| format!(" ({} per million in + out)", usd(x))).unwrap_or_default())}</span></dd></div>
            <div class="metric"><dt>"Model vs published, largest error"</dt><dd><Readout name="serve_vs_measured_max_error"
                raw=max_error.to_string() text=units::percent(max_error)/></dd></div>
        </dl>
        <p class="serve-graphs">{move || live.with(|v| v.graphs_note.clone())}</p>
        <p class="note serve-price">{move || live.with(|v| format!("Price: {}.", v.price_source))}</p>
        <ul class="serve-advice" aria-live="polite">
            <Lines items=sentences/>
        </ul>
        <PlotCanvas ctx=ctx id="serve-curve" data=shared(chart)
            label=Signal::derive(move || chart.with(Curves::label))/>
        <p class="note">"Left: output tokens per second per GPU against tokens per second per user (1 / ITL) as the requests in flight go from 1 to 4096, the current point larger (the chart InferenceX draws). Right: time to first token (violet) and inter-token latency (black) against the requests in flight; the black line is the knee, where the running batch is full and requests begin to queue; green, where decode turns compute-bound."</p>
        <PlotCanvas ctx=ctx id="serve-roofline" data=shared(roof)
            label=Signal::derive(move || live.with(ServeView::roofline_label))/>
        <Split v=v/>
        <h3>"What would help, and what would not"</h3>
        <p class="note">"Each setting the model reads, changed once and run again; those that help come first. A change helps when it makes time to first token, inter-token latency, throughput per GPU or cost at least 5 % better and none of them more than 10 % worse; one that buys one by costing another is a trade-off, listed below with both numbers."</p>
        <RemedyList items=remedies class="serve-remedies"/>
        <h3>"Trade-offs"</h3>
        <RemedyList items=trade_offs class="serve-tradeoffs"/>
        <VsPublished vs=vs/>
    }
}

/// A remedy item as the page writes it: its id, speedup, whether it helps,
/// whether it is a trade-off, its sentence.
type Item = [String; 5];

/// The remedies that are (`trade_offs`) or are not trade-offs: those that help
/// first, those that do not apply last, each group in the model's order.
fn items(v: &ServeView, trade_offs: bool) -> Vec<Item> {
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    let mut rs: Vec<_> = v
        .remedies
        .iter()
        .filter(|r| r.verdict.trade_off().is_some() == trade_offs)
        .collect();
    rs.sort_by_key(|r| (!r.helps, r.after.is_none()));
    rs.into_iter()
        .map(|r| {
            [
                r.id.to_string(),
                r.speedup.to_string(),
                flag(r.helps),
                flag(trade_offs),
                r.sentence.clone(),
            ]
        })
        .collect()
}

/// One list of remedy items, each updated in place; "none" when empty.
#[component]
fn RemedyList(items: Memo<Vec<Item>>, class: &'static str) -> impl IntoView {
    let field = move |i: usize, f: usize| {
        items.with(|rs| rs.get(i).map(|r| r[f].clone()).unwrap_or_default())
    };
    view! {
        <ul class=class aria-live="polite">
            <For each=move || 0..items.with(Vec::len) key=|i| *i let:i>
                <li data-remedy=move || field(i, 0) data-speedup=move || field(i, 1)
                    data-helps=move || field(i, 2) data-tradeoff=move || field(i, 3)>{move || field(i, 4)}</li>
            </For>
            {move || items.with(Vec::is_empty).then(|| view! { <li class="none">"None."</li> })}
        </ul>
    }
}

/// The two concurrency charts' data: the sweep, the current point, the knee and
/// where decode turns compute-bound.
#[derive(Clone, PartialEq)]
struct Curves {
    points: Vec<SweepPoint>,
    current: u32,
    knee: Option<u32>,
    compute_from: Option<u32>,
}

impl Curves {
    fn of(v: &ServeView) -> Curves {
        Curves {
            points: v.sweep.clone(),
            current: v.run.concurrency,
            knee: v.knee,
            compute_from: v.compute_from,
        }
    }

    fn label(&self) -> String {
        let knee = self
            .knee
            .map(|k| format!("; the running batch is full from {k} requests in flight, and beyond it requests queue"))
            .unwrap_or_default();
        let compute = match self.compute_from {
            Some(c) => format!("; decode is compute-bound from {c}"),
            None => "; decode never turns compute-bound before the batch is full".into(),
        };
        format!(
            "Output tokens per second per GPU against tokens per second per user, and time to first token and inter-token latency against concurrency 1 to 4096, log scales{knee}{compute}."
        )
    }
}

/// Decades around the positive values.
fn decades(vals: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = vals
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        return (1e-3, 1.0);
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
    (lo, hi)
}

impl Plot for Curves {
    fn height(&self, w: f64) -> f64 {
        crate::ui::chart::two_panel_height(w)
    }
    plot_with!(marks render);
    fn csv(&self) -> String {
        csv(
            &[
                "concurrency",
                "ttft_s",
                "itl_s",
                "tok_s_gpu",
                "tok_s_user",
                "queue_share",
            ],
            self.points.iter().map(|p| {
                vec![
                    p.concurrency.to_string(),
                    p.ttft.to_string(),
                    p.itl.to_string(),
                    p.tok_s_gpu.to_string(),
                    p.tok_s_user.to_string(),
                    p.queue_share.to_string(),
                ]
            }),
        )
    }
}

fn render(
    s: &Curves,
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
    draw_throughput(s, &a, look, marks)?;
    draw_latency(s, &b, look, marks)
}

/// The left (or upper) panel: throughput per GPU against tokens per second
/// per user, one point per concurrency.
fn draw_throughput(
    s: &Curves,
    a: &Area<AnyBackend<'_>>,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    let err = |e: DrawingAreaErrorKind<AnyError>| e.to_string();
    let xr = decades(s.points.iter().map(|p| p.tok_s_user));
    let yr = decades(s.points.iter().map(|p| p.tok_s_gpu));
    let mut ch = chart::log_log(
        a,
        xr,
        yr,
        "tokens/s per user",
        "output tokens/s per GPU",
        look,
    )?;
    marks.area(&chart::plot_rect(&ch), xr, yr);
    let pts: Vec<(f64, f64)> = s
        .points
        .iter()
        .map(|p| (p.tok_s_user, p.tok_s_gpu))
        .collect();
    ch.draw_series(LineSeries::new(
        pts.clone(),
        pal.compute.stroke_width(look.px(2.5)),
    ))
    .map_err(err)?;
    for (p, &at) in s.points.iter().zip(&pts) {
        let current = p.concurrency == s.current;
        marks.point(
            ch.backend_coord(&at),
            if current {
                "serve-current"
            } else {
                "serve-point"
            },
            at,
            "",
            vec![
                format!(
                    "{} in flight{}",
                    p.concurrency,
                    if current { " (current)" } else { "" }
                ),
                format!("{} tok/s per GPU", units::sig3(p.tok_s_gpu)),
                format!("{} tok/s per user", units::sig3(p.tok_s_user)),
            ],
        );
        let size = look.px(if current { 6.0 } else { 3.0 });
        ch.draw_series(std::iter::once(Circle::new(at, size, pal.compute.filled())))
            .map_err(err)?;
    }
    Ok(())
}

/// The right (or lower) panel: TTFT and ITL against concurrency, with the
/// knee and where compute takes over.
fn draw_latency(
    s: &Curves,
    b: &Area<AnyBackend<'_>>,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    let err = |e: DrawingAreaErrorKind<AnyError>| e.to_string();
    let xc = (1.0, 4096.0);
    let yt = decades(s.points.iter().flat_map(|p| [p.ttft, p.itl]));
    let mut ch2 = chart::log_log(b, xc, yt, "requests in flight", "seconds", look)?;
    marks.area(&chart::plot_rect(&ch2), xc, yt);
    for (color, get) in [
        (
            pal.vector,
            (|p: &SweepPoint| p.ttft) as fn(&SweepPoint) -> f64,
        ),
        (pal.ink, |p| p.itl),
    ] {
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|p| (f64::from(p.concurrency), get(p)))
            .collect();
        ch2.draw_series(LineSeries::new(
            pts.clone(),
            color.stroke_width(look.px(2.0)),
        ))
        .map_err(err)?;
        for (p, &at) in s.points.iter().zip(&pts) {
            let current = p.concurrency == s.current;
            let size = look.px(if current { 5.0 } else { 2.5 });
            ch2.draw_series(std::iter::once(Circle::new(at, size, color.filled())))
                .map_err(err)?;
        }
    }
    let vline = |x: f64| vec![(x, yt.0), (x, yt.1)];
    if let Some(k) = s
        .knee
        .filter(|&k| f64::from(k) >= xc.0 && f64::from(k) <= xc.1)
    {
        ch2.draw_series(LineSeries::new(
            vline(f64::from(k)),
            pal.ink.stroke_width(look.px(1.5)),
        ))
        .map_err(err)?;
    }
    if let Some(c) = s.compute_from {
        ch2.draw_series(LineSeries::new(
            vline(f64::from(c)),
            pal.compute.stroke_width(look.px(1.5)),
        ))
        .map_err(err)?;
    }
    for p in &s.points {
        let at = (f64::from(p.concurrency), p.ttft);
        marks.point(
            ch2.backend_coord(&at),
            "serve-latency",
            at,
            "",
            vec![
                format!("{} in flight", p.concurrency),
                format!("TTFT {}", units::si(p.ttft, "s")),
                format!("ITL {}", units::si(p.itl, "s")),
                format!("{} of TTFT queueing", units::percent(p.queue_share)),
            ],
        );
    }
    Ok(())
}

/// Where the decode step's time goes, the engine's CPU beside the GPU's parts.
#[component]
fn Split(v: Memo<ServeView>) -> impl IntoView {
    let parts = Memo::new(move |_| {
        v.with(|v| {
            let (Some(st), Some(s)) = (v.step.as_ref(), v.serve) else {
                return Vec::new();
            };
            let sp = st.split;
            let e = v.run.engine_s;
            vec![
                ("memory", "weight loading", sp.weights),
                ("kv", "KV-cache loading", sp.kv),
                ("vector", "activations", sp.activations),
                ("compute", "compute", sp.compute),
                ("overhead", "launch overhead", sp.overhead),
                ("engine", "the engine's CPU", e),
                ("comm", "communication", sp.comm),
            ]
            .into_iter()
            .filter(|p| p.2 > 0.0 || s.itl <= 0.0)
            .collect::<Vec<_>>()
        })
    });
    let bar = Memo::new(move |_| {
        parts.with(|p| {
            let t = p.iter().map(|x| x.2).sum::<f64>().max(f64::MIN_POSITIVE);
            p.iter()
                .map(|&(class, label, x)| Share {
                    class,
                    title: format!("{label}: {}", units::si(x, "s")),
                    pct: 100.0 * x / t,
                })
                .collect::<Vec<_>>()
        })
    });
    let label = Signal::derive(move || {
        parts.with(|p| {
            let t = p.iter().map(|x| x.2).sum::<f64>().max(f64::MIN_POSITIVE);
            let list: Vec<String> = p
                .iter()
                .map(|(_, l, x)| format!("{l} {}", units::percent(x / t)))
                .collect();
            format!("Where the decode step's time goes: {}", list.join(", "))
        })
    });
    view! {
        <ShareBar parts=bar label=label class="serve-split"/>
        <ul class="legend">
            <li><span class="swatch memory"></span>"weight loading"</li>
            <li><span class="swatch kv"></span>"KV-cache loading"</li>
            <li><span class="swatch vector"></span>"activations"</li>
            <li><span class="swatch compute"></span>"compute"</li>
            <li><span class="swatch region overhead"></span>"launch overhead"</li>
            <li><span class="swatch engine"></span>"the engine's CPU per step"</li>
            <li><span class="swatch comm"></span>"communication"</li>
        </ul>
    }
}

fn pct(e: Option<f64>) -> String {
    e.map_or("—".into(), |e| format!("{:+.1} %", e * 100.0))
}

fn rows_view(rows: &[Row]) -> impl IntoView {
    rows.iter()
        .map(|r| {
            let ms = |x: Option<f64>| x.map_or("—".into(), |x| units::sig3(x * 1e3));
            let raw = |e: Option<f64>| e.map(|e| e.to_string()).unwrap_or_default();
            view! {
                <tr data-row=r.id.clone() data-target=if r.target { "1" } else { "0" }>
                    <th scope="row">{r.name.clone()}</th>
                    <td>{r.gpus.clone()}</td>
                    <td>{format!("{} / {}", r.isl, r.osl)}</td>
                    <td>{r.concurrency}</td>
                    <td>{format!("{} / {}", ms(r.ttft.0), ms(r.ttft.1))}</td>
                    <td data-error=raw(r.ttft_error)>{pct(r.ttft_error)}</td>
                    <td>{format!("{} / {}", ms(r.itl.0), ms(r.itl.1))}</td>
                    <td data-error=raw(r.itl_error)>{pct(r.itl_error)}</td>
                    <td data-steady=r.steady_tok_s.map(|x| x.to_string()).unwrap_or_default()>
                        {format!("{} / {}", units::sig3(r.tok_s.0), r.tok_s.1.map_or("—".into(), units::sig3))}
                        {r.steady_tok_s.map(|x| view! { <span class="steady">{format!(" (steady state {})", units::sig3(x))}</span> })}
                    </td>
                    <td data-error=raw(r.tok_error)>{pct(r.tok_error)}</td>
                </tr>
            }
        })
        .collect_view()
}

const HEAD: &str = "published / model";

/// The model against the published runs: the rows held to targets always, every stored
/// row when asked for (computed then: it runs the model 119 times).
#[component]
fn VsPublished(vs: Published) -> impl IntoView {
    let open = RwSignal::new(false);
    let head = || {
        view! {
            <PublishedHead/>
        }
    };
    view! {
        <div class="table-scroll serve-vs-published" tabindex="0" role="region" aria-label="The serving model against published runs, scrollable">
            <table class="kernels">
                <caption>"The model against NVIDIA NIM (Llama-3.3-70B fp8, TP 2 on 2 × H100, 5000 in / 500 out) and TensorRT-LLM's throughput table (Llama-3.1-8B fp8 on one H100), not fitted to them"</caption>
                {head()}
                <tbody>{rows_view(&vs.rows)}</tbody>
            </table>
        </div>
        <p class="note serve-misses">{vs.misses}</p>
        <MoePublished/>
        <details class="serve-vs-published-all" on:toggle=move |_| open.set(true)>
            <summary>"Every stored row (119: NIM's other lengths and the 8B, TensorRT-LLM's H100 and H200 tables)"</summary>
            {move || open.get().then(|| {
                let all = published::every_row();
                view! {
                    <div class="table-scroll serve-vs-published" tabindex="0" role="region" aria-label="Every stored serving run against the model, scrollable">
                        <table class="kernels">{head()}<tbody>{rows_view(&all)}</tbody></table>
                    </div>
                }
            })}
        </details>
    }
}

/// The model against TensorRT-LLM's later per-GPU rows: GPT-OSS-120B and -20B
/// (mixtures of experts) on one GPU, the DEP rows (GPT-OSS-120B, Qwen3-235B,
/// DeepSeek-R1, Llama-4-Maverick) and Llama-3.3-70B on two, not fitted to them.
#[component]
fn MoePublished() -> impl IntoView {
    let (rows, note) = published::overview();
    view! {
        <div class="table-scroll serve-vs-published serve-vs-overview" tabindex="0" role="region" aria-label="The serving model against TensorRT-LLM's performance overview, scrollable">
            <table class="kernels">
                <caption>"The model against TensorRT-LLM's performance overview (trtllm-bench at maximum throughput, each row's requests queued at once and run to the last, as the model runs them, its steady state beside; GPT-OSS in bf16 with MXFP4 experts run W4A16 and a bf16 KV cache, the others fp8; DEP n: attention data-parallel over n GPUs, the experts spread over them), not fitted to it"</caption>
                <PublishedHead/>
                <tbody>{rows_view(&rows)}</tbody>
            </table>
        </div>
        <p class="note serve-overview-misses">{note}</p>
        <MoeTpPublished/>
        <VllmPublished/>
    }
}

/// The head of every table of published runs against the model.
#[component]
fn PublishedHead() -> impl IntoView {
    view! {
        <thead><tr><th scope="col">"engine, model"</th><th scope="col">"GPUs"</th><th scope="col">"in / out"</th><th scope="col">"in flight"</th>
            <th scope="col">{format!("TTFT ms, {HEAD}")}</th><th scope="col">"error"</th>
            <th scope="col">{format!("ITL ms, {HEAD}")}</th><th scope="col">"error"</th>
            <th scope="col">{format!("output tok/s, {HEAD}")}</th><th scope="col">"error"</th></tr></thead>
    }
}

/// The model against vLLM runs it was not fitted to (GPUStack, H100): GPT-OSS
/// decoding four requests and bursts of long prompts (computed when opened: it
/// runs the model once per row).
#[component]
fn VllmPublished() -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <details class="serve-vs-vllm" on:toggle=move |_| open.set(true)>
            <summary>{format!("vLLM runs the model was not fitted to ({}: GPUStack's H100 runs of GPT-OSS-120B, GPT-OSS-20B and Qwen3-235B-A22B, decoding four requests and in bursts of long prompts)", published::vllm_count())}</summary>
            {move || open.get().then(|| {
                let (rows, note) = published::vllm();
                view! {
                    <div class="table-scroll serve-vs-published" tabindex="0" role="region" aria-label="The serving model against vLLM's runs on H100, scrollable">
                        <table class="kernels">
                            <PublishedHead/>
                            <tbody>{rows_view(&rows)}</tbody>
                        </table>
                    </div>
                    <p class="note serve-vllm-note">{note}</p>
                }
            })}
        </details>
    }
}

/// The model against published MoE runs it was not fitted to: TensorRT-LLM's
/// Qwen3-235B-A22B and Llama-4-Maverick rows, fp8, tensor parallel over 8 GPUs
/// (computed when opened: it runs the model once per row).
#[component]
fn MoeTpPublished() -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <details class="serve-vs-moe-tp" on:toggle=move |_| open.set(true)>
            <summary>{format!("MoE runs the model was not fitted to ({}: TensorRT-LLM's Qwen3-235B-A22B and Llama-4-Maverick, fp8, TP 8 on H200 and H100)", published::moe_tp_count())}</summary>
            {move || open.get().then(|| {
                let (rows, note) = published::moe_tp();
                view! {
                    <div class="table-scroll serve-vs-published" tabindex="0" role="region" aria-label="The serving model against TensorRT-LLM's tensor-parallel MoE runs, scrollable">
                        <table class="kernels">
                            <PublishedHead/>
                            <tbody>{rows_view(&rows)}</tbody>
                        </table>
                    </div>
                    <p class="note serve-moe-tp-misses">{note}</p>
                }
            })}
        </details>
    }
}
