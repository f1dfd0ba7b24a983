//! The trace widget's two charts: its kernels on the roofline of their GPU, and
//! the busiest second as the profiler draws it (GPU streams and the launching
//! CPU thread, kernels coloured by class, idle gaps left blank), with zoom and
//! pan. Both are [`Plot`]s, so they get the page's chart scaffolding (sizing,
//! theme, hover/keyboard tooltips on points, PNG/SVG/CSV exports).

use super::row::{PlacedRow as Placed, Rank, TimelineRow as Timeline};
use crate::geom::{self, Rect};
use crate::model::achievable::Roof;
use crate::model::hardware::{self, Dtype, Preset};
use crate::model::setting::Setting;
use crate::model::{units, Bound, Machine, Unit};
use crate::ui::chart::backend::{AnyBackend, AnyError};
use crate::ui::chart::palette::{self, rgb};
use crate::ui::chart::plot::{csv, plot_with, Marks, Plot};
use crate::ui::chart::plot::{Chart, SharedPlot};
use crate::ui::chart::{Area, Look};
use crate::ui::widgets::roofline::{Point, RooflineData};
use leptos::prelude::*;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::collections::BTreeMap;
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// The dtype whose matmul ceiling the chart draws: the one the placed
/// matmul-class kernels spent most time in, else the one all placed kernels
/// did (an fp32 run is drawn against fp32, or TF32 where a kernel's name says
/// so), else the preset's own; if the preset has it.
pub fn roof_dtype(hw: &Preset, placed: &[Placed]) -> Dtype {
    dtype_by_time(hw, placed, true)
        .or_else(|| dtype_by_time(hw, placed, false))
        .filter(|d| hw.supports(*d))
        .unwrap_or_else(|| hw.default_dtype())
}

/// The dtype the placed kernels (matmul-class ones only, or all) spent most
/// time in; `None` where none says.
fn dtype_by_time(_hw: &Preset, placed: &[Placed], matmul_only: bool) -> Option<Dtype> {
    let mut time = [0.0; 4];
    for p in placed
        .iter()
        .filter(|p| !matmul_only || is_matmul_class(&p.class))
    {
        if let Some(i) = p
            .dtype
            .as_deref()
            .and_then(|d| crate::trace::roof_dtype(d, false))
            .and_then(|d| Dtype::ALL.iter().position(|x| *x == d))
        {
            if let Some(t) = time.get_mut(i) {
                *t += p.time_s.max(0.0);
            }
        }
    }
    Dtype::ALL
        .iter()
        .zip(time)
        .filter(|(_, t)| *t > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(d, _)| *d)
}

fn is_matmul_class(class: &str) -> bool {
    matches!(class, "matmul" | "attention")
}

/// The roofs of `hw` in `dtype` (datasheet or achievable), as the explorer
/// builds them.
pub fn machine(hw: &'static Preset, dtype: Dtype, roof: Roof) -> Machine {
    Setting::on(hw, dtype, roof).machine()
}

/// The placed kernels as roofline points on `m`: at their achieved FLOP/s and
/// intensity, coloured by the roof that binds at that intensity; the name line
/// says how far below it they ran.
pub fn roof_points(m: &Machine, placed: &[Placed]) -> Vec<Point> {
    placed
        .iter()
        .filter(|p| p.flops > 0.0 && p.bytes > 0.0 && p.time_s > 0.0 && p.count >= 1)
        .map(|p| {
            let unit = if is_matmul_class(&p.class) {
                Unit::Matmul
            } else {
                Unit::Pointwise
            };
            let intensity = p.flops / p.bytes;
            let achieved = p.flops / p.time_s;
            let (mem, top) = (m.bw * intensity, m.ceiling(unit));
            let bound = if mem < top {
                Bound::Memory
            } else {
                Bound::Compute
            };
            let of_roof = achieved / mem.min(top);
            Point {
                name: format!(
                    "{} ({}), {} of its roof",
                    short(&p.kernel, 48),
                    p.op,
                    units::percent(of_roof)
                )
                .into(),
                intensity,
                flops: achieved,
                time: p.time_s / p.count as f64,
                count: u32::try_from(p.count).unwrap_or(u32::MAX),
                unit,
                bound,
            }
        })
        .collect()
}

/// What the chart's points say in words: the matmul-class kernels together
/// against the roof at their combined intensity, and how many points sit above
/// their roof: on another GPU than the trace's, that they ran faster than the
/// picked GPU's roof allows (they ran on the trace's GPU); on its own, that the
/// op moved fewer bytes than its shapes imply, or did less. `own` names the
/// trace's GPU when `hw` is another one.
pub fn roof_summary(
    m: &Machine,
    hw: &Preset,
    dt: Dtype,
    roof: Roof,
    pts: &[Point],
    own: Option<&str>,
) -> Vec<String> {
    let mut out = Vec::new();
    let (mut flops, mut secs, mut bytes, mut calls) = (0.0, 0.0, 0.0, 0u64);
    for p in pts.iter().filter(|p| p.unit == Unit::Matmul) {
        let t = p.time * f64::from(p.count);
        let f = p.flops * t;
        flops += f;
        secs += t;
        bytes += f / p.intensity;
        calls += u64::from(p.count);
    }
    if flops > 0.0 && secs > 0.0 && bytes > 0.0 {
        let (achieved, intensity) = (flops / secs, flops / bytes);
        let attainable = m.matmul_flops.min(m.bw * intensity);
        out.push(format!(
            "The matmul, conv and attention kernels placed here ({}) did {} in {}: {} at {} FLOP per byte, {} of the {} allows there ({}, {} roofs: {}).",
            units::count(u32::try_from(calls).unwrap_or(u32::MAX), "call", "calls"),
            units::si(flops, "FLOP"),
            units::si(secs, "s"),
            units::si(achieved, "FLOP/s"),
            units::sig3(intensity),
            units::percent(achieved / attainable),
            hw.name,
            dt.label(),
            roof.id(),
            units::si(attainable, "FLOP/s")
        ));
    }
    let above = pts
        .iter()
        .filter(|p| p.flops > 1.0001 * m.ceiling(p.unit).min(m.bw * p.intensity))
        .count();
    if above > 0 {
        out.push(match own {
            Some(gpu) => format!(
                "{above} of the {} {} above the {}'s roof: those kernels ran faster than the picked GPU allows, because they ran on the {gpu}, not on the picked one.",
                units::count(pts.len() as u32, "point", "points"),
                if above == 1 { "sits" } else { "sit" },
                hw.name
            ),
            None => format!(
                "{above} of the {} {} above their roof: their op moved fewer bytes than its shapes count (a cache hit, a broadcast, an in-place op) or did less than they imply; the roofline bounds what the counted work could take, not these kernels.",
                units::count(pts.len() as u32, "point", "points"),
                if above == 1 { "sits" } else { "sit" }
            ),
        });
    }
    out
}

/// The roofline chart of a trace's kernels.
pub fn roofline(m: Machine, placed: &[Placed]) -> RooflineData {
    RooflineData {
        m,
        kernels: roof_points(&m, placed),
        step: None,
        measured: None,
        link: None,
    }
}

pub fn short(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        format!("{}…", name.chars().take(max - 1).collect::<String>())
    }
}

/// The timeline between `from` and `to` (seconds from the span's start).
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineView {
    pub t: std::sync::Arc<Timeline>,
    pub from: f64,
    pub to: f64,
}

const LANE_PX: f64 = 26.0;
/// The classes a timeline span can have (`data-bound` of its tooltip point).
const CLASSES: [&str; 8] = [
    "matmul",
    "attention",
    "communication",
    "copy",
    "normalisation",
    "reduction",
    "pointwise",
    "launch",
];
const LABEL_PX: f64 = 150.0;

/// A class's colour: the cost class it stands for (compute blue, attention
/// violet, memory-bound amber, communication green, CPU launches grey).
fn class_color(look: &Look, class: &str) -> RGBColor {
    match class {
        "matmul" => look.pal.compute,
        "attention" => look.pal.vector,
        "communication" => rgb(palette::COMM),
        "launch" => rgb(palette::OVERHEAD),
        _ => look.pal.memory,
    }
}

impl Plot for TimelineView {
    fn height(&self, _w: f64) -> f64 {
        40.0 + 12.0 + LANE_PX * self.t.lanes.len().max(1) as f64
    }
    plot_with!(marks render_timeline);
    fn csv(&self) -> String {
        let t = &self.t;
        let rows: Vec<Vec<String>> = t
            .lanes
            .iter()
            .flat_map(|l| {
                l.spans
                    .iter()
                    .filter(|s| s[0] + s[1] >= self.from && s[0] <= self.to)
                    .map(move |s| {
                        vec![
                            l.label.clone(),
                            t.classes.get(s[2] as usize).cloned().unwrap_or_default(),
                            t.names.get(s[3] as usize).cloned().unwrap_or_default(),
                            s[0].to_string(),
                            s[1].to_string(),
                        ]
                    })
            })
            .collect();
        csv(&["lane", "class", "name", "start_s", "duration_s"], rows)
    }
}

fn render_timeline(
    d: &TimelineView,
    root: Area<AnyBackend<'_>>,
    look: &Look,
    marks: &mut Marks,
) -> Result<(), String> {
    let t = &d.t;
    let lanes = t.lanes.len().max(1) as f64;
    let (from, to) = (d.from, d.to.max(d.from + 1e-9));
    let mut ch = ChartBuilder::on(&root)
        .margin(look.px(6.0))
        .x_label_area_size(look.px(34.0))
        .y_label_area_size(look.px(LABEL_PX))
        .build_cartesian_2d(from * 1e3..to * 1e3, 0.0..lanes)
        .map_err(|e| e.to_string())?;
    ch.configure_mesh()
        .disable_y_mesh()
        .disable_y_axis()
        .x_labels(6)
        .x_desc("ms from the start of the trace")
        .x_label_formatter(&|v| units::sig3(*v))
        .label_style(look.font(11.0, &look.pal.muted))
        .axis_desc_style(look.font(12.0, &look.pal.ink))
        .bold_line_style(look.pal.grid.stroke_width(look.px(1.0)))
        .light_line_style(TRANSPARENT)
        .axis_style(look.pal.muted.stroke_width(look.px(1.0)))
        .draw()
        .map_err(|e| e.to_string())?;
    let (xr, yr) = ch.plotting_area().get_pixel_range();
    let area = Rect {
        x0: f64::from(xr.start),
        y0: f64::from(yr.start),
        x1: f64::from(xr.end - 1),
        y1: f64::from(yr.end - 1),
    };
    marks.area(&area, (from, to), (0.0, lanes));
    let (ox, oy) = {
        let (x, y) = root.get_pixel_range();
        (f64::from(x.start), f64::from(y.start))
    };
    let f = Frame {
        area,
        from,
        to,
        px_per_s: (area.x1 - area.x0).max(1.0) / (to - from),
        origin: (ox, oy),
        lane_h: (area.y1 - area.y0) / lanes,
    };
    // the longest spans in view get a tooltip (a few dozen: one button each)
    let mut longest: Vec<(f64, usize, usize)> = Vec::new();
    for (li, lane) in t.lanes.iter().enumerate() {
        draw_lane(&root, look, &f, t, li, lane, &mut longest)?;
    }
    longest.sort_by(|a, b| b.0.total_cmp(&a.0));
    longest.truncate(40);
    for (_, li, si) in longest {
        if let Some(s) = t.lanes.get(li).and_then(|l| l.spans.get(si)) {
            span_mark(marks, &f, t, li, s);
        }
    }
    Ok(())
}

/// Where the timeline's plot sits: its area (px), the window (s), the scale,
/// the drawing area's origin and a lane's height.
struct Frame {
    area: Rect,
    from: f64,
    to: f64,
    px_per_s: f64,
    origin: (f64, f64),
    lane_h: f64,
}

/// One lane: its label, then its spans. Spans a pixel wide or more are drawn as
/// they are; narrower ones add their width to their pixel column, which is
/// drawn as busy as they made it (a 90 %-idle column 90 % transparent), in the
/// colour of the class that took most of it. A span merged under the cap is
/// only as busy as its members. Spans 3 px wide or more go to `longest`.
fn draw_lane(
    root: &Area<AnyBackend<'_>>,
    look: &Look,
    f: &Frame,
    t: &Timeline,
    li: usize,
    lane: &super::row::LaneRow,
    longest: &mut Vec<(f64, usize, usize)>,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<AnyError>| e.to_string();
    let (area, (ox, oy)) = (&f.area, f.origin);
    let y0 = area.y0 + f.lane_h * li as f64 + f.lane_h * 0.15;
    let y1 = area.y0 + f.lane_h * (li as f64 + 1.0) - f.lane_h * 0.15;
    root.draw(&Text::new(
        short(&lane.label, 24),
        (
            (area.x0 - ox - look.px(LABEL_PX) as f64 + look.px(4.0) as f64) as i32,
            ((y0 + y1) / 2.0 - oy) as i32,
        ),
        look.font(11.0, &look.pal.ink)
            .pos(Pos::new(HPos::Left, VPos::Center)),
    ))
    .map_err(err)?;
    let (top, bottom) = ((y0 - oy).round() as i32, (y1 - oy).round() as i32);
    let mut columns: BTreeMap<i64, [f64; CLASSES.len()]> = BTreeMap::new();
    for (si, s) in lane.spans.iter().enumerate() {
        let (a, b) = (s[0], s[0] + s[1].max(0.0));
        if b < f.from || a > f.to {
            continue;
        }
        let x0 = area.x0 + (a.max(f.from) - f.from) * f.px_per_s;
        let x1 = area.x0 + (b.min(f.to) - f.from) * f.px_per_s;
        let full = lane.busy.get(si).map_or(1.0, |busy| {
            if s[1] > 0.0 {
                (busy / s[1]).clamp(0.0, 1.0)
            } else {
                1.0
            }
        });
        if x1 - x0 < 1.0 {
            add_to_columns(&mut columns, x0, x1, s[2] as usize, full);
            continue;
        }
        let class = t.classes.get(s[2] as usize).map_or("", String::as_str);
        let rect = [
            ((x0 - ox).floor() as i32, top),
            ((x1 - ox).ceil() as i32, bottom),
        ];
        root.draw(&Rectangle::new(
            rect,
            class_color(look, class).mix(full).filled(),
        ))
        .map_err(err)?;
        if x1 - x0 >= 3.0 {
            longest.push((s[1], li, si));
        }
    }
    for (col, by_class) in columns {
        let busy: f64 = by_class.iter().sum::<f64>().min(1.0);
        let Some((k, _)) = by_class
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
        else {
            continue;
        };
        let class = t.classes.get(k).map_or("", String::as_str);
        let x = (col as f64 - ox) as i32;
        root.draw(&Rectangle::new(
            [(x, top), (x + 1, bottom)],
            class_color(look, class).mix(busy).filled(),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// Adds a span narrower than a pixel, from `x0` to `x1` (px), to the busy
/// fraction of the one or two pixel columns it falls in, under its class.
fn add_to_columns(
    columns: &mut BTreeMap<i64, [f64; CLASSES.len()]>,
    x0: f64,
    x1: f64,
    class: usize,
    full: f64,
) {
    let mut x = x0;
    while x < x1 || x == x0 {
        let col = x.floor();
        let part = (x1.min(col + 1.0) - x).max(0.0);
        if let Some(c) = columns
            .entry(col as i64)
            .or_insert([0.0; CLASSES.len()])
            .get_mut(class)
        {
            *c += part * full;
        }
        x = col + 1.0;
    }
}

/// A tooltip point on span `s` of lane `li`.
fn span_mark(marks: &mut Marks, f: &Frame, t: &Timeline, li: usize, s: &[f64; 4]) {
    let mid = (s[0].max(f.from) + (s[0] + s[1]).min(f.to)) / 2.0;
    let x = f.area.x0 + (mid - f.from) * f.px_per_s;
    let y = f.area.y0 + f.lane_h * (li as f64 + 0.5);
    let class = t.classes.get(s[2] as usize).map_or("", String::as_str);
    marks.point(
        (x.round() as i32, y.round() as i32),
        "span",
        (s[0], s[1]),
        CLASSES
            .iter()
            .copied()
            .find(|c| *c == class)
            .unwrap_or("other"),
        vec![
            short(t.names.get(s[3] as usize).map_or("", String::as_str), 60),
            format!("{class}, {}", units::si(s[1], "s")),
            format!("starts at {} ms", units::sig3(s[0] * 1e3)),
        ],
    );
}

/// Roofline and timeline of the rank shown (`cur`), with their controls.
#[component]
pub fn TraceCharts(cur: Memo<Option<Rank>>, dark: RwSignal<bool>) -> impl IntoView {
    view! {
        <RoofChart cur=cur dark=dark/>
        <p class="note" data-trace-unplaced>{move || cur.with(|c| c.as_ref().map(unplaced))}</p>
        <TimelineChart cur=cur dark=dark/>
    }
}

/// The kernels on the roofline of the rank's roof preset, and what they say.
#[component]
fn RoofChart(cur: Memo<Option<Rank>>, dark: RwSignal<bool>) -> impl IntoView {
    let roof = RwSignal::new(Roof::Datasheet);
    let hw = Memo::new(move |_| {
        cur.with(|c| {
            c.as_ref()
                .and_then(|c| c.roof_preset.as_deref())
                .and_then(hardware::preset)
        })
    });
    let roof_data = Memo::new(move |_| {
        let hw = hw.get()?;
        cur.with(|c| {
            let c = c.as_ref()?;
            let dt = roof_dtype(hw, &c.roofline);
            Some((dt, roofline(machine(hw, dt, roof.get()), &c.roofline)))
        })
    });
    let has_roof = Memo::new(move |_| roof_data.with(|d| d.is_some()));
    let summary = move || {
        let hw = hw.get()?;
        // another GPU than the trace's own was picked: name the one they ran on
        let own = cur.with(|c| {
            let c = c.as_ref()?;
            (c.roof_preset != c.preset)
                .then(|| c.device.clone().unwrap_or_else(|| "trace's own GPU".into()))
        });
        roof_data.with(|d| {
            let (dt, r) = d.as_ref()?;
            Some(
                roof_summary(&r.m, hw, *dt, roof.get(), &r.kernels, own.as_deref())
                    .into_iter()
                    .map(|l| view! { <p class="note" data-trace-roof-note>{l}</p> })
                    .collect_view(),
            )
        })
    };
    let roof_label = Signal::derive(move || {
        roof_data.with(|d| match (d, hw.get()) {
            (Some((dt, r)), Some(hw)) => format!(
                "The trace's kernels on the {} roofline ({}, {} roofs): {}, one per aten op and kernel name, at the FLOP/s they achieved",
                hw.name,
                dt.label(),
                roof.get().id(),
                units::count(r.kernels.len() as u32, "point", "points")
            ),
            _ => String::new(),
        })
    });
    let roof_plot = Signal::derive(move || {
        let d = roof_data.get().map(|d| d.1);
        Arc::new(d.unwrap_or(RooflineData {
            m: machine(hardware::default_preset(), Dtype::Bf16, Roof::Datasheet),
            kernels: Vec::new(),
            step: None,
            measured: None,
            link: None,
        })) as SharedPlot
    });
    move || {
        has_roof.get().then(|| view! {
        <h4>"Kernels on the roofline"</h4>
        <label class="select">"Roofs "
            <select name="trace_roof" data-trace-roof on:change=move |e| {
                if let Some(r) = Roof::from_id(&event_target_value(&e)) { roof.set(r) }
            }>
                {Roof::ALL.iter().map(|r| view! { <option value=r.id() selected=move || roof.get() == *r>{r.label()}</option> }).collect_view()}
            </select></label>
        <Chart dark=dark id="trace-roofline" label=roof_label data=roof_plot/>
        <ul class="legend">
            <li><span class="swatch memory"></span>"a kernel below its ridge (memory sets its roof)"</li>
            <li><span class="swatch compute"></span>"a matmul, conv or attention kernel above it"</li>
            <li><span class="swatch vector"></span>"another kernel above its ridge"</li>
        </ul>
        {summary}
    })
    }
}

/// Which kernels are not on the roofline, why, and how much time that is.
pub fn unplaced(c: &Rank) -> String {
    let (placed, all) = (c.placed_kernels as f64, c.kernels as f64);
    let by_launch = c
        .unplaced
        .iter()
        .find(|u| u.basis == "launch")
        .map_or(String::new(), |u| {
            format!(
                " {} of kernel time could not be placed but is memory-bound by its kernels' tiles and launch grids, which bound its FLOPs per byte below the ridge; the longest, {} ({}×): {}.",
                units::si(c.launch_classed_kernel_s, "s"),
                u.name.chars().take(60).collect::<String>(),
                units::sig3(u.count as f64),
                u.why
            )
        });
    let by_name = format!(
        "{} of kernel time kept the class of its name (a GEMV memory-bound, a matmul or attention kernel compute-bound, the others memory-bound); the rest was classed by where it sits on the roof.{by_launch}",
        units::si(c.unplaced_kernel_s, "s")
    );
    if c.roof_preset.is_none() {
        return format!("No roofline: the trace's GPU matches no preset, so every kernel kept the class of its name. Pick the GPU it ran on above to place its kernels. {by_name}");
    }
    let why = if c.graph_replay && c.replayed_kernels > 0 {
        format!(
            "{} kernels were replayed from a CUDA graph: a replay records no aten op, so their shapes are unknown{}",
            units::sig3(c.replayed_kernels as f64),
            if c.placed_by_name > 0 {
                format!(" ({} placed by the name of a kernel placed elsewhere in the trace)", units::sig3(c.placed_by_name as f64))
            } else {
                String::new()
            }
        )
    } else {
        "the trace has no recorded shapes for them (profile with record_shapes=True) or no op this page can count FLOPs for".into()
    };
    if c.placed_kernels == 0 {
        format!(
            "None of the {} kernels could be placed: {why}. {by_name}",
            units::sig3(all)
        )
    } else {
        format!(
            "{} of {} kernels placed by their op's shapes; the other {} are not on the chart: {why}. {by_name}",
            units::sig3(placed),
            units::sig3(all),
            units::sig3((all - placed).max(0.0))
        )
    }
}

/// The timeline's legend: swatch class, what it stands for (by name).
const TIMELINE_LEGEND: [(&str, &str); 6] = [
    ("compute", "matmul / conv"),
    ("vector", "attention"),
    ("memory", "pointwise, norm, reduction, copy"),
    ("comm", "communication"),
    ("launch", "CPU launch call"),
    (
        "faint",
        "a faint column: a pixel the GPU was busy only part of",
    ),
];

/// The busiest second, zoomed and panned.
#[component]
fn TimelineChart(cur: Memo<Option<Rank>>, dark: RwSignal<bool>) -> impl IntoView {
    // the timeline: the window shown, reset to the busiest second on every new rank
    let tl =
        Memo::new(move |_| cur.with(|c| c.as_ref().and_then(|c| c.timeline.clone()).map(Arc::new)));
    let win = RwSignal::new((0.0, 0.0));
    Effect::new(move |_| {
        if let Some(t) = tl.get() {
            win.set((t.start_s, t.end_s));
        }
    });
    let bounds =
        move || tl.with_untracked(|t| t.as_ref().map_or((0.0, 0.0), |t| (t.start_s, t.end_s)));
    let zoom_by = move |f: f64| {
        let (lo, hi) = bounds();
        let w = win.get_untracked();
        win.set(geom::zoom(w, f, (w.0 + w.1) / 2.0, lo, hi));
    };
    let pan_by = move |frac: f64| {
        let (lo, hi) = bounds();
        let w = win.get_untracked();
        win.set(geom::pan(w, frac * (w.1 - w.0), lo, hi));
    };
    let tl_plot = Signal::derive(move || {
        let (from, to) = win.get();
        let t = tl.get().unwrap_or_default();
        Arc::new(TimelineView { t, from, to }) as SharedPlot
    });
    let has_tl = Memo::new(move |_| tl.with(|t| t.is_some()));
    let tl_label = Signal::derive(move || {
        tl.with(|t| {
            let Some(t) = t else { return String::new() };
            let (a, b) = win.get();
            format!(
                "Timeline of the busiest second: {} (GPU streams and the launching CPU thread) from {} ms to {} ms",
                units::count(t.lanes.len() as u32, "lane", "lanes"),
                units::sig3(a * 1e3),
                units::sig3(b * 1e3)
            )
        })
    });
    let drag = StoredValue::new(None::<f64>);
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        match ev.key().as_str() {
            "+" | "=" => zoom_by(0.5),
            "-" | "_" => zoom_by(2.0),
            "ArrowLeft" => pan_by(-0.25),
            "ArrowRight" => pan_by(0.25),
            "Home" => win.set(bounds()),
            _ => return,
        }
        ev.prevent_default();
    };
    // the wheel zooms only once the timeline has focus (a click or Tab): a page
    // scrolled past it with the wheel keeps scrolling
    let on_wheel = move |ev: leptos::ev::WheelEvent| {
        let focused = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .zip(document().active_element())
            .is_some_and(|(me, active)| me.contains(Some(&active)));
        if !focused || ev.ctrl_key() || ev.delta_y().abs() < ev.delta_x().abs() {
            return;
        }
        ev.prevent_default();
        zoom_by(if ev.delta_y() < 0.0 { 0.8 } else { 1.25 });
    };
    let on_down = move |ev: leptos::ev::PointerEvent| {
        // a press focuses the timeline (so the wheel and keys reach it)
        if let Some(el) = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
        drag.set_value(Some(ev.client_x()));
    };
    let on_move = move |ev: leptos::ev::PointerEvent| {
        let Some(x0) = drag.get_value() else { return };
        let w = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map_or(600.0, |e| f64::from(e.client_width()).max(1.0) - LABEL_PX);
        let dx = ev.client_x() - x0;
        if dx.abs() >= 1.0 {
            pan_by(-dx / w.max(50.0));
            drag.set_value(Some(ev.client_x()));
        }
    };
    let on_up = move |_| drag.set_value(None);
    view! {
        {move || has_tl.get().then(|| view! {
            <h4>"The busiest second"</h4>
            <p class="note">{move || tl.with(|t| t.as_ref().map(|t| format!(
                "The second of the trace with the most GPU activity{}: drag or use the buttons to pan; once it has focus (click it), the wheel or +/− zoom.{}",
                if t.end_s - t.start_s < 0.999 { " (the whole trace: it is shorter than a second)" } else { "" },
                if t.merged { " Very short neighbouring kernels of one class are drawn as one block." } else { "" }
            )))}</p>
            <div class="trace-zoom" role="group" aria-label="Zoom and pan the timeline">
                <button type="button" class="small" data-trace-zoom="in" on:click=move |_| zoom_by(0.5)>"Zoom in"</button>
                <button type="button" class="small" data-trace-zoom="out" on:click=move |_| zoom_by(2.0)>"Zoom out"</button>
                <button type="button" class="small" data-trace-zoom="left" on:click=move |_| pan_by(-0.5)>"← Earlier"</button>
                <button type="button" class="small" data-trace-zoom="right" on:click=move |_| pan_by(0.5)>"Later →"</button>
                <button type="button" class="small" data-trace-zoom="all" on:click=move |_| win.set(bounds())>"Whole window"</button>
            </div>
            <div class="trace-timeline" tabindex="0" role="region" aria-label="Timeline: +/− zoom, arrow keys pan, Home shows it all"
                data-trace-window=move || { let (a, b) = win.get(); format!("{a} {b}") }
                on:keydown=on_key on:wheel=on_wheel on:pointerdown=on_down on:pointermove=on_move on:pointerup=on_up on:pointerleave=on_up>
                <Chart dark=dark id="trace-timeline" label=tl_label data=tl_plot/>
            </div>
            <ul class="legend">{TIMELINE_LEGEND.iter().map(|(c, l)| view! { <li><span class=format!("swatch {c}")></span>{*l}</li> }).collect_view()}</ul>
        })}
    }
}
