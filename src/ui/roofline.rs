//! The roofline explorer's chart: memory roof, matmul and pointwise ceilings, and
//! the current step's kernels as points.

use super::chart::{self, COMPUTE, INK, MEMORY, MUTED, VECTOR};
use super::Ctx;
use crate::model::{roofline, units, Bound, Machine, Unit};
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;

const X: (f64, f64) = (1e-2, 1e5);
const Y: (f64, f64) = (1e8, 1e17);

#[component]
pub fn Roofline(ctx: Ctx) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let error = RwSignal::new(None::<String>);
    let width = chart::CssWidth::new(canvas);
    let on_screen = chart::OnScreen::new(canvas);

    Effect::new(move |_| {
        let css_w = width.get();
        if !on_screen.get() {
            return;
        }
        let Some(c) = canvas.get() else { return };
        let result = ctx.state.with(|s| {
            ctx.report.with(|r| {
                let kernels: Vec<Point> = r
                    .groups
                    .iter()
                    .map(|g| Point {
                        intensity: g.group.intensity(),
                        flops: g.achieved_flops,
                        unit: g.group.unit,
                        bound: g.bound,
                    })
                    .collect();
                render(
                    &c,
                    css_w,
                    &s.machine(),
                    &kernels,
                    Some((r.intensity, r.achieved_flops)),
                )
            })
        });
        error.set(result.err());
    });

    let label = move || {
        ctx.state.with(|s| {
            let m = s.machine();
            format!(
                "Roofline of {} in {}: memory roof {}, matmul ceiling {}, pointwise ceiling {}; \
                 this step is {}.",
                s.hw.name,
                s.dtype.id(),
                units::si(m.bw, "B/s"),
                units::si(m.matmul_flops, "FLOP/s"),
                units::si(m.pointwise_flops, "FLOP/s"),
                ctx.report.with(|r| r.regime.label()),
            )
        })
    };

    view! {
        <figure class="chart">
            <canvas id="roofline-canvas" node_ref=canvas role="img" aria-label=label data-frame="0"></canvas>
            <figcaption>
                <ul class="legend">
                    <li><span class="swatch" style="background:#d97706"></span>"memory roof: bandwidth × intensity"</li>
                    <li><span class="swatch" style="background:#2563eb"></span>"matmul ceiling (tensor cores)"</li>
                    <li><span class="swatch" style="background:#7c3aed"></span>"pointwise ceiling (plain multiply)"</li>
                    <li><span class="dot"></span>"a kernel (on its roof)"</li>
                    <li><span class="cross">"×"</span>"whole step, overhead included"</li>
                </ul>
                {move || error.get().map(|e| view! { <p class="field-error">"Chart could not be drawn: " {e}</p> })}
            </figcaption>
        </figure>
    }
}

/// A kernel on the roofline.
pub struct Point {
    pub intensity: f64,
    pub flops: f64,
    pub unit: Unit,
    pub bound: Bound,
}

/// Draw the roofs of `m` and the kernels; `step` is the whole step (overhead
/// included), drawn as a cross. Shared by the explorer and the op calculator.
pub fn render(
    canvas: &web_sys::HtmlCanvasElement,
    css_w: f64,
    m: &Machine,
    kernels: &[Point],
    step: Option<(f64, f64)>,
) -> Result<(), String> {
    render_with(canvas, css_w, m, kernels, step, &mut |_, _| Ok(()))
}

/// The chart's axes (intensity, FLOP/s), for overlays.
pub const AXES: ((f64, f64), (f64, f64)) = (X, Y);

/// What [`render_with`] draws on top (the lab's measured roofline). A trait object,
/// so the chart code is compiled once.
pub type Overlay<'a> = dyn FnMut(
        &mut ChartContext<'_, plotters_canvas::CanvasBackend, chart::LogLog>,
        f64,
    ) -> Result<(), String>
    + 'a;

/// [`render`], then `overlay(chart, dpr)` on top.
pub fn render_with(
    canvas: &web_sys::HtmlCanvasElement,
    css_w: f64,
    m: &Machine,
    kernels: &[Point],
    step: Option<(f64, f64)>,
    overlay: &mut Overlay<'_>,
) -> Result<(), String> {
    // Taller on phones so nine decades of FLOP/s stay legible.
    let dpr = chart::fit(
        canvas,
        css_w,
        |w| if w < 560.0 { 0.9 } else { 0.62 },
        260.0,
        520.0,
    );
    chart::draw(canvas, |root| {
        let mut ch = chart::log_log(
            &root,
            X,
            Y,
            "arithmetic intensity (FLOP / byte)",
            "attainable FLOP/s",
            dpr,
        )?;
        let err = |e: DrawingAreaErrorKind<_>| e.to_string();
        let w = chart::px(2.5, dpr);

        // Memory roof up to the matmul ridge, then the two flat ceilings.
        let ridge_mm = roofline::ridge(m.matmul_flops, m.bw).clamp(X.0, X.1);
        let ridge_pw = roofline::ridge(m.pointwise_flops, m.bw).clamp(X.0, X.1);
        let mem_roof = [(X.0, m.bw * X.0), (ridge_mm, m.bw * ridge_mm)];
        ch.draw_series(LineSeries::new(mem_roof, MEMORY.stroke_width(w)))
            .map_err(err)?;
        ch.draw_series(LineSeries::new(
            [(ridge_mm, m.matmul_flops), (X.1, m.matmul_flops)],
            COMPUTE.stroke_width(w),
        ))
        .map_err(err)?;
        ch.draw_series(LineSeries::new(
            [(ridge_pw, m.pointwise_flops), (X.1, m.pointwise_flops)],
            VECTOR.stroke_width(chart::px(2.0, dpr)),
        ))
        .map_err(err)?;

        // Three roof labels only: every label is a DOM text measurement.
        let label_at = |y: f64| (X.1 / 30.0, y * 1.25);
        use plotters::style::text_anchor::{HPos, Pos, VPos};
        let above_right = Pos::new(HPos::Right, VPos::Bottom);
        let below_left = Pos::new(HPos::Left, VPos::Top);
        let lab = [
            (
                label_at(m.matmul_flops),
                format!("matmul {}", units::si(m.matmul_flops, "FLOP/s")),
                COMPUTE,
                above_right,
            ),
            (
                label_at(m.pointwise_flops),
                format!("pointwise {}", units::si(m.pointwise_flops, "FLOP/s")),
                VECTOR,
                above_right,
            ),
            (
                (X.0 * 3.0, m.bw * X.0 * 3.0 / 4.0),
                units::si(m.bw, "B/s"),
                MEMORY,
                below_left,
            ),
        ];
        for (pos, text, color, anchor) in lab {
            if pos.1 > Y.0 && pos.1 < Y.1 {
                ch.draw_series(std::iter::once(Text::new(
                    text,
                    pos,
                    chart::font(11.0, dpr, &color).pos(anchor),
                )))
                .map_err(err)?;
            }
        }

        // Kernels: on their roof by construction (time = max of the two limits).
        let inside = |x: f64, y: f64| x >= X.0 && x <= X.1 && y >= Y.0 && y <= Y.1;
        for k in kernels {
            let (x, y) = (k.intensity, k.flops);
            if !inside(x, y) {
                continue;
            }
            let color = match (k.unit, k.bound) {
                (_, Bound::Memory) => MEMORY,
                (Unit::Matmul, Bound::Compute) => COMPUTE,
                (Unit::Pointwise, Bound::Compute) => VECTOR,
            };
            ch.draw_series(std::iter::once(Circle::new(
                (x, y),
                chart::px(6.0, dpr),
                color.filled(),
            )))
            .map_err(err)?;
            ch.draw_series(std::iter::once(Circle::new(
                (x, y),
                chart::px(6.0, dpr),
                INK.stroke_width(chart::px(1.0, dpr)),
            )))
            .map_err(err)?;
        }
        // The whole step, overhead included: below the roof when the GPU idles.
        if let Some((x, y)) = step.filter(|&(x, y)| inside(x, y)) {
            ch.draw_series(std::iter::once(Cross::new(
                (x, y),
                chart::px(7.0, dpr),
                MUTED.stroke_width(chart::px(2.5, dpr)),
            )))
            .map_err(err)?;
        }
        overlay(&mut ch, dpr)
    })
}
