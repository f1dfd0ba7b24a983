//! The roofline chart: memory roof, matmul and pointwise ceilings, and kernels as
//! points. Used by the explorer (the current step) and the op calculator.

use crate::geom::{self, Along, Pt, Rect, ROOFLINE_X as X, ROOFLINE_Y as Y};
use crate::model::timeline::{LinkRoof, RoofStep as Step};
use crate::model::workload::RoofPoint;
use crate::model::{units, Bound, Level, Machine, Report, Unit};
use crate::ui::chart::backend::{AnyBackend, AnyError};
use crate::ui::chart::palette::{self, rgb};
use crate::ui::chart::plot::{csv, plot_with, shared, Marks, Plot, PlotCanvas};
use crate::ui::chart::{self, Area, Look};
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Roofs of a machine plus kernels; `step` is the whole step (overhead included),
/// drawn as a cross; `measured` is the lab's roofline of this GPU, drawn on top.
#[derive(Clone, Debug, PartialEq)]
pub struct RooflineData {
    pub m: Machine,
    pub kernels: Vec<RoofPoint>,
    pub step: Option<Step>,
    pub measured: Option<Measured>,
    /// Several GPUs: the link's roof and the step against it.
    pub link: Option<LinkRoof>,
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
    /// Ops per element.
    pub repeat: u32,
    /// Median seconds per run.
    pub time: f64,
}

const MEASURED: RGBColor = rgb(palette::GREEN);
const COS: RGBColor = rgb(palette::PINK);

impl RooflineData {
    pub fn from_report(m: Machine, r: &Report) -> Self {
        RooflineData {
            m,
            kernels: r.roof_points(),
            step: Some(r.roof_step()),
            measured: None,
            link: None,
        }
    }
}

impl Plot for RooflineData {
    /// On narrow screens half as tall as wide (at least 160 px): a phone's
    /// pinned panel holds the answer, the whole chart, its exports and legend
    /// within 40 % of the screen, and the chart keeps the full width its
    /// ceiling labels need; on wide ones at most 440 px, so the explorer's
    /// chart, its answer and the batch slider share the first screen of a
    /// 1280 × 900 window.
    fn height(&self, w: f64) -> f64 {
        if w < 560.0 {
            (w * 0.5).clamp(160.0, 520.0)
        } else {
            (w * 0.62).clamp(260.0, 440.0)
        }
    }
    plot_with!(marks render);
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
                k.name.to_string(),
                String::new(),
                k.intensity.to_string(),
                format!("{} ({bound}-bound)", k.flops),
            ]);
        }
        if let Some(st) = self.step {
            rows.push(vec![
                "step".into(),
                "whole step incl. overhead".into(),
                String::new(),
                st.intensity.to_string(),
                st.flops.to_string(),
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
                .with(|r| RooflineData::from_report(s.cached(), r))
        })
    });
    let label = Signal::derive(move || {
        ctx.state.with(|s| {
            let m = s.cached();
            let l2 = m.l2.map_or(String::new(), |_| {
                format!(" (L2 roof {})", units::si(m.level_bw(Level::L2), "B/s"))
            });
            format!(
                "Roofline of {} in {}: memory roof {}{l2}, matmul ceiling {}, pointwise ceiling {}; \
                 this step is {}.",
                s.hw_name(),
                s.setting.dtype.id(),
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
                <Legend ctx=ctx/>
            </figcaption>
        </figure>
    }
}

#[component]
pub fn Legend(ctx: Ctx) -> impl IntoView {
    // tensor cores only where the dtype's matmuls run on them
    let units = move || {
        ctx.view.with(|s| {
            if s.setting.dtype == crate::model::Dtype::Fp32
                && s.setting.hw.fp32_matmul > s.setting.hw.fp32_vector
            {
                "matmul ceiling (matrix cores, fp32)"
            } else if s.setting.dtype == crate::model::Dtype::Fp32 {
                "matmul ceiling (fp32 units, no tensor cores)"
            } else {
                "matmul ceiling (tensor cores)"
            }
        })
    };
    // a kernel sits on its roof unless the GPU's kernel floor (the shortest
    // time any kernel takes) holds it below: the legend names the floor
    let floor = move || {
        ctx.view.with(|s| {
            format!(
                "a kernel: on its roof, or below it at the {} kernel floor",
                units::si(s.machine().floor, "s")
            )
        })
    };
    view! {
        <ul class="legend">
            <li><span class="swatch memory"></span>"memory roof: bandwidth × intensity"</li>
            <L2Legend ctx=ctx/>
            <li><span class="swatch compute"></span>{units}</li>
            <li><span class="swatch vector"></span>"pointwise ceiling (plain multiply)"</li>
            <li><span class="dot"></span>{floor}</li>
            <li><span class="cross">"×"</span>"whole step, overhead included"</li>
        </ul>
    }
}

/// The L2 roof's legend line and the `roof_l2_bw` readout (the GPU's measured
/// L2 bandwidth: the lab's cache cliff on a measured GPU that found one, else
/// the preset's), absent where no source gives one; where the model prices on
/// it, up to what working set and what it assumes.
#[component]
fn L2Legend(ctx: Ctx) -> impl IntoView {
    let l2 = Memo::new(move |_| {
        ctx.view.with(|s| {
            (
                crate::model::hardware::l2(s.setting.hw).bw,
                s.setting.l2_measured.is_some(),
                s.cached(),
            )
        })
    });
    move || {
        l2.with(|(preset_bw, by_lab, m)| {
            let bw = m.l2.map(|r| r.bw).or(*preset_bw)?;
            let fits = m.l2.map_or(String::new(), |r| {
                format!(
                    ": kernels whose working set fits, up to {}, are priced on it, as if their \
                     data were still in L2 from the step before",
                    units::si(r.fits, "B")
                )
            });
            let by = if *by_lab {
                "L2 roof, measured by the lab's cache sweep "
            } else {
                "L2 roof, measured "
            };
            Some(view! {
                <li class="l2">
                    <span class="swatch memory l2"></span>{by}
                    <span data-metric="roof_l2_bw" data-value=bw.to_string()>{units::si(bw, "B/s")}</span>
                    {fits}
                </li>
            })
        })
    }
}

/// The tooltip of a kernel, the step or a measured kernel: its name, then its
/// numbers.
fn tip(name: String, intensity: f64, flops: f64, time: String, last: &str) -> Vec<String> {
    vec![
        name,
        format!("intensity {} FLOP/B", units::sig3(intensity)),
        format!("attains {}", units::si(flops, "FLOP/s")),
        time,
        last.to_string(),
    ]
}

fn bound_id(b: Bound) -> &'static str {
    match b {
        Bound::Compute => "compute",
        Bound::Memory => "memory",
    }
}

/// The chart the roofline draws in: log-log, on either backend.
type Ch<'a, 'b> = ChartContext<'a, AnyBackend<'b>, chart::LogLog>;
/// A pixel on the canvas.
type Px = (i32, i32);

fn render(
    d: &RooflineData,
    root: Area<AnyBackend<'_>>,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let mut ch = chart::log_log(
        &root,
        X,
        Y,
        "arithmetic intensity (FLOP / byte)",
        "attainable FLOP/s",
        look,
    )?;
    let area = chart::plot_rect(&ch);
    marks.area(&area, X, Y);
    let top = d.m.matmul_flops.max(d.m.pointwise_flops);
    for (name, seg, style) in &lines(d, look, top) {
        if let Some(seg) = seg {
            ch.draw_series(LineSeries::new(seg.iter().copied(), *style))
                .map_err(err)?;
            marks.line(name, *seg);
        }
    }
    // the points, in pixels: drawn last (on top), avoided by the labels
    let p = Dots::of(d, &ch);
    let r = 8.0 * look.dpr;
    let dots: Vec<Rect> = p
        .kernels
        .iter()
        .map(|k| k.1)
        .chain(p.step.map(|s| s.1))
        .chain(p.link.map(|l| l.1))
        .chain(p.measured.iter().map(|m| m.1))
        .map(|(x, y)| Rect::at(f64::from(x) - r, f64::from(y) - r, 2.0 * r, 2.0 * r))
        .collect();
    draw_labels(&root, &ch, &labels(d, look, top), area, &dots, look, marks)?;
    draw_kernels(&mut ch, &p.kernels, look, marks)?;
    draw_step(&mut ch, &p, look, marks)?;
    draw_measured(&mut ch, &p.measured, look, marks)
}

fn err(e: DrawingAreaErrorKind<AnyError>) -> String {
    e.to_string()
}

/// Every line, cut to the axes in data coordinates (geom): plotters would clamp
/// an end outside the axes into the corner and bend the line.
#[inline(always)] // one call site: the page's .wasm stays as before the split
fn lines(
    d: &RooflineData,
    look: &Look,
    top: f64,
) -> Vec<(&'static str, Option<[Pt; 2]>, ShapeStyle)> {
    let (m, pal) = (&d.m, look.pal);
    let mut lines = vec![
        (
            "memory",
            geom::memory_roof(m.bw, top, X, Y),
            pal.memory.stroke_width(look.px(2.5)),
        ),
        (
            "matmul",
            geom::ceiling_line(m.matmul_flops, m.fastest_bw(), X, Y),
            pal.compute.stroke_width(look.px(2.5)),
        ),
        (
            "pointwise",
            geom::ceiling_line(m.pointwise_flops, m.fastest_bw(), X, Y),
            pal.vector.stroke_width(look.px(2.0)),
        ),
    ];
    if m.l2.is_some() {
        lines.push((
            "L2",
            geom::memory_roof(m.level_bw(Level::L2), top, X, Y),
            pal.memory.mix(0.6).stroke_width(look.px(2.0)),
        ));
    }
    // This GPU, measured by the lab: its own roof.
    if let Some(me) = &d.measured {
        let style = MEASURED.stroke_width(look.px(3.0));
        let peak = me.peak.unwrap_or(f64::INFINITY);
        lines.push((
            "measured memory",
            geom::memory_roof(me.bw, peak, X, Y),
            style,
        ));
        if let Some(p) = me.peak {
            lines.push(("measured peak", geom::ceiling_line(p, me.bw, X, Y), style));
        }
    }
    if let Some(l) = &d.link {
        lines.push((
            "link",
            geom::memory_roof(l.bw, top, X, Y),
            pal.comm.stroke_width(look.px(2.0)),
        ));
    }
    lines
}

/// The points inside the axes, each with its pixel.
struct Dots<'d> {
    kernels: Vec<(&'d RoofPoint, Px)>,
    step: Option<(Step, Px)>,
    link: Option<(&'d LinkRoof, Px)>,
    measured: Vec<(&'d MeasuredPoint, Px)>,
}

impl<'d> Dots<'d> {
    #[inline(always)] // one call site: the page's .wasm stays as before the split
    fn of(d: &'d RooflineData, ch: &Ch) -> Self {
        let inside = |(x, y): Pt| (X.0..=X.1).contains(&x) && (Y.0..=Y.1).contains(&y);
        let px = |x: f64, y: f64| ch.backend_coord(&(x, y));
        Dots {
            kernels: d
                .kernels
                .iter()
                .filter(|k| inside((k.intensity, k.flops)))
                .map(|k| (k, px(k.intensity, k.flops)))
                .collect(),
            step: d
                .step
                .filter(|s| inside((s.intensity, s.flops)))
                .map(|s| (s, px(s.intensity, s.flops))),
            link: d
                .link
                .as_ref()
                .filter(|l| inside((l.intensity, l.flops)))
                .map(|l| (l, px(l.intensity, l.flops))),
            measured: d
                .measured
                .iter()
                .flat_map(|me| &me.points)
                .filter(|p| inside((p.intensity, p.flops)))
                .map(|p| (p, px(p.intensity, p.flops)))
                .collect(),
        }
    }
}

/// One label per line: what it says, its colour and the line it sits along.
#[inline(always)] // one call site: the page's .wasm stays as before the split
fn labels(d: &RooflineData, look: &Look, top: f64) -> Vec<(&'static str, String, RGBColor, Along)> {
    let (m, pal) = (&d.m, look.pal);
    let mut labels = vec![
        (
            "matmul",
            format!("matmul {}", units::si(m.matmul_flops, "FLOP/s")),
            pal.compute,
            Along::Ceiling {
                value: m.matmul_flops,
                bw: m.fastest_bw(),
            },
        ),
        (
            "pointwise",
            format!("pointwise {}", units::si(m.pointwise_flops, "FLOP/s")),
            pal.vector,
            Along::Ceiling {
                value: m.pointwise_flops,
                bw: m.fastest_bw(),
            },
        ),
        (
            "memory",
            if m.l2.is_some() {
                format!("HBM {}", units::si(m.bw, "B/s"))
            } else {
                units::si(m.bw, "B/s")
            },
            pal.memory,
            Along::Roof { bw: m.bw, top },
        ),
    ];
    if m.l2.is_some() {
        let bw = m.level_bw(Level::L2);
        labels.push((
            "L2",
            format!("L2 {}", units::si(bw, "B/s")),
            pal.memory,
            Along::Roof { bw, top },
        ));
    }
    if let Some(l) = &d.link {
        labels.push((
            "link",
            format!("link {}", units::si(l.bw, "B/s")),
            pal.comm,
            Along::Roof { bw: l.bw, top },
        ));
    }
    if let Some(me) = &d.measured {
        let text = format!(
            "measured: {}, {}",
            units::si(me.bw, "B/s"),
            me.peak.map_or("—".into(), |p| units::si(p, "FLOP/s"))
        );
        let along = match me.peak {
            Some(value) if geom::ceiling_line(value, me.bw, X, Y).is_some() => {
                Along::Ceiling { value, bw: me.bw }
            }
            peak => Along::Roof {
                bw: me.bw,
                top: peak.unwrap_or(f64::INFINITY),
            },
        };
        labels.push(("measured", text, MEASURED, along));
    }
    labels
}

/// The labels, placed so that none overlaps another, a line or a point (geom).
/// Few labels: each is a text measurement.
#[inline(always)] // one call site: the page's .wasm stays as before the split
fn draw_labels(
    root: &Area<AnyBackend<'_>>,
    ch: &Ch,
    labels: &[(&'static str, String, RGBColor, Along)],
    area: Rect,
    dots: &[Rect],
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let size = 11.0 * look.dpr;
    let specs: Vec<(Along, (f64, f64))> = labels
        .iter()
        .map(|(_, text, _, along)| (*along, chart::text_size(text, size)))
        .collect();
    let boxes = geom::roofline_labels(&specs, X, Y, &|p| chart::to_px(ch, p), area, dots, look.dpr);
    let (ox, oy) = {
        let (x, y) = root.get_pixel_range();
        (f64::from(x.start), f64::from(y.start))
    };
    let top_left = Pos::new(HPos::Left, VPos::Top);
    for ((name, text, color, _), b) in labels.iter().zip(&boxes) {
        let Some(b) = b else { continue };
        let at = ((b.x0 - ox).round() as i32, (b.y0 - oy).round() as i32);
        // a halo: readable even where no place clear of every line was left
        let end = ((b.x1 - ox).round() as i32, (b.y1 - oy).round() as i32);
        root.draw(&Rectangle::new([at, end], look.pal.bg.mix(0.75).filled()))
            .map_err(err)?;
        root.draw(&Text::new(
            text.as_str(),
            at,
            look.font(11.0, color).pos(top_left),
        ))
        .map_err(err)?;
        marks.label(name, b);
    }
    Ok(())
}

/// Kernels: on their roof by construction (time = max of the two limits).
#[inline(always)] // one call site: the page's .wasm stays as before the split
fn draw_kernels(
    ch: &mut Ch,
    kernels: &[(&RoofPoint, Px)],
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    for (k, px) in kernels {
        let (x, y) = (k.intensity, k.flops);
        let color = match (k.unit, k.bound) {
            (_, Bound::Memory) => pal.memory,
            (Unit::Matmul, Bound::Compute) => pal.compute,
            (Unit::Pointwise, Bound::Compute) => pal.vector,
            (Unit::Collective { .. }, _) => pal.comm,
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
        let name = if k.count > 1 {
            format!("{}: {}", k.name, units::count(k.count, "kernel", "kernels"))
        } else {
            format!("{}: 1 kernel", k.name)
        };
        let bound = bound_id(k.bound);
        marks.point(
            *px,
            "kernel",
            (x, y),
            bound,
            tip(
                name,
                x,
                y,
                format!("time {} per kernel", units::si(k.time, "s")),
                &format!("{bound}-bound"),
            ),
        );
    }
    Ok(())
}

/// The step against the link (x: its FLOPs per byte over the link) and the
/// whole step, overhead included (below the roof when the GPU idles).
#[inline(always)] // one call site: the page's .wasm stays as before the split
fn draw_step(ch: &mut Ch, p: &Dots, look: &Look, marks: &mut Marks) -> Result<(), String> {
    let pal = look.pal;
    if let Some((l, px)) = p.link {
        ch.draw_series(std::iter::once(TriangleMarker::new(
            (l.intensity, l.flops),
            look.px(7.0),
            pal.comm.filled(),
        )))
        .map_err(err)?;
        marks.point(
            px,
            "link",
            (l.intensity, l.flops),
            "communication",
            vec![
                "the step against the link".into(),
                format!("{} FLOP per byte over the link", units::sig3(l.intensity)),
                units::si(l.flops, "FLOP/s"),
                format!(
                    "link roof there: {}",
                    units::si(l.intensity * l.bw, "FLOP/s")
                ),
            ],
        );
    }
    if let Some((s, px)) = p.step {
        ch.draw_series(std::iter::once(Cross::new(
            (s.intensity, s.flops),
            look.px(7.0),
            pal.muted.stroke_width(look.px(2.5)),
        )))
        .map_err(err)?;
        marks.point(
            px,
            "step",
            (s.intensity, s.flops),
            s.regime.id(),
            tip(
                "whole step, overhead included".into(),
                s.intensity,
                s.flops,
                format!("time {} per step", units::si(s.time, "s")),
                s.regime.label(),
            ),
        );
    }
    Ok(())
}

/// Every verified lab kernel (fused filled, eager hollow).
#[inline(always)] // one call site: the page's .wasm stays as before the split
fn draw_measured(
    ch: &mut Ch,
    measured: &[(&MeasuredPoint, Px)],
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    for (p, px) in measured {
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
        let name = format!(
            "measured: {} {} chain, {}",
            if p.fused { "fused" } else { "eager" },
            if p.cos { "cos" } else { "x · m" },
            if p.fused {
                units::count(p.repeat, "op", "ops")
            } else {
                units::count(p.repeat.max(1), "kernel", "kernels")
            }
        );
        marks.point(
            *px,
            "measured",
            (p.intensity, p.flops),
            "",
            tip(
                name,
                p.intensity,
                p.flops,
                format!("time {} per run", units::si(p.time, "s")),
                "measured on this GPU",
            ),
        );
    }
    Ok(())
}
