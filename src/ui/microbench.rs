//! Widget `microbench`: the essay's repeat microbenchmark — runtime, achieved FLOP/s
//! and achieved bandwidth of a fused chain of `repeat` multiplies, for repeat 1..1024,
//! on the explorer's hardware, dtype and tensor size. Memory- and compute-bound
//! regions shaded, the explorer's op count marked, the crossover read out.

use super::chart::{self, Area, Look};
use super::frame::Readout;
use super::plot::{csv, plot_with, shared, Marks, Plot, PlotCanvas};
use super::Ctx;
use crate::model::{microbench, units, Bound};
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
                ]
            }),
        )
    }
}

#[component]
pub fn Microbench(ctx: Ctx) -> impl IntoView {
    let data = Memo::new(move |_| {
        ctx.view.with(|s| {
            let m = s.machine();
            let n = f64::from(s.batch) * f64::from(s.hidden);
            Data {
                points: microbench::sweep(n, &m),
                crossover: microbench::crossover_repeat(&m, m.elem_bytes),
                ops: s.ops,
            }
        })
    });
    // Readouts are a live contract (embedders read them at any time), so they
    // follow the shared state even while the widget is off-screen.
    let cross = Memo::new(move |_| {
        ctx.state.with(|s| {
            let m = s.machine();
            microbench::crossover_repeat(&m, m.elem_bytes)
        })
    });
    let budget = Memo::new(move |_| ctx.state.with(|s| microbench::fp32_budget(&s.machine())));
    let label = Signal::derive(move || {
        data.with(|d| {
            format!(
                "Three log-log panels against repeat 1 to 1024: runtime stays flat while memory-bound and grows \
                 linearly once compute-bound; achieved FLOP/s rises until about repeat {}, then levels off; \
                 achieved bandwidth holds near the roof, then falls.",
                units::sig3(d.crossover)
            )
        })
    });
    view! {
        <p>
            "One fused kernel reads a tensor, multiplies each element by 2 "<em>"repeat"</em>" times, and writes "
            "it back: 2N element accesses, N·repeat FLOPs. Shaded orange: memory-bound; blue: compute-bound. "
            "The dashed line is the explorer's op count."
        </p>
        <PlotCanvas ctx=ctx id="microbench-canvas" label=label data=shared(data)/>
        <p class="big" aria-live="polite">
            "Turns compute-bound at repeat ≈ "
            <Readout name="crossover_repeat" raw=Signal::derive(move || cross.get().to_string())
                text=Signal::derive(move || units::sig3(cross.get()))/>
            {move || data.with(|d| {
                let p1 = d.points.first().map(|p| p.achieved_flops).unwrap_or(0.0);
                format!(" · at repeat 1 it attains {} ", units::si(p1, "FLOP/s"))
            })}
        </p>
        <p class="note">
            {move || {
                let b = budget.get();
                format!(
                    "Why so many? In fp32 this GPU's memory delivers {} numbers a second while its \
                     general units do {} operations (FMA rate). A unary op reads each element and writes \
                     it back, so each element can take about ",
                    units::words(b.numbers_per_s),
                    units::words(b.ops_per_s),
                )
            }}
            <Readout name="fp32_ops_per_element" raw=Signal::derive(move || budget.get().ops_per_element.to_string())
                text=Signal::derive(move || units::sig3(budget.get().ops_per_element))/>
            " operations before compute dominates. A plain multiply counts as half an FMA, so in fp32 the repeat crossover above sits near half that."
        </p>
    }
}

fn render<DB: DrawingBackend>(
    d: &Data,
    root: Area<DB>,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    let (w, _) = root.dim_in_pixel();
    let narrow = f64::from(w) / look.dpr < 640.0;
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
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    for (area, (desc, get)) in panels.iter().zip(specs) {
        let y = decades(d.points.iter().map(get));
        let mut ch = chart::log_log(area, x, y, "repeat", desc, look)?;
        let cx = d.crossover.clamp(x.0, x.1);
        ch.draw_series(std::iter::once(Rectangle::new(
            [(x.0, y.0), (cx, y.1)],
            pal.memory.mix(0.12).filled(),
        )))
        .map_err(err)?;
        ch.draw_series(std::iter::once(Rectangle::new(
            [(cx, y.0), (x.1, y.1)],
            pal.compute.mix(0.12).filled(),
        )))
        .map_err(err)?;
        let ops = f64::from(d.ops).clamp(x.0, x.1);
        ch.draw_series(DashedLineSeries::new(
            [(ops, y.0), (ops, y.1)],
            look.px(4.0),
            look.px(3.0),
            pal.ink.mix(0.6).stroke_width(look.px(1.5)),
        ))
        .map_err(err)?;
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
