//! The trace widget's two charts: its kernels on the roofline of their GPU, and
//! the busiest second as the profiler draws it (GPU streams and the launching
//! CPU thread, kernels coloured by class, idle gaps left blank), with zoom and
//! pan. Both are [`Plot`]s, so they get the page's chart scaffolding (sizing,
//! theme, hover/keyboard tooltips on points, PNG/SVG/CSV exports).

use super::row::{Placed, Rank, Timeline};
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
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// The dtype whose matmul ceiling the chart draws: the one the placed
/// matmul-class kernels spent most time in (bf16 when none says), if the preset
/// has it.
pub fn roof_dtype(hw: &Preset, placed: &[Placed]) -> Dtype {
    let mut time = [0.0; 4];
    for p in placed.iter().filter(|p| is_matmul_class(&p.class)) {
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
    let best = Dtype::ALL
        .iter()
        .zip(time)
        .filter(|(_, t)| *t > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(d, _)| *d)
        .unwrap_or(Dtype::Bf16);
    if hw.supports(best) {
        best
    } else {
        hw.default_dtype()
    }
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
        .filter(|p| p.flops > 0.0 && p.bytes > 0.0 && p.time_s > 0.0 && p.count >= 1.0)
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
                time: p.time_s / p.count,
                count: p.count.round().clamp(1.0, f64::from(u32::MAX)) as u32,
                unit,
                bound,
            }
        })
        .collect()
}

/// What the chart's points say in words: the matmul-class kernels together
/// against the roof at their combined intensity, and how many points sit above
/// their roof (the op moved fewer bytes than its shapes imply, or did less).
pub fn roof_summary(m: &Machine, hw: &Preset, dt: Dtype, roof: Roof, pts: &[Point]) -> Vec<String> {
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
            "The matmul, conv and attention kernels placed here ({} calls) did {} in {}: {} at {} FLOP per byte, {} of the {} allows there ({}, {} roofs: {}).",
            calls,
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
        out.push(format!(
            "{above} of the {} points sit above their roof: their op moved fewer bytes than its shapes count (a cache hit, a broadcast, an in-place op) or did less than they imply; the roofline bounds what the counted work could take, not these kernels.",
            pts.len()
        ));
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
    let err = |e: DrawingAreaErrorKind<AnyError>| e.to_string();
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
    let px_per_s = (area.x1 - area.x0).max(1.0) / (to - from);
    let (ox, oy) = {
        let (x, y) = root.get_pixel_range();
        (f64::from(x.start), f64::from(y.start))
    };
    let lane_h = (area.y1 - area.y0) / lanes;
    // the longest spans in view get a tooltip (a few dozen: one button each)
    let mut longest: Vec<(f64, usize, usize)> = Vec::new();
    for (li, lane) in t.lanes.iter().enumerate() {
        let y0 = area.y0 + lane_h * li as f64 + lane_h * 0.15;
        let y1 = area.y0 + lane_h * (li as f64 + 1.0) - lane_h * 0.15;
        // lane label, left of the plot
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
        // spans in view, at least a pixel wide; spans ending in the same pixel
        // column as the last one drawn in this lane are folded into it
        let mut last: Option<(i64, usize)> = None;
        for (si, s) in lane.spans.iter().enumerate() {
            let (a, b) = (s[0], s[0] + s[1].max(0.0));
            if b < from || a > to {
                continue;
            }
            let x0 = area.x0 + (a.max(from) - from) * px_per_s;
            let x1 = (area.x0 + (b.min(to) - from) * px_per_s).max(x0 + 1.0);
            let col = x1.floor() as i64;
            let class = t.classes.get(s[2] as usize).map_or("", String::as_str);
            if let Some((c, k)) = last {
                if c == col && k == s[2] as usize {
                    continue;
                }
            }
            last = Some((col, s[2] as usize));
            root.draw(&Rectangle::new(
                [
                    ((x0 - ox).floor() as i32, (y0 - oy).round() as i32),
                    ((x1 - ox).ceil() as i32, (y1 - oy).round() as i32),
                ],
                class_color(look, class).filled(),
            ))
            .map_err(err)?;
            if x1 - x0 >= 3.0 {
                longest.push((s[1], li, si));
            }
        }
    }
    longest.sort_by(|a, b| b.0.total_cmp(&a.0));
    longest.truncate(40);
    for (_, li, si) in longest {
        let Some(s) = t.lanes.get(li).and_then(|l| l.spans.get(si)) else {
            continue;
        };
        let mid = (s[0].max(from) + (s[0] + s[1]).min(to)) / 2.0;
        let x = area.x0 + (mid - from) * px_per_s;
        let y = area.y0 + lane_h * (li as f64 + 0.5);
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
    Ok(())
}

/// Roofline and timeline of the rank shown (`cur`), with their controls.
#[component]
pub fn TraceCharts(cur: Memo<Option<Rank>>, dark: RwSignal<bool>) -> impl IntoView {
    view! {
        <TraceRoofline cur=cur dark=dark/>
        <TraceTimeline cur=cur dark=dark/>
    }
}

/// The rank's kernels on the roofline of its GPU (or the one picked), with the
/// roofs select, what the chart says, and how many kernels could be placed.
#[component]
fn TraceRoofline(cur: Memo<Option<Rank>>, dark: RwSignal<bool>) -> impl IntoView {
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
            let dt = roof_dtype(hw, &c.placed);
            Some((dt, roofline(machine(hw, dt, roof.get()), &c.placed)))
        })
    });
    let has_roof = Memo::new(move |_| roof_data.with(|d| d.is_some()));
    let summary = move || {
        let hw = hw.get()?;
        roof_data.with(|d| {
            let (dt, r) = d.as_ref()?;
            Some(
                roof_summary(&r.m, hw, *dt, roof.get(), &r.kernels)
                    .into_iter()
                    .map(|l| view! { <p class="note" data-trace-roof-note>{l}</p> })
                    .collect_view(),
            )
        })
    };
    let roof_label = Signal::derive(move || {
        roof_data.with(|d| match (d, hw.get()) {
            (Some((dt, r)), Some(hw)) => format!(
                "The trace's kernels on the {} roofline ({}, {} roofs): {} points, one per aten op and kernel name, at the FLOP/s they achieved",
                hw.name,
                dt.label(),
                roof.get().id(),
                r.kernels.len()
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
    let unplaced = move || {
        cur.with(|c| {
            let c = c.as_ref()?;
            let placed = c.num("placed_kernels");
            let all = c.num("kernels");
            Some(if hw.get().is_none() {
                "No roofline: the trace's GPU matches no preset. Pick the GPU it ran on above to place its kernels.".to_string()
            } else if c.placed.is_empty() {
                format!("None of the {} kernels could be placed: the trace has no recorded shapes (profile with record_shapes=True) or no op this page can count FLOPs for.", units::sig3(all))
            } else {
                format!(
                    "{} of {} kernels placed by their op's shapes; the other {} are not on the chart (no shapes, or an op whose FLOPs this page does not count).",
                    units::sig3(placed),
                    units::sig3(all),
                    units::sig3((all - placed).max(0.0))
                )
            })
        })
    };

    view! {
        {move || has_roof.get().then(|| view! {
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
        })}
        <p class="note" data-trace-unplaced>{unplaced}</p>
    }
}

/// The window of the timeline shown: the busiest second, zoomed and panned.
#[derive(Clone, Copy)]
struct Window {
    tl: Memo<Option<Arc<Timeline>>>,
    win: RwSignal<(f64, f64)>,
}

impl Window {
    /// The whole window the trace has.
    fn bounds(self) -> (f64, f64) {
        self.tl
            .with_untracked(|t| t.as_ref().map_or((0.0, 0.0), |t| (t.start, t.end)))
    }

    fn zoom_by(self, f: f64) {
        let (lo, hi) = self.bounds();
        let w = self.win.get_untracked();
        self.win.set(geom::zoom(w, f, (w.0 + w.1) / 2.0, lo, hi));
    }

    fn pan_by(self, frac: f64) {
        let (lo, hi) = self.bounds();
        let w = self.win.get_untracked();
        self.win.set(geom::pan(w, frac * (w.1 - w.0), lo, hi));
    }

    fn on_key(self, ev: leptos::ev::KeyboardEvent) {
        match ev.key().as_str() {
            "+" | "=" => self.zoom_by(0.5),
            "-" | "_" => self.zoom_by(2.0),
            "ArrowLeft" => self.pan_by(-0.25),
            "ArrowRight" => self.pan_by(0.25),
            "Home" => self.win.set(self.bounds()),
            _ => return,
        }
        ev.prevent_default();
    }

    /// The wheel zooms only once the timeline has focus (a click or Tab): a
    /// page scrolled past it with the wheel keeps scrolling.
    fn on_wheel(self, ev: leptos::ev::WheelEvent) {
        let focused = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .zip(document().active_element())
            .is_some_and(|(me, active)| me.contains(Some(&active)));
        if !focused || ev.ctrl_key() || ev.delta_y().abs() < ev.delta_x().abs() {
            return;
        }
        ev.prevent_default();
        self.zoom_by(if ev.delta_y() < 0.0 { 0.8 } else { 1.25 });
    }
}

/// The busiest second as a timeline: its lanes, the buttons, the keys, the
/// wheel and a drag to zoom and pan.
#[component]
fn TraceTimeline(cur: Memo<Option<Rank>>, dark: RwSignal<bool>) -> impl IntoView {
    // the window shown, reset to the busiest second on every new rank
    let tl =
        Memo::new(move |_| cur.with(|c| c.as_ref().and_then(|c| c.timeline.clone()).map(Arc::new)));
    let win = RwSignal::new((0.0, 0.0));
    Effect::new(move |_| {
        if let Some(t) = tl.get() {
            win.set((t.start, t.end));
        }
    });
    let w = Window { tl, win };
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
                "Timeline of the busiest second: {} lanes (GPU streams and the launching CPU thread) from {} ms to {} ms",
                t.lanes.len(),
                units::sig3(a * 1e3),
                units::sig3(b * 1e3)
            )
        })
    });
    let drag = StoredValue::new(None::<f64>);
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
        let width = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map_or(600.0, |e| f64::from(e.client_width()).max(1.0) - LABEL_PX);
        let dx = ev.client_x() - x0;
        if dx.abs() >= 1.0 {
            w.pan_by(-dx / width.max(50.0));
            drag.set_value(Some(ev.client_x()));
        }
    };
    let on_up = move |_| drag.set_value(None);
    let legend = [
        ("compute", "matmul / conv"),
        ("vector", "attention"),
        ("memory", "pointwise, norm, reduction, copy"),
        ("comm", "communication"),
        ("launch", "CPU launch call"),
    ];
    let (zoom_by, pan_by, bounds) = (
        move |f| w.zoom_by(f),
        move |f| w.pan_by(f),
        move || w.bounds(),
    );
    let (on_key, on_wheel) = (move |ev| w.on_key(ev), move |ev| w.on_wheel(ev));

    view! {
        {move || has_tl.get().then(|| view! {
            <h4>"The busiest second"</h4>
            <p class="note">{move || tl.with(|t| t.as_ref().map(|t| format!(
                "The second of the trace with the most GPU activity{}: drag or use the buttons to pan; once it has focus (click it), the wheel or +/− zoom.{}",
                if t.end - t.start < 0.999 { " (the whole trace: it is shorter than a second)" } else { "" },
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
            <ul class="legend">{legend.iter().map(|(c, l)| view! { <li><span class=format!("swatch {c}")></span>{*l}</li> }).collect_view()}</ul>
        })}
    }
}
