//! The roofline chart: memory roof, matmul and pointwise ceilings, and kernels as
//! points. Used by the explorer (the current step) and the op calculator.

use super::chart::{self, Area, Look};
use super::plot::{csv, plot_with, shared, Plot, PlotCanvas};
use super::Ctx;
use crate::model::{roofline, units, Bound, Machine, Report, Unit};
use leptos::prelude::*;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

const X: (f64, f64) = (1e-2, 1e5);
const Y: (f64, f64) = (1e8, 1e17);

/// A kernel on the roofline.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub name: &'static str,
    pub intensity: f64,
    pub flops: f64,
    pub unit: Unit,
    pub bound: Bound,
}

/// Roofs of a machine plus kernels; `step` is the whole step (overhead included),
/// drawn as a cross; `measured` is the lab's roofline of this GPU, drawn on top.
#[derive(Clone, Debug, PartialEq)]
pub struct RooflineData {
    pub m: Machine,
    pub kernels: Vec<Point>,
    pub step: Option<(f64, f64)>,
    pub measured: Option<Measured>,
}

/// A roofline measured on the visitor's GPU (the WebGPU lab).
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// Copy bandwidth, bytes/s.
    pub bw: f64,
    /// Compute ceiling reached by the fused chain, FLOP/s.
    pub peak: Option<f64>,
    pub points: Vec<MeasuredPoint>,
}

/// One verified lab kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredPoint {
    pub intensity: f64,
    pub flops: f64,
    pub fused: bool,
    /// `cos` chain (else `x · m`).
    pub cos: bool,
}

const MEASURED: RGBColor = RGBColor(22, 163, 74);
const COS: RGBColor = RGBColor(219, 39, 119);

impl RooflineData {
    pub fn from_report(m: Machine, r: &Report) -> Self {
        RooflineData {
            m,
            kernels: r
                .groups
                .iter()
                .map(|g| Point {
                    name: g.group.name,
                    intensity: g.group.intensity(),
                    flops: g.achieved_flops,
                    unit: g.group.unit,
                    bound: g.bound,
                })
                .collect(),
            step: Some((r.intensity, r.achieved_flops)),
            measured: None,
        }
    }
}

impl Plot for RooflineData {
    // Taller on phones so nine decades of FLOP/s stay legible.
    fn height(&self, w: f64) -> f64 {
        (w * if w < 560.0 { 0.9 } else { 0.62 }).clamp(260.0, 520.0)
    }
    plot_with!(render);
    fn csv(&self) -> String {
        let m = &self.m;
        let mut rows = vec![
            vec![
                "roof".into(),
                "memory bandwidth (B/s)".into(),
                m.bw.to_string(),
                String::new(),
                String::new(),
            ],
            vec![
                "roof".into(),
                "matmul ceiling (FLOP/s)".into(),
                m.matmul_flops.to_string(),
                String::new(),
                String::new(),
            ],
            vec![
                "roof".into(),
                "pointwise ceiling (FLOP/s)".into(),
                m.pointwise_flops.to_string(),
                String::new(),
                String::new(),
            ],
        ];
        for k in &self.kernels {
            let bound = match k.bound {
                Bound::Compute => "compute",
                Bound::Memory => "memory",
            };
            rows.push(vec![
                "kernel".into(),
                k.name.into(),
                String::new(),
                k.intensity.to_string(),
                format!("{} ({bound}-bound)", k.flops),
            ]);
        }
        if let Some((i, f)) = self.step {
            rows.push(vec![
                "step".into(),
                "whole step incl. overhead".into(),
                String::new(),
                i.to_string(),
                f.to_string(),
            ]);
        }
        csv(
            &[
                "kind",
                "name",
                "value",
                "intensity_flop_per_byte",
                "attained_flop_per_s",
            ],
            rows,
        )
    }
}

#[component]
pub fn Roofline(ctx: Ctx) -> impl IntoView {
    let data = Memo::new(move |_| {
        ctx.state.with(|s| {
            ctx.report
                .with(|r| RooflineData::from_report(s.machine(), r))
        })
    });
    let label = Signal::derive(move || {
        ctx.state.with(|s| {
            let m = s.machine();
            format!(
                "Roofline of {} in {}: memory roof {}, matmul ceiling {}, pointwise ceiling {}; \
                 this step is {}.",
                s.hw_name(),
                s.dtype.id(),
                units::si(m.bw, "B/s"),
                units::si(m.matmul_flops, "FLOP/s"),
                units::si(m.pointwise_flops, "FLOP/s"),
                ctx.report.with(|r| r.regime.label()),
            )
        })
    });
    view! {
        <figure class="chart">
            <PlotCanvas ctx=ctx id="roofline-canvas" label=label data=shared(data)/>
            <figcaption>
                <Legend/>
            </figcaption>
        </figure>
    }
}

#[component]
pub fn Legend() -> impl IntoView {
    view! {
        <ul class="legend">
            <li><span class="swatch memory"></span>"memory roof: bandwidth × intensity"</li>
            <li><span class="swatch compute"></span>"matmul ceiling (tensor cores)"</li>
            <li><span class="swatch vector"></span>"pointwise ceiling (plain multiply)"</li>
            <li><span class="dot"></span>"a kernel (on its roof)"</li>
            <li><span class="cross">"×"</span>"whole step, overhead included"</li>
        </ul>
    }
}

fn render<DB: DrawingBackend>(d: &RooflineData, root: Area<DB>, look: &Look) -> Result<(), String> {
    let (m, pal) = (&d.m, look.pal);
    let mut ch = chart::log_log(
        &root,
        X,
        Y,
        "arithmetic intensity (FLOP / byte)",
        "attainable FLOP/s",
        look,
    )?;
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let w = look.px(2.5);

    // Memory roof up to the matmul ridge, then the two flat ceilings.
    let ridge_mm = roofline::ridge(m.matmul_flops, m.bw).clamp(X.0, X.1);
    let ridge_pw = roofline::ridge(m.pointwise_flops, m.bw).clamp(X.0, X.1);
    let mem_roof = [(X.0, m.bw * X.0), (ridge_mm, m.bw * ridge_mm)];
    ch.draw_series(LineSeries::new(mem_roof, pal.memory.stroke_width(w)))
        .map_err(err)?;
    ch.draw_series(LineSeries::new(
        [(ridge_mm, m.matmul_flops), (X.1, m.matmul_flops)],
        pal.compute.stroke_width(w),
    ))
    .map_err(err)?;
    ch.draw_series(LineSeries::new(
        [(ridge_pw, m.pointwise_flops), (X.1, m.pointwise_flops)],
        pal.vector.stroke_width(look.px(2.0)),
    ))
    .map_err(err)?;

    // Three roof labels only: every label is a DOM text measurement.
    let label_at = |y: f64| (X.1 / 30.0, y * 1.25);
    let above_right = Pos::new(HPos::Right, VPos::Bottom);
    let below_left = Pos::new(HPos::Left, VPos::Top);
    let lab = [
        (
            label_at(m.matmul_flops),
            format!("matmul {}", units::si(m.matmul_flops, "FLOP/s")),
            pal.compute,
            above_right,
        ),
        (
            label_at(m.pointwise_flops),
            format!("pointwise {}", units::si(m.pointwise_flops, "FLOP/s")),
            pal.vector,
            above_right,
        ),
        (
            (X.0 * 3.0, m.bw * X.0 * 3.0 / 4.0),
            units::si(m.bw, "B/s"),
            pal.memory,
            below_left,
        ),
    ];
    for (pos, text, color, anchor) in lab {
        if pos.1 > Y.0 && pos.1 < Y.1 {
            ch.draw_series(std::iter::once(Text::new(
                text,
                pos,
                look.font(11.0, &color).pos(anchor),
            )))
            .map_err(err)?;
        }
    }

    // Kernels: on their roof by construction (time = max of the two limits).
    let inside = |x: f64, y: f64| (X.0..=X.1).contains(&x) && (Y.0..=Y.1).contains(&y);
    for k in &d.kernels {
        let (x, y) = (k.intensity, k.flops);
        if !inside(x, y) {
            continue;
        }
        let color = match (k.unit, k.bound) {
            (_, Bound::Memory) => pal.memory,
            (Unit::Matmul, Bound::Compute) => pal.compute,
            (Unit::Pointwise, Bound::Compute) => pal.vector,
        };
        ch.draw_series(std::iter::once(Circle::new(
            (x, y),
            look.px(6.0),
            color.filled(),
        )))
        .map_err(err)?;
        ch.draw_series(std::iter::once(Circle::new(
            (x, y),
            look.px(6.0),
            pal.ink.stroke_width(look.px(1.0)),
        )))
        .map_err(err)?;
    }
    // The whole step, overhead included: below the roof when the GPU idles.
    if let Some((x, y)) = d.step.filter(|&(x, y)| inside(x, y)) {
        ch.draw_series(std::iter::once(Cross::new(
            (x, y),
            look.px(7.0),
            pal.muted.stroke_width(look.px(2.5)),
        )))
        .map_err(err)?;
    }
    // This GPU, measured by the lab: its roof, then every verified kernel (fused
    // filled, eager hollow).
    if let Some(me) = &d.measured {
        let cap = me.peak.unwrap_or(f64::MAX);
        let roof: Vec<(f64, f64)> = match me.peak {
            Some(peak) => {
                let ridge = (peak / me.bw).clamp(X.0, X.1);
                vec![(X.0, me.bw * X.0), (ridge, me.bw * ridge), (X.1, peak)]
            }
            None => vec![(X.0, me.bw * X.0), (X.1, me.bw * X.1)],
        };
        let roof: Vec<(f64, f64)> = roof
            .into_iter()
            .map(|(x, y)| (x, y.min(cap).clamp(Y.0, Y.1)))
            .collect();
        ch.draw_series(LineSeries::new(roof, MEASURED.stroke_width(look.px(3.0))))
            .map_err(err)?;
        let label = format!(
            "measured: {}, {}",
            units::si(me.bw, "B/s"),
            me.peak.map_or("—".into(), |p| units::si(p, "FLOP/s"))
        );
        let y = me.peak.unwrap_or(me.bw * X.1).clamp(Y.0, Y.1 / 4.0);
        ch.draw_series(std::iter::once(Text::new(
            label,
            (X.1 / 30.0, y * 1.25),
            look.font(11.0, &MEASURED)
                .pos(Pos::new(HPos::Right, VPos::Bottom)),
        )))
        .map_err(err)?;
        for p in me.points.iter().filter(|p| inside(p.intensity, p.flops)) {
            let color = if p.cos { COS } else { MEASURED };
            let style = if p.fused {
                color.filled()
            } else {
                color.stroke_width(look.px(1.5))
            };
            ch.draw_series(std::iter::once(Circle::new(
                (p.intensity, p.flops),
                look.px(4.5),
                style,
            )))
            .map_err(err)?;
        }
    }
    Ok(())
}
