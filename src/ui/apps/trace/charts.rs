//! The trace widget's two charts: its kernels on the roofline of their GPU, and
//! the busiest second as the profiler draws it (GPU streams and the launching
//! CPU thread, kernels coloured by class, idle gaps left blank), with zoom and
//! pan. Both are [`Plot`]s, so they get the page's chart scaffolding (sizing,
//! theme, hover/keyboard tooltips on points, PNG/SVG/CSV exports).

use super::row::{Rank, TimelineRow as Timeline};
use crate::geom::{self, Rect};
use crate::model::achievable::Roof;
use crate::model::units;
use crate::trace::roof::RoofView;
use crate::trace::words::short;
use crate::ui::chart::backend::{AnyBackend, AnyError};
use crate::ui::chart::palette::{self, rgb};
use crate::ui::chart::plot::{csv, plot_with, Marks, Plot};
use crate::ui::chart::plot::{Chart, SharedPlot};
use crate::ui::chart::{Area, Look};
use crate::ui::widgets::roofline::RooflineData;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::collections::BTreeMap;
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// The roofline chart of a trace's kernels: the roofline's points as the
/// chart's (`trace::roof` computes them).
fn roofline(v: &RoofView) -> RooflineData {
    RooflineData {
        m: v.machine,
        kernels: v.points.clone(),
        step: None,
        measured: None,
        link: None,
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
        <p class="note" data-trace-unplaced>{move || cur.with(|c| c.as_ref().map(crate::trace::words::unplaced))}</p>
        <TimelineChart cur=cur dark=dark/>
    }
}

/// The kernels on the roofline of the rank's roof preset, and what they say.
#[component]
fn RoofChart(cur: Memo<Option<Rank>>, dark: RwSignal<bool>) -> impl IntoView {
    let roof = RwSignal::new(Roof::Datasheet);
    let roof_view = Memo::new(move |_| {
        cur.with(|c| {
            c.as_ref()
                .and_then(|c| crate::trace::roof::view(c, roof.get()))
        })
    });
    let has_roof = Memo::new(move |_| roof_view.with(Option::is_some));
    let summary = move || {
        roof_view.with(|v| {
            Some(
                v.as_ref()?
                    .summary
                    .iter()
                    .map(|l| view! { <p class="note" data-trace-roof-note>{l.clone()}</p> })
                    .collect_view(),
            )
        })
    };
    let roof_label = Signal::derive(move || {
        roof_view.with(|v| v.as_ref().map(|v| v.label.clone()).unwrap_or_default())
    });
    let roof_plot = Signal::derive(move || {
        let d = roof_view.with(|v| v.as_ref().map(roofline));
        Arc::new(d.unwrap_or(RooflineData {
            m: crate::trace::roof::no_roof(),
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
