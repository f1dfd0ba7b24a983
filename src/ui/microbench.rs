//! Widget `microbench`: the essay's repeat microbenchmark — runtime, achieved FLOP/s
//! and achieved bandwidth of a fused chain of `repeat` multiplies, for repeat 1..1024,
//! on the explorer's hardware, dtype and tensor size. Memory- and compute-bound
//! regions shaded, the explorer's op count marked, the crossover read out.

use super::chart::{self, COMPUTE, INK, MEMORY};
use super::frame::Readout;
use super::Ctx;
use crate::model::{microbench, units};
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;

#[derive(Clone, PartialEq)]
struct Data {
    points: Vec<microbench::BenchPoint>,
    crossover: f64,
    ops: u32,
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

#[component]
pub fn Microbench(ctx: Ctx) -> impl IntoView {
    let data = Memo::new(move |_| {
        ctx.state.with(|s| {
            let m = s.machine();
            let n = f64::from(s.batch) * f64::from(s.hidden);
            Data {
                points: microbench::sweep(n, &m),
                crossover: microbench::crossover_repeat(&m, m.elem_bytes),
                ops: s.ops,
            }
        })
    });
    let canvas = NodeRef::<Canvas>::new();
    let width = chart::CssWidth::new(canvas);
    let on_screen = chart::OnScreen::new(canvas);
    let error = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        let w = width.get();
        if !on_screen.get() {
            return;
        }
        let Some(c) = canvas.get() else { return };
        error.set(data.with(|d| render(&c, w, d)).err());
    });
    let cross = Memo::new(move |_| data.with(|d| d.crossover));
    let label = move || {
        data.with(|d| {
            format!(
                "Three log-log panels against repeat 1 to 1024: runtime stays flat while memory-bound and grows \
                 linearly once compute-bound; achieved FLOP/s rises until about repeat {}, then levels off; \
                 achieved bandwidth holds near the roof, then falls.",
                units::sig3(d.crossover)
            )
        })
    };
    view! {
        <p>
            "One fused kernel reads a tensor, multiplies each element by 2 "<em>"repeat"</em>" times, and writes "
            "it back: 2N element accesses, N·repeat FLOPs. Shaded orange: memory-bound; blue: compute-bound. "
            "The dashed line is the explorer's op count."
        </p>
        <canvas id="microbench-canvas" node_ref=canvas role="img" aria-label=label data-frame="0"></canvas>
        {move || error.get().map(|e| view! { <p class="field-error">"Chart could not be drawn: " {e}</p> })}
        <p class="big" aria-live="polite">
            "Turns compute-bound at repeat ≈ "
            <Readout name="crossover_repeat" raw=Signal::derive(move || cross.get().to_string())
                text=Signal::derive(move || units::sig3(cross.get()))/>
            {move || data.with(|d| {
                let p1 = d.points.first().map(|p| p.achieved_flops).unwrap_or(0.0);
                format!(" · at repeat 1 it attains {} ", units::si(p1, "FLOP/s"))
            })}
        </p>
    }
}

fn render(canvas: &web_sys::HtmlCanvasElement, css_w: f64, d: &Data) -> Result<(), String> {
    let narrow = css_w > 0.0 && css_w < 640.0;
    let dpr = chart::fit(
        canvas,
        css_w,
        |w| if w < 640.0 { 1.6 } else { 0.34 },
        220.0,
        900.0,
    );
    chart::draw(canvas, |root| {
        let panels = if narrow {
            root.split_evenly((3, 1))
        } else {
            root.split_evenly((1, 3))
        };
        let x = (1.0, 1024.0);
        type Get = fn(&microbench::BenchPoint) -> f64;
        let specs: [(&str, Get); 3] = [
            ("runtime (s)", |p| p.runtime),
            ("achieved FLOP/s", |p| p.achieved_flops),
            ("achieved bandwidth (B/s)", |p| p.achieved_bw),
        ];
        let err = |e: DrawingAreaErrorKind<_>| e.to_string();
        for (area, (desc, get)) in panels.iter().zip(specs) {
            let y = decades(d.points.iter().map(get));
            let mut ch = chart::log_log(area, x, y, "repeat", desc, dpr)?;
            let cx = d.crossover.clamp(x.0, x.1);
            ch.draw_series(std::iter::once(Rectangle::new(
                [(x.0, y.0), (cx, y.1)],
                MEMORY.mix(0.10).filled(),
            )))
            .map_err(err)?;
            ch.draw_series(std::iter::once(Rectangle::new(
                [(cx, y.0), (x.1, y.1)],
                COMPUTE.mix(0.10).filled(),
            )))
            .map_err(err)?;
            let ops = f64::from(d.ops).clamp(x.0, x.1);
            ch.draw_series(DashedLineSeries::new(
                [(ops, y.0), (ops, y.1)],
                chart::px(4.0, dpr),
                chart::px(3.0, dpr),
                INK.mix(0.6).stroke_width(chart::px(1.5, dpr)),
            ))
            .map_err(err)?;
            let pts: Vec<(f64, f64)> = d
                .points
                .iter()
                .map(|p| (f64::from(p.repeat), get(p)))
                .collect();
            ch.draw_series(LineSeries::new(
                pts.iter().copied(),
                INK.stroke_width(chart::px(2.0, dpr)),
            ))
            .map_err(err)?;
            ch.draw_series(
                pts.iter()
                    .map(|&p| Circle::new(p, chart::px(3.0, dpr), INK.filled())),
            )
            .map_err(err)?;
        }
        Ok(())
    })
}
