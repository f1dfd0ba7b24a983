//! Widget `microbench`: the essay's repeat microbenchmark — runtime, achieved FLOP/s
//! and achieved bandwidth of a fused chain of `repeat` multiplies, for repeat 1..1024,
//! with its own dtype (`mb_dtype`) and tensor size (`mb_elems`), on the explorer's
//! hardware (bandwidth, pointwise ceiling, launch overhead). Overhead-, memory- and
//! compute-bound regions shaded, the crossover and the launch's share read out.
//! Every sentence comes from `model::microbench::Bench` for the current state.

use crate::model::microbench::{self, Overlay};
use crate::model::{units, Bound, Dtype, Regime};
use crate::state::widgets::microbench::{self as spec, ELEMS as MB_ELEMS};
use crate::ui::chart::backend::{AnyBackend, AnyError};
use crate::ui::chart::plot::{csv, plot_with, shared, Marks, Plot, PlotCanvas};
use crate::ui::chart::{self, Area, Look};
use crate::ui::kit::readout::Readout;
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use plotters::prelude::*;

#[derive(Clone, PartialEq)]
struct Data {
    points: Vec<microbench::BenchPoint>,
    spans: Vec<(Regime, f64, f64)>,
    crossover: Option<f64>,
    /// Measured sweeps for this preset, dtype and size, with the model beside each
    /// point (runtime panel only).
    measured: Vec<Overlay>,
}

fn decades(vals: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = vals
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::MAX, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    if hi <= 0.0 {
        return (1.0, 10.0);
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil());
    if hi <= lo {
        (lo, lo * 10.0)
    } else {
        (lo, hi)
    }
}

impl Plot for Data {
    fn height(&self, w: f64) -> f64 {
        if w < 640.0 {
            (w * 1.6).clamp(480.0, 900.0)
        } else {
            (w * 0.34).clamp(220.0, 420.0)
        }
    }
    plot_with!(marks render);
    fn csv(&self) -> String {
        csv(
            &[
                "repeat",
                "runtime_s",
                "achieved_flop_per_s",
                "achieved_bytes_per_s",
                "bound",
                "regime",
                "overhead_share",
            ],
            self.points.iter().map(|p| {
                vec![
                    p.repeat.to_string(),
                    p.runtime.to_string(),
                    p.achieved_flops.to_string(),
                    p.achieved_bw.to_string(),
                    match p.bound {
                        Bound::Compute => "compute".into(),
                        Bound::Memory => "memory".into(),
                    },
                    p.regime.id().into(),
                    p.shares.overhead.to_string(),
                ]
            }),
        )
    }
}

/// The slider's position for an element count: its base-2 logarithm.
fn exponent(n: u32) -> f64 {
    f64::from(n).log2()
}

#[component]
pub fn Microbench(ctx: Ctx) -> impl IntoView {
    // Readouts and sentences are a live contract (embedders read them at any time):
    // the widget's one model call (`spec::view`: the bench and the measured
    // sweeps beside it) runs once per change on the live path and the chart
    // draws it held off-screen.
    let view = ctx.live(spec::view);
    let live = Memo::new(move |_| view.with(|v| v.bench.clone()));
    let shown = ctx.held(view);
    let data = Memo::new(move |_| {
        shown.with(|v| Data {
            spans: v.bench.spans.clone(),
            crossover: v.bench.crossover_marker().map(|m| m.0),
            measured: v.overlays.clone(),
            points: v.bench.points.clone(),
        })
    });
    let label = Signal::derive(move || live.with(|b| b.chart_label()));
    let share = move || live.with(|b| b.overhead_share_at_1());
    let why = move |i: usize| move || live.with(|b| b.why()[i].clone());

    view! {
        {controls(ctx, live)}
        <p>{move || live.with(|b| b.intro())}</p>
        <ul class="legend mb-regions" data-overhead-points=move || live.with(|b| b.overhead_points().to_string())>
            {move || live.with(|b| b.legend().into_iter().map(|(r, a, z, text)| view! {
                <li data-region=r.id() data-from=a.to_string() data-to=z.to_string()>
                    <span class=format!("swatch region {}", r.id()) aria-hidden="true"></span>{text}
                </li>
            }).collect_view())}
            {move || live.with(|b| b.crossover_marker()).map(|(_, text)| view! {
                <li data-marker="crossover"><span class="swatch dashed" aria-hidden="true"></span>{text}</li>
            })}
        </ul>
        <PlotCanvas ctx=ctx id="microbench-canvas" label=label data=shared(data)/>
        <p class="big" aria-live="polite">
            "The kernel turns compute-bound at repeat ≈ "
            <Readout name="crossover_repeat" raw=Signal::derive(move || live.with(|b| b.crossover.repeat.to_string()))
                text=Signal::derive(move || live.with(|b| units::sig3(b.crossover.repeat)))/>
            {move || live.with(|b| b.verdict())}
        </p>
        <p>
            "At repeat 1 the point is "
            <Readout name="mb_regime_at_1" raw=Signal::derive(move || live.with(|b| b.regime_at_1().id().to_string()))
                text=Signal::derive(move || live.with(|b| b.regime_at_1().label().to_string()))/>
            " and launch overhead is "
            <Readout name="mb_overhead_share_at_1" raw=Signal::derive(move || share().to_string())
                text=Signal::derive(move || units::percent(share()))/>
            " of its runtime"
            {move || live.with(|b| b.overhead_text())}
        </p>
        {measured(ctx, view)}
        <p class="note">
            {why(0)}
            <Readout name="fp32_ops_per_element" raw=Signal::derive(move || live.with(|b| b.fp32.ops_per_element.to_string()))
                text=Signal::derive(move || live.with(|b| units::sig3(b.fp32.ops_per_element)))/>
            {why(1)}
            <Readout name="mb_ops_per_element" raw=Signal::derive(move || live.with(|b| b.budget.ops_per_element.to_string()))
                text=Signal::derive(move || live.with(|b| units::sig3(b.budget.ops_per_element)))/>
            {why(2)}
        </p>
    }
}

/// The widget's own controls: the GPU, the dtype (falling back to fp32 where
/// the preset lacks it, and saying so) and the tensor size.
#[inline(always)] // one call site: the page's .wasm stays as before the split
fn controls(ctx: Ctx, live: Memo<microbench::Bench>) -> impl IntoView {
    let state = ctx.state;
    let hw = Memo::new(move |_| state.with(|s| s.setting.hw));
    let dtype = Memo::new(move |_| state.with(spec::dtype));
    let elems = Memo::new(move |_| state.with(|s| s.widgets.microbench.elems));
    let on_dtype = move |ev| {
        let v = event_target_value(&ev);
        if let Some(d) = Dtype::from_id(&v) {
            state.update(|s| s.widgets.microbench.dtype = d);
        }
    };
    let (lo, hi) = (exponent(MB_ELEMS.0), exponent(MB_ELEMS.1));
    let on_elems = move |ev| {
        let x: f64 = event_target_value(&ev).parse().unwrap_or(f64::NAN);
        if x.is_finite() {
            let k = x.round().clamp(lo, hi);
            let n = 2f64
                .powf(k)
                .clamp(f64::from(MB_ELEMS.0), f64::from(MB_ELEMS.1)) as u32;
            state.update(|s| s.widgets.microbench.elems = n);
        }
    };
    let size = move || live.with(|b| b.size_text());
    view! {
        <div class="mb-controls">
            <crate::ui::kit::controls::GpuPicker ctx=ctx id="mb-hw"/>
            <div class="row">
                <label for="mb_dtype">{spec::field::dtype.label}</label>
                <select id="mb_dtype" on:change=on_dtype prop:value=move || dtype.get().used.id()>
                    {move || {
                        let used = dtype.get().used;
                        hw.get()
                            .dtypes()
                            .map(|d| view! { <option value=d.id() selected={d == used}>{d.label()}</option> })
                            .collect_view()
                    }}
                </select>
            </div>
            <div class="field">
                <label for="mb_elems-slider">"Tensor size"</label>
                <div class="field-inputs">
                    <input type="range" id="mb_elems-slider" min=lo max=hi step="1"
                        aria-valuetext=size
                        prop:value=move || exponent(elems.get()).to_string()
                        on:input=on_elems/>
                </div>
                <output for="mb_elems-slider" class="mb-size">{size}</output>
            </div>
        </div>
        {move || {
            let d = dtype.get();
            (d.wanted != d.used).then(|| view! {
                <p class="notice mb-fallback" role="status" data-fallback=d.wanted.id()>
                    {format!(
                        "The {} has no {} mode, so this widget shows {}, which every preset has.",
                        hw.get().name, d.wanted.label(), d.used.label()
                    )}
                </p>
            })
        }}
    }
}

/// The measured sweeps beside the model: how far it is, each point in a table,
/// and where else a measurement exists.
#[inline(always)] // one call site: the page's .wasm stays as before the split
fn measured(ctx: Ctx, view: Memo<microbench::BenchView>) -> impl IntoView {
    let state = ctx.state;
    let over = Memo::new(move |_| view.with(|v| v.overlays.clone()));
    let err = Memo::new(move |_| view.with(|v| v.max_error));
    let elsewhere = Memo::new(move |_| view.with(|v| v.elsewhere.clone()));
    view! {
        <div class="mb-measured" data-measured=move || if over.with(Vec::is_empty) { "none" } else { "shown" }>
            {move || over.with(|o| (!o.is_empty()).then(|| {
                let src = o[0].series.source;
                view! {
                    <p class="note">
                        {format!("Crosses on the runtime panel: measured on an {} ({}; {}), the same size and dtype; \
                            blue for fused kernels, orange for eager ones (one kernel per multiply), whose model is the dashed orange line. ",
                            src.machine, src.date, src.software)}
                        "The largest gap between model and measurement: "
                        <Readout name="model_vs_measured_max_error"
                            raw=Signal::derive(move || err.get().map(|e| e.to_string()).unwrap_or_default())
                            text=Signal::derive(move || err.get().map(units::percent).unwrap_or_default())/>
                        {move || state.with(|s| if s.setting.roof == crate::model::achievable::Roof::Datasheet {
                            " (datasheet roofs: try “achievable” beside the preset)."
                        } else { "." })}
                    </p>
                    {o.iter().filter(|x| !x.series.caveat.is_empty()).map(|x| view! {
                        <p class="note">{format!("{}: {}.", x.series.label, x.series.caveat)}</p>
                    }).collect_view()}
                    <details>
                        <summary>"Model vs measured, point by point"</summary>
                        <div class="table-scroll" tabindex="0" role="region" aria-label="Model vs measured, scrollable">
                        <table class="mb-compare">
                            <thead><tr><th scope="col">"series"</th><th scope="col">"repeat"</th><th scope="col">"measured"</th><th scope="col">"model"</th><th scope="col">"model ÷ measured − 1"</th></tr></thead>
                            <tbody>
                                {o.iter().flat_map(|x| x.points.iter().map(move |p| view! {
                                    <tr data-series=x.series.id data-repeat=p.repeat
                                        data-measured-s=p.measured_s.to_string() data-model-s=p.model_s.to_string()>
                                        <td>{x.series.label}</td><td>{p.repeat}</td>
                                        <td>{units::si(p.measured_s, "s")}</td><td>{units::si(p.model_s, "s")}</td>
                                        <td>{format!("{:+.1} %", p.error() * 100.0)}</td>
                                    </tr>
                                })).collect_view()}
                            </tbody>
                        </table>
                        </div>
                    </details>
                }
            }))}
            {move || elsewhere.get().map(|t| view! { <p class="note">{t}</p> })}
        </div>
    }
}

fn render(
    d: &Data,
    root: Area<AnyBackend<'_>>,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let (w, _) = root.dim_in_pixel();
    let narrow = f64::from(w) / look.dpr < 640.0;
    let panels = if narrow {
        root.split_evenly((3, 1))
    } else {
        root.split_evenly((1, 3))
    };
    type Get = fn(&microbench::BenchPoint) -> f64;
    let specs: [(&str, Get); 3] = [
        ("runtime (s)", |p| p.runtime),
        ("achieved FLOP/s", |p| p.achieved_flops),
        ("achieved bandwidth (B/s)", |p| p.achieved_bw),
    ];
    for (area, (desc, get)) in panels.iter().zip(specs) {
        draw_panel(area, d, desc, get, look, marks)?;
    }
    Ok(())
}

fn err(e: DrawingAreaErrorKind<AnyError>) -> String {
    e.to_string()
}

/// One panel: the regions, the crossover, the model's sweep; on the runtime
/// panel the measured crosses too.
#[inline(always)] // one call site: the page's .wasm stays as before the split
fn draw_panel(
    area: &Area<AnyBackend<'_>>,
    d: &Data,
    desc: &str,
    get: fn(&microbench::BenchPoint) -> f64,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let (pal, x) = (look.pal, microbench::RANGE);
    let runtime = desc.starts_with("runtime");
    let measured = d
        .measured
        .iter()
        .filter(|_| runtime)
        .flat_map(|o| o.points.iter().flat_map(|p| [p.measured_s, p.model_s]));
    let y = decades(d.points.iter().map(get).chain(measured));
    let mut ch = chart::log_log(area, x, y, "repeat", desc, look)?;
    ch.draw_series(d.spans.iter().map(|&(r, a, b)| {
        let fill = match r {
            Regime::Overhead => pal.muted.mix(0.2),
            Regime::Memory => pal.memory.mix(0.12),
            Regime::Compute => pal.compute.mix(0.12),
            Regime::Communication => pal.comm.mix(0.12),
        };
        Rectangle::new([(a, y.0), (b, y.1)], fill.filled())
    }))
    .map_err(err)?;
    if let Some(r) = d.crossover {
        ch.draw_series(DashedLineSeries::new(
            [(r, y.0), (r, y.1)],
            look.px(4.0),
            look.px(3.0),
            pal.ink.mix(0.6).stroke_width(look.px(1.5)),
        ))
        .map_err(err)?;
    }
    let pts: Vec<(f64, f64)> = d
        .points
        .iter()
        .map(|p| (f64::from(p.repeat), get(p)))
        .collect();
    ch.draw_series(LineSeries::new(
        pts.iter().copied(),
        pal.ink.stroke_width(look.px(2.0)),
    ))
    .map_err(err)?;
    ch.draw_series(
        pts.iter()
            .map(|&p| Circle::new(p, look.px(3.0), pal.ink.filled())),
    )
    .map_err(err)?;
    marks.area(&chart::plot_rect(&ch), x, y);
    for (p, &at) in d.points.iter().zip(&pts) {
        marks.point(
            ch.backend_coord(&at),
            "bench",
            at,
            bound_id(p.bound),
            tip(p),
        );
    }
    if runtime {
        draw_measured(&mut ch, d, look, marks)?;
    }
    Ok(())
}

/// The measured crosses on the runtime panel (and the model's eager line, to
/// compare the eager crosses with).
#[inline(always)] // one call site: the page's .wasm stays as before the split
fn draw_measured(
    ch: &mut ChartContext<'_, AnyBackend<'_>, chart::LogLog>,
    d: &Data,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    for o in &d.measured {
        let col = if o.series.eager {
            pal.memory
        } else {
            pal.compute
        };
        if o.series.eager {
            ch.draw_series(DashedLineSeries::new(
                o.points.iter().map(|p| (f64::from(p.repeat), p.model_s)),
                look.px(4.0),
                look.px(3.0),
                col.mix(0.7).stroke_width(look.px(1.5)),
            ))
            .map_err(err)?;
        }
        ch.draw_series(o.points.iter().map(|p| {
            Cross::new(
                (f64::from(p.repeat), p.measured_s),
                look.px(4.0),
                col.stroke_width(look.px(2.0)),
            )
        }))
        .map_err(err)?;
        for p in &o.points {
            let at = (f64::from(p.repeat), p.measured_s);
            marks.point(
                ch.backend_coord(&at),
                o.series.id,
                at,
                "measured",
                vec![
                    format!("{}, repeat {}", o.series.label, p.repeat),
                    format!("measured {}", units::si(p.measured_s, "s")),
                    format!(
                        "model {} ({:+.1} %)",
                        units::si(p.model_s, "s"),
                        p.error() * 100.0
                    ),
                ],
            );
        }
    }
    Ok(())
}

fn bound_id(b: Bound) -> &'static str {
    match b {
        Bound::Compute => "compute",
        Bound::Memory => "memory",
    }
}

/// A point's tooltip: the same numbers in all three panels.
fn tip(p: &microbench::BenchPoint) -> Vec<String> {
    vec![
        format!("repeat {}", p.repeat),
        format!(
            "intensity {} FLOP/B",
            units::sig3(p.achieved_flops / p.achieved_bw)
        ),
        format!("runtime {}", units::si(p.runtime, "s")),
        format!("attains {}", units::si(p.achieved_flops, "FLOP/s")),
        format!("bandwidth {}", units::si(p.achieved_bw, "B/s")),
        format!("kernel {}-bound", bound_id(p.bound)),
    ]
}
