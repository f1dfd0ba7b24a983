//! Widget `shapes`: "What shapes do matrix multiplications like?".
//! One GEMM on the shared GPU, priced by the GEMM model (`model::shapes`,
//! through `state::widgets::shapes::view`): its readouts and sentences, the
//! pad-to-64 remedy, TFLOP/s against N (the sawtooth of waves and the cliffs of
//! alignment under the roof) and the last wave on a grid of the GPU's SMs. This
//! file only draws what the model returns.

use crate::model::shapes::{self as model, ShapesView, SweepPoint};
use crate::model::units;
use crate::state::widgets::shapes::{self as spec, field};
use crate::ui::chart::backend::{AnyBackend, AnyError};
use crate::ui::chart::plot::{csv, plot_with, shared, Plot, PlotCanvas};
use crate::ui::chart::{self, Area, Look};
use crate::ui::kit::controls::{GpuPicker, LogSlider, Select};
use crate::ui::kit::readout::{Lines, Readout};
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use plotters::prelude::*;

/// The sweep chart: TFLOP/s against N, on multiples of the alignment and one
/// past each, the roof, and the current shape.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sweep {
    pub aligned: Vec<SweepPoint>,
    pub unaligned: Vec<SweepPoint>,
    /// The achievable roof, FLOP/s.
    pub roof: f64,
    /// The current N and the FLOP/s it reaches.
    pub at: (u32, f64),
}

impl Sweep {
    fn of(s: &model::Sweep, v: &ShapesView) -> Sweep {
        Sweep {
            aligned: s.aligned.clone(),
            unaligned: s.unaligned.clone(),
            roof: v.roof,
            at: (v.gemm.n, v.flops),
        }
    }
}

impl Plot for Sweep {
    fn height(&self, w: f64) -> f64 {
        (w * 0.45).clamp(220.0, 320.0)
    }
    plot_with!(render);
    fn csv(&self) -> String {
        let mut rows: Vec<(u32, f64, u8)> = self
            .aligned
            .iter()
            .map(|p| (p.n, p.flops, 1))
            .chain(self.unaligned.iter().map(|p| (p.n, p.flops, 0)))
            .collect();
        rows.sort_by_key(|r| r.0);
        csv(
            &["n", "flop_per_s", "aligned"],
            rows.into_iter()
                .map(|(n, f, a)| vec![n.to_string(), f.to_string(), a.to_string()]),
        )
    }
}

fn render(s: &Sweep, root: Area<AnyBackend<'_>>, look: &Look) -> Result<(), String> {
    let pal = look.pal;
    let err = |e: DrawingAreaErrorKind<AnyError>| e.to_string();
    let top = s
        .aligned
        .iter()
        .chain(&s.unaligned)
        .map(|p| f64::from(p.n))
        .fold(f64::from(s.at.0), f64::max);
    let tf = 1e12;
    let roof = s.roof / tf;
    let yr = (0.0, (roof * 1.1).max(1e-9));
    let xr = (0.0, top.max(1.0));
    let label = |v: &f64| units::sig3(*v);
    let mut ch = chart::linear(&root, xr, yr, field::n.label, "TFLOP/s", &label, look)?;
    let pts = |v: &[SweepPoint]| -> Vec<(f64, f64)> {
        v.iter().map(|p| (f64::from(p.n), p.flops / tf)).collect()
    };
    ch.draw_series(DashedLineSeries::new(
        [(0.0, roof), (xr.1, roof)],
        look.px(6.0),
        look.px(4.0),
        pal.compute.stroke_width(look.px(1.5)),
    ))
    .map_err(err)?;
    if !s.unaligned.is_empty() {
        ch.draw_series(LineSeries::new(
            pts(&s.unaligned),
            pal.memory.stroke_width(look.px(1.0)),
        ))
        .map_err(err)?;
    }
    ch.draw_series(LineSeries::new(
        pts(&s.aligned),
        pal.ink.stroke_width(look.px(2.0)),
    ))
    .map_err(err)?;
    let at = (f64::from(s.at.0), s.at.1 / tf);
    ch.draw_series(std::iter::once(Circle::new(
        at,
        look.px(5.0),
        pal.compute.filled(),
    )))
    .map_err(err)?;
    Ok(())
}

/// The readouts (`mm_*`), each present once the model has its value.
#[component]
fn Readouts(view: Memo<Option<ShapesView>>) -> impl IntoView {
    let num = move |f: fn(&ShapesView) -> f64| {
        Signal::derive(move || {
            view.with(|v| v.as_ref().map_or(String::new(), |v| f(v).to_string()))
        })
    };
    let text = move |f: fn(&ShapesView) -> String| {
        Signal::derive(move || view.with(|v| v.as_ref().map_or(String::new(), f)))
    };
    let row = move |label: &'static str,
                    name: &'static str,
                    raw: Signal<String>,
                    shown: Signal<String>| {
        view! { <div class="metric"><dt>{label}</dt><dd><Readout name=name raw=raw text=shown/></dd></div> }
    };
    view! {
        <dl class="metrics shapes-readouts" aria-live="polite">
            {row("time (GPU, CUDA graph)", "mm_time_s", num(|v| v.seconds), text(|v| units::si(v.seconds, "s")))}
            {row("achieved", "mm_flops", num(|v| v.flops), text(|v| format!("{} ({} of the roof)", units::si(v.flops, "FLOP/s"), units::percent(v.of_roof()))))}
            {row("waves", "mm_waves", num(|v| v.tiling.waves), text(|v| format!("{} wave{} on {} SMs", v.tiling.waves, if v.tiling.waves == 1.0 { "" } else { "s" }, v.sms)))}
            {row("wave efficiency", "mm_wave_efficiency", num(|v| v.tiling.wave_efficiency), text(|v| units::percent(v.tiling.wave_efficiency)))}
            {row("tile efficiency", "mm_tile_efficiency", num(|v| v.tiling.tile_efficiency), text(|v| format!("{} ({}×{} tiles)", units::percent(v.tiling.tile_efficiency), v.tiling.tm, v.tiling.tn)))}
            {row("aligned", "mm_aligned", text(|v| u8::from(v.aligned).to_string()), text(|v| if v.aligned { format!("yes (multiples of {})", v.align) } else { format!("no (not all multiples of {})", v.align) }))}
            {row("what limits it", "mm_regime", text(|v| v.regime.id().to_string()), text(|v| v.regime.label().to_string()))}
        </dl>
    }
}

/// The last wave on the GPU's SMs: one square per SM, the busy ones filled.
/// The last wave on the GPU's SMs: one square per SM, the busy ones filled. The
/// squares are built when the SM count changes; a new shape only flips classes.
#[component]
fn SmGrid(view: Memo<Option<ShapesView>>) -> impl IntoView {
    let sms = Memo::new(move |_| view.with(|v| v.as_ref().map_or(0, |v| v.sms)));
    let busy = Memo::new(move |_| {
        view.with(|v| v.as_ref().map_or(0, |v| v.tiling.last_wave.round() as u32))
    });
    let label = move || {
        view.with(|v| {
            v.as_ref().map_or(String::new(), |v| {
                format!(
                    "The last of {} waves on the {} SMs: {} busy, {} idle.",
                    v.tiling.waves,
                    v.sms,
                    v.tiling.last_wave,
                    f64::from(v.sms) - v.tiling.last_wave
                )
            })
        })
    };
    view! {
        <p class="note">{label}</p>
        <div class="sm-grid" role="img" aria-label=label
            data-sms=move || sms.get() data-busy=move || busy.get()>
            {move || {
                (0..sms.get())
                    .map(|i| view! { <span class="sm" class:busy=move || i < busy.get()></span> })
                    .collect_view()
            }}
        </div>
    }
}

#[component]
pub fn Shapes(ctx: Ctx) -> impl IntoView {
    let state = ctx.state;
    let view = ctx.live(spec::view);
    let shown = ctx.held(view);
    // the sweep depends on M, K, the dtype, the GPU and N's power of two: a memo
    // of that key, so dragging N recomputes the readouts and one point, not the
    // sweep (nor while the widget is off-screen)
    let key = ctx.held(ctx.live(spec::sweep_key));
    let swept = Memo::new(move |_| spec::sweep(key.get()));
    let sweep = Memo::new(move |_| {
        shown.with(|v| {
            v.as_ref()
                .map(|v| swept.with(|s| Sweep::of(s, v)))
                .unwrap_or_default()
        })
    });
    let fallback = Memo::new(move |_| state.with(spec::fallback));
    let pad =
        Memo::new(move |_| view.with(|v| v.as_ref().and_then(|v| Some((v.pad?, v.pad_words()?)))));
    let why =
        Memo::new(move |_| view.with(|v| v.as_ref().map(|v| v.why.clone()).unwrap_or_default()));
    let apply_pad = move |_| {
        if let Some((p, _)) = pad.get_untracked() {
            state.update(|s| {
                s.widgets.shapes.n = p.n;
                s.widgets.shapes.k = p.k;
            });
        }
    };
    let label = Signal::derive(move || {
        view.with(|v| {
            v.as_ref().map_or(String::new(), |v| {
                format!(
                    "TFLOP/s against N from 1 to {} at M = {}, K = {}: multiples of {} (dark) and one past each (orange), under the {} roof.",
                    key.get().top,
                    v.gemm.m,
                    v.gemm.k,
                    v.align,
                    units::si(v.roof, "FLOP/s")
                )
            })
        })
    });
    view! {
        <div class="controls-inline">
            <GpuPicker ctx=ctx id="shapes-hw" range=crate::state::widgets::shapes::range/>
            <Select ctx=ctx field=field::dtype/>
        </div>
        <div class="shapes-params">
            <LogSlider ctx=ctx field=field::m/>
            <LogSlider ctx=ctx field=field::n/>
            <LogSlider ctx=ctx field=field::k/>
        </div>
        {move || fallback.get().map(|t| view! { <p class="notice shapes-fallback" role="status">{t}</p> })}
        <p class="note">
            "C[M, N] = A[M, K] · B[K, N], priced by brrr's GEMM model on the GPU's achievable roofs "
            "(whatever the page's roofs): tiles over the SMs, waves, alignment, fixed costs."
        </p>
        <Show
            when=move || view.with(Option::is_some)
            fallback=|| view! {
                <p class="notice" role="status">
                    "The lab's measured GPU has no known SM count, so this widget cannot tile its matmuls: pick a datasheet preset."
                </p>
            }
        >
            <Readouts view=view/>
            <ul class="shapes-why" aria-live="polite">
                <Lines items=why/>
            </ul>
            {move || pad.get().map(|(p, what)| {
                view! {
                    <p class="remedy-list">
                        <button class="remedy" data-remedy="pad64" data-speedup=p.speedup.to_string() on:click=apply_pad>
                            {what}
                        </button>
                        <span class="effect">{format!(" → {}× faster", units::sig3(p.speedup))}</span>
                    </p>
                }
            })}
            <PlotCanvas ctx=ctx id="shapes-canvas" label=label data=shared(sweep)/>
            <ul class="legend shapes-legend">
                <li><span class="swatch ink" aria-hidden="true"></span>
                    {move || view.with(|v| v.as_ref().map_or(String::new(), |v| format!("N a multiple of {} (the fast path)", v.align)))}</li>
                <li><span class="swatch memory" aria-hidden="true"></span>"N one past a multiple (the slow path)"</li>
                <li><span class="swatch dashed compute-dash" aria-hidden="true"></span>
                    {move || view.with(|v| v.as_ref().map_or(String::new(), |v| format!("the achievable roof, {}", units::si(v.roof, "FLOP/s"))))}</li>
            </ul>
            <SmGrid view=view/>
            <p class="note shapes-measured">{spec::measured_note()}</p>
        </Show>
    }
}
