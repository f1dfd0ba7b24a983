//! The scaling chart the `llm` and `dit` widgets share: time per step
//! against the GPU count (1, 2, 4, 8) over the current link, with the step's parts
//! as lines coloured as in the widget's bar (communication in its own colour),
//! the current count marked, and a line where adding GPUs stops paying
//! (`model::parallel::stops_paying`). The widget computes the points; this file
//! only draws them.

use crate::model::units;
use crate::ui::chart::backend::{AnyBackend, AnyError};
use crate::ui::chart::palette::{self, Palette};
use crate::ui::chart::plot::{csv, plot_with, Marks, Plot};
use crate::ui::chart::{self, Area, Look};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Readout labels more than one widget shows (`llm` and `dit` beside this
/// chart; `overhead` the double-batch ratio), written once.
pub mod label {
    /// The legend's communication swatch.
    pub const COMM_SWATCH: &str = "communication (waiting on other GPUs)";
    /// The regime readout.
    pub const LIMITS: &str = "What limits the step";
    /// The double-batch ratio readout.
    pub const DOUBLE_BATCH: &str = "Double the batch: time ×";
    /// The communication share readout.
    pub const COMM_SHARE: &str = "Waiting on other GPUs";
    /// The scaling efficiency readout.
    pub const EFFICIENCY: &str = "Scaling efficiency";
}

/// The colour of one part, by the CSS class the widget's bar gives it.
fn color(class: &str, pal: &Palette) -> RGBColor {
    match class {
        "compute" => pal.compute,
        "memory" => pal.memory,
        "vector" => pal.vector,
        "kv" => palette::rgb(palette::PINK),
        "comm" => pal.comm,
        _ => pal.muted,
    }
}

/// One GPU count: the wall time, its parts (in [`Scaling::parts`]' order) and
/// whether it fits in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub gpus: u32,
    pub wall: f64,
    pub parts: Vec<f64>,
    pub fits: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scaling {
    /// Each part's CSS class and words.
    pub parts: &'static [(&'static str, &'static str)],
    pub points: Vec<Point>,
    /// The widget's own GPU count.
    pub current: u32,
    /// Where a doubling stops paying.
    pub stops: Option<u32>,
    /// The link's name, for the tooltips.
    pub link: &'static str,
}

impl Plot for Scaling {
    fn height(&self, w: f64) -> f64 {
        (w * 0.5).clamp(240.0, 320.0)
    }
    plot_with!(marks render);
    fn csv(&self) -> String {
        let mut head = vec!["gpus".to_string(), "step_s".to_string()];
        head.extend(self.parts.iter().map(|p| format!("{}_s", p.0)));
        head.push("fits".into());
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        csv(
            &head,
            self.points.iter().map(|p| {
                let mut row = vec![p.gpus.to_string(), p.wall.to_string()];
                row.extend(p.parts.iter().map(f64::to_string));
                row.push(u8::from(p.fits).to_string());
                row
            }),
        )
    }
}

/// The segments and dots a label must keep clear of.
type Drawn<'a> = (&'a [[(f64, f64); 2]], &'a [(f64, f64)]);

/// The dashed line where adding GPUs stops paying, and its label placed clear
/// of every drawn line and dot (`geom::marker_labels`, as the llm sweep's
/// markers), its box recorded for the tests (`data-geometry`).
fn stops_label(
    ch: &mut ChartContext<'_, AnyBackend<'_>, chart::LogLog>,
    root: &Area<AnyBackend<'_>>,
    at: u32,
    yr: (f64, f64),
    (lines, dots): Drawn<'_>,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    let err = |e: DrawingAreaErrorKind<AnyError>| e.to_string();
    let x = f64::from(at);
    ch.draw_series(DashedLineSeries::new(
        [(x, yr.0), (x, yr.1)],
        look.px(5.0),
        look.px(4.0),
        pal.comm.stroke_width(look.px(1.5)),
    ))
    .map_err(err)?;
    let text = format!(
        "stops paying {}",
        crate::model::parallel::stops_words(Some(at))
    );
    let r = f64::from(look.px(5.0));
    let dots: Vec<crate::geom::Rect> = dots
        .iter()
        .map(|&(x, y)| crate::geom::Rect::at(x - r, y - r, 2.0 * r, 2.0 * r))
        .collect();
    let size = chart::text_size(&text, 11.0 * look.dpr);
    let boxes = crate::geom::marker_labels(
        &[(chart::to_px(ch, (x, yr.0)).0, size, false)],
        lines,
        &dots,
        chart::plot_rect(ch),
        3.0 * look.dpr,
    );
    let Some(Some(bx)) = boxes.first() else {
        return Ok(()); // no room clear of the data: the line alone
    };
    let (ox, oy) = {
        let (x, y) = root.get_pixel_range();
        (f64::from(x.start), f64::from(y.start))
    };
    let top_left = ((bx.x0 - ox).round() as i32, (bx.y0 - oy).round() as i32);
    let end = ((bx.x1 - ox).round() as i32, (bx.y1 - oy).round() as i32);
    root.draw(&Rectangle::new([top_left, end], pal.bg.mix(0.75).filled()))
        .map_err(err)?;
    root.draw(&Text::new(
        text,
        top_left,
        look.font(11.0, &pal.comm)
            .pos(Pos::new(HPos::Left, VPos::Top)),
    ))
    .map_err(err)?;
    marks.label("stops paying", bx);
    Ok(())
}

fn render(
    s: &Scaling,
    root: Area<AnyBackend<'_>>,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let pal = look.pal;
    let err = |e: DrawingAreaErrorKind<AnyError>| e.to_string();
    let xr = (0.8, 10.0);
    let vals = s
        .points
        .iter()
        .flat_map(|p| std::iter::once(p.wall).chain(p.parts.iter().copied()));
    let (lo, hi) = vals
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let yr = if lo > hi {
        (1e-6, 1.0)
    } else {
        let top = 10f64.powf(hi.log10().ceil());
        // parts far below the step would stretch the axis: three decades at most
        (10f64.powf(lo.log10().floor()).max(top * 1e-3), top)
    };
    let mut ch = chart::log_log(&root, xr, yr, "GPUs", "seconds per step", look)?;
    marks.area(&chart::plot_rect(&ch), xr, yr);
    let line = |get: &dyn Fn(&Point) -> f64| -> Vec<(f64, f64)> {
        s.points
            .iter()
            .map(|p| (f64::from(p.gpus), get(p)))
            .filter(|p| p.1 >= yr.0 && p.1 <= yr.1)
            .collect()
    };
    // every drawn line, in pixels: the label must keep off them
    let mut drawn: Vec<[(f64, f64); 2]> = Vec::new();
    let mut keep = |pts: &[(f64, f64)], ch: &ChartContext<'_, AnyBackend<'_>, chart::LogLog>| {
        drawn.extend(
            pts.windows(2)
                .map(|w| [chart::to_px(ch, w[0]), chart::to_px(ch, w[1])]),
        );
    };
    for (i, (class, _)) in s.parts.iter().enumerate() {
        let pts = line(&|p: &Point| p.parts.get(i).copied().unwrap_or(0.0));
        keep(&pts, &ch);
        ch.draw_series(LineSeries::new(
            pts,
            color(class, &pal).stroke_width(look.px(1.5)),
        ))
        .map_err(err)?;
    }
    let total = line(&|p: &Point| p.wall);
    keep(&total, &ch);
    let dots: Vec<(f64, f64)> = total.iter().map(|&p| chart::to_px(&ch, p)).collect();
    ch.draw_series(LineSeries::new(total, pal.ink.stroke_width(look.px(2.5))))
        .map_err(err)?;
    if let Some(at) = s.stops {
        stops_label(&mut ch, &root, at, yr, (&drawn, &dots), look, marks)?;
    }
    // the counts between the decade ticks (1 and 10 are the axis's own)
    let (ox, oy) = {
        let (x, y) = root.get_pixel_range();
        (x.start, y.start)
    };
    for p in s.points.iter().filter(|p| p.gpus > 1) {
        let (px, py) = ch.backend_coord(&(f64::from(p.gpus), yr.0));
        root.draw(&Text::new(
            p.gpus.to_string(),
            (px - ox, py - oy + look.px(6.0) as i32),
            look.font(11.0, &pal.muted)
                .pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(err)?;
    }
    for p in &s.points {
        let at = (f64::from(p.gpus), p.wall);
        if at.1 < yr.0 || at.1 > yr.1 {
            continue;
        }
        let current = p.gpus == s.current;
        let mut lines = vec![
            format!(
                "{}{}",
                units::count(p.gpus, "GPU", "GPUs"),
                if current { " (current)" } else { "" }
            ),
            format!("step {}", units::si(p.wall, "s")),
        ];
        lines.extend(s.parts.iter().zip(&p.parts).map(|((_, words), t)| {
            format!(
                "{words} {}",
                units::percent(t / p.wall.max(f64::MIN_POSITIVE))
            )
        }));
        if p.gpus > 1 {
            lines.push(format!("over {}", s.link));
        }
        if !p.fits {
            lines.push("does not fit in memory".into());
        }
        marks.point(
            ch.backend_coord(&at),
            if current {
                "scale-current"
            } else {
                "scale-gpus"
            },
            at,
            "",
            lines,
        );
        let dot = if p.fits { pal.ink } else { pal.muted };
        ch.draw_series(std::iter::once(Circle::new(
            at,
            look.px(if current { 5.0 } else { 3.0 }),
            dot.filled(),
        )))
        .map_err(err)?;
    }
    Ok(())
}
