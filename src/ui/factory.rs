//! Widget `factory`: the essay's analogy, animated from the model's own timeline.
//!
//! The warehouse (DRAM) sits on the left, the factory (compute units + on-chip
//! SRAM) on the right, trucks (memory bandwidth) drive between them, and the
//! instruction desk (the CPU) above the factory writes the orders (kernel
//! launches). One step of `report.timeline` plays as a loop of [`PERIOD_S`]
//! seconds: at each instant the widget looks up which kernel the GPU runs and
//! shows the factory busy (compute-bound), waiting for trucks (memory-bound) or
//! dark (no kernel: waiting for the desk). A strip at the bottom is the step's
//! timeline with a playhead.
//!
//! Cost: everything that depends on the state (segments, buckets, labels) is
//! built once per state change in [`Plan::build`]; a frame is a few binary
//! searches and ~150 plain `CanvasRenderingContext2d` calls. The loop runs on
//! `requestAnimationFrame`, stops on unmount, and pauses while the canvas is off
//! screen or the tab is hidden. With `prefers-reduced-motion: reduce` there is no
//! loop: a still frame is drawn on each state change.

use super::chart;
use super::Ctx;
use crate::model::{units, Bound, Regime, Report};
use crate::state::{limits, State};
use leptos::html::Canvas;
use leptos::prelude::*;
use std::cell::RefCell;
use std::f64::consts::TAU;
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::js_sys;
use web_sys::{CanvasRenderingContext2d as C2d, HtmlCanvasElement};

/// One step of the model plays in this many seconds.
const PERIOD_S: f64 = 3.6;
/// A kernel shown for at least this long gets its own truck trip; shorter ones
/// blur into a stream of trucks.
const DISCRETE_MIN_S: f64 = 0.45;
/// Seconds for one stream-mode truck round trip.
const TRIP_S: f64 = 1.3;
/// Time buckets for the stream mode and the compressed timeline strip.
const BUCKETS: usize = 160;
/// Up to this many GPU segments, the strip draws each one.
const EXACT_MAX: usize = 200;
/// Up to this many launches, the desk row shows a tick per order.
const TICKS_MAX: usize = 64;

const INK: &str = "#1f2937";
const MUTED: &str = "#6b7280";
const COMPUTE: &str = "#2563eb";
const COMPUTE_LIGHT: &str = "#dbeafe";
const MEMORY: &str = "#d97706";
const MEMORY_LIGHT: &str = "#fef3c7";
const CRATE: &str = "#f59e0b";
const OVERHEAD: &str = "#94a3b8";
const SLATE: &str = "#475569";
const ROAD: &str = "#e5e7eb";
const TRACK: &str = "#f1f5f9";
const LIT: &str = "#fde68a";
const WHITE: &str = "#ffffff";
const SMOKE: &str = "#cbd5e1";
const DESK: &str = "#cbd5e1";

const F13B: &str = "600 13px system-ui, sans-serif";
const F12B: &str = "600 12px system-ui, sans-serif";
const F11B: &str = "600 11px system-ui, sans-serif";
const F11: &str = "11px system-ui, sans-serif";
const F10: &str = "10px system-ui, sans-serif";

// ---------------------------------------------------------------------------
// The plan: everything a frame needs, rebuilt once per state change.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Compute,
    Memory,
    Idle,
}

/// A stretch of the GPU lane: one kernel, or an idle gap.
#[derive(Clone, Copy, Debug)]
struct Seg {
    start: f64,
    end: f64,
    kind: Kind,
    group: usize,
    /// 1-based index of this kernel within its group, of `count`.
    nth: u32,
    count: u32,
    /// Share of the kernel's time the arithmetic alone would take (0..1).
    c_util: f64,
    /// Share of the kernel's time the memory traffic alone would take (0..1).
    m_util: f64,
}

/// Time shares inside one bucket of the step.
#[derive(Clone, Copy, Debug, Default)]
struct Bucket {
    compute: f64,
    memory: f64,
    idle: f64,
    /// Average factory utilisation (Σ overlap · c_util / length).
    gear: f64,
    /// Average truck utilisation (Σ overlap · m_util / length).
    road: f64,
}

/// A rectangle of the timeline strip in fractions of the strip.
#[derive(Clone, Copy, Debug)]
struct StripRect {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
    kind: Kind,
}

struct Plan {
    wall: f64,
    segs: Vec<Seg>,
    buckets: Vec<Bucket>,
    strip: Vec<StripRect>,
    /// Boundaries between kernels, as fractions, when few enough to draw.
    seg_marks: Vec<f64>,
    cpu_ends: Vec<f64>,
    gpu_starts: Vec<f64>,
    cpu_end: f64,
    cpu_ticks: Vec<f64>,
    names: Vec<&'static str>,
    fused_ops: u32,
    launches: usize,
    still_t: f64,
    flops_text: String,
    overhead_text: String,
    wall_text: String,
    trips_text: String,
}

fn ratio(a: f64, b: f64) -> f64 {
    let v = a / b;
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

fn finite_pos(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        0.0
    }
}

impl Plan {
    fn build(r: &Report, s: &State) -> Plan {
        let m = s.machine();
        let wall = finite_pos(r.timeline.wall);
        let utils: Vec<(f64, f64)> = r
            .groups
            .iter()
            .map(|g| {
                let t = g.time;
                let tc = g.group.flops / m.ceiling(g.group.unit);
                let tm = g.group.bytes / m.bw;
                (ratio(tc, t), ratio(tm, t))
            })
            .collect();
        let counts: Vec<u32> = r.groups.iter().map(|g| g.group.count).collect();
        let names: Vec<&'static str> = r.groups.iter().map(|g| g.group.name).collect();

        let spans = &r.timeline.spans;
        let mut segs = Vec::with_capacity(spans.len() * 2 + 1);
        let mut nth = vec![0u32; r.groups.len()];
        let mut prev = 0.0f64;
        for sp in spans {
            if sp.gpu_start > prev {
                segs.push(Seg {
                    start: prev,
                    end: sp.gpu_start,
                    kind: Kind::Idle,
                    group: 0,
                    nth: 0,
                    count: 0,
                    c_util: 0.0,
                    m_util: 0.0,
                });
            }
            let n = match nth.get_mut(sp.group) {
                Some(n) => {
                    *n += 1;
                    *n
                }
                None => 1,
            };
            let (c_util, m_util) = utils.get(sp.group).copied().unwrap_or((0.0, 0.0));
            segs.push(Seg {
                start: sp.gpu_start,
                end: sp.gpu_end.max(sp.gpu_start),
                kind: match sp.bound {
                    Bound::Compute => Kind::Compute,
                    Bound::Memory => Kind::Memory,
                },
                group: sp.group,
                nth: n,
                count: counts.get(sp.group).copied().unwrap_or(1),
                c_util,
                m_util,
            });
            prev = sp.gpu_end.max(prev);
        }

        let mut buckets = vec![Bucket::default(); BUCKETS];
        if wall > 0.0 {
            let len = wall / BUCKETS as f64;
            for seg in &segs {
                let b0 = ((seg.start / len) as usize).min(BUCKETS - 1);
                let b1 = ((seg.end / len) as usize).min(BUCKETS - 1);
                for (i, b) in buckets.iter_mut().enumerate().take(b1 + 1).skip(b0) {
                    let lo = i as f64 * len;
                    let ov = ((seg.end.min(lo + len) - seg.start.max(lo)) / len).max(0.0);
                    match seg.kind {
                        Kind::Compute => b.compute += ov,
                        Kind::Memory => b.memory += ov,
                        Kind::Idle => b.idle += ov,
                    }
                    b.gear += ov * seg.c_util;
                    b.road += ov * seg.m_util;
                }
            }
        }

        let frac = |t: f64| {
            if wall > 0.0 {
                (t / wall).clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        let mut strip = Vec::new();
        let mut seg_marks = Vec::new();
        if segs.len() <= EXACT_MAX {
            for seg in &segs {
                strip.push(StripRect {
                    x0: frac(seg.start),
                    x1: frac(seg.end),
                    y0: 0.0,
                    y1: 1.0,
                    kind: seg.kind,
                });
            }
            for w in segs.windows(2) {
                if let [a, b] = w {
                    if a.kind != Kind::Idle && b.kind != Kind::Idle {
                        seg_marks.push(frac(b.start));
                    }
                }
            }
        } else {
            // Too many kernels to draw one by one: stacked shares per bucket, with
            // runs of similar buckets merged.
            let n = buckets.len() as f64;
            let mut i = 0;
            while i < buckets.len() {
                let first = buckets[i];
                let mut j = i + 1;
                while j < buckets.len() {
                    let b = buckets[j];
                    if (b.compute - first.compute).abs() > 0.02
                        || (b.memory - first.memory).abs() > 0.02
                        || (b.idle - first.idle).abs() > 0.02
                    {
                        break;
                    }
                    j += 1;
                }
                let (x0, x1) = (i as f64 / n, j as f64 / n);
                let tot = (first.compute + first.memory + first.idle).max(1e-12);
                let mut y = 0.0;
                for (share, kind) in [
                    (first.compute, Kind::Compute),
                    (first.memory, Kind::Memory),
                    (first.idle, Kind::Idle),
                ] {
                    let h = share / tot;
                    if h > 0.0 {
                        strip.push(StripRect {
                            x0,
                            x1,
                            y0: y,
                            y1: y + h,
                            kind,
                        });
                        y += h;
                    }
                }
                i = j;
            }
        }

        let cpu_ends: Vec<f64> = spans.iter().map(|s| s.cpu_end).collect();
        let gpu_starts: Vec<f64> = spans.iter().map(|s| s.gpu_start).collect();
        let cpu_end = cpu_ends.last().copied().unwrap_or(0.0);
        let cpu_ticks = if cpu_ends.len() <= TICKS_MAX {
            cpu_ends.iter().map(|t| frac(*t)).collect()
        } else {
            Vec::new()
        };

        // The still frame (reduced motion): a quarter into the longest stretch of
        // the regime's kind, so the picture shows what dominates the step.
        let want = match r.regime {
            Regime::Compute => Kind::Compute,
            Regime::Memory => Kind::Memory,
            Regime::Overhead => Kind::Idle,
        };
        let longest = |k: Option<Kind>| {
            segs.iter()
                .filter(|s| k.is_none_or(|k| s.kind == k))
                .max_by(|a, b| (a.end - a.start).total_cmp(&(b.end - b.start)))
                .copied()
        };
        let still_t = longest(Some(want))
            .or_else(|| longest(None))
            .map(|s| s.start + 0.25 * (s.end - s.start))
            .unwrap_or(0.0);

        let launches = spans.len();
        let fused_ops = if s.fused { s.ops.max(1) } else { 0 };
        let trips_text = format!(
            "{} · {launches} round trip{} per step",
            units::si(s.bw, "B/s"),
            if launches == 1 { "" } else { "s" }
        );

        Plan {
            wall,
            segs,
            buckets,
            strip,
            seg_marks,
            cpu_ends,
            gpu_starts,
            cpu_end,
            cpu_ticks,
            names,
            fused_ops,
            launches,
            still_t,
            flops_text: units::si(s.flops, "FLOP/s"),
            overhead_text: units::si(s.overhead, "s"),
            wall_text: units::si(wall, "s"),
            trips_text,
        }
    }

    fn bucket_at(&self, ts: f64) -> Bucket {
        let n = self.buckets.len();
        if n == 0 || self.wall <= 0.0 {
            return Bucket {
                idle: 1.0,
                ..Bucket::default()
            };
        }
        let x = (ts / self.wall * n as f64 - 0.5).clamp(0.0, (n - 1) as f64);
        let i = (x.floor() as usize).min(n - 1);
        let j = (i + 1).min(n - 1);
        let f = x - i as f64;
        let (a, b) = (self.buckets[i], self.buckets[j]);
        let l = |p: f64, q: f64| p + (q - p) * f;
        Bucket {
            compute: l(a.compute, b.compute),
            memory: l(a.memory, b.memory),
            idle: l(a.idle, b.idle),
            gear: l(a.gear, b.gear),
            road: l(a.road, b.road),
        }
    }

    /// What the picture shows at model time `ts`.
    fn scene(&self, ts: f64) -> Scene {
        let idx = self
            .segs
            .partition_point(|s| s.end <= ts)
            .min(self.segs.len().saturating_sub(1));
        let seg = self.segs.get(idx).copied();
        let launched = self.cpu_ends.partition_point(|t| *t <= ts);
        let started = self.gpu_starts.partition_point(|t| *t <= ts);
        let mut sc = Scene {
            ts,
            seg,
            label: seg,
            discrete: false,
            q: 0.0,
            kind: Kind::Idle,
            util: 0.0,
            road: 0.0,
            dark: 1.0,
            launched,
            queued: launched.saturating_sub(started),
            cpu_busy: ts < self.cpu_end,
        };
        let Some(seg) = seg else { return sc };
        let len = seg.end - seg.start;
        sc.q = if len > 0.0 {
            ((ts - seg.start) / len).clamp(0.0, 1.0)
        } else {
            0.0
        };
        sc.discrete = self.wall > 0.0 && len / self.wall * PERIOD_S >= DISCRETE_MIN_S;
        if sc.discrete {
            sc.kind = seg.kind;
            sc.util = seg.c_util;
            sc.road = seg.m_util;
            sc.dark = if seg.kind == Kind::Idle { 1.0 } else { 0.0 };
        } else {
            let b = self.bucket_at(ts);
            sc.kind = if b.compute >= b.memory && b.compute >= b.idle {
                Kind::Compute
            } else if b.memory >= b.idle {
                Kind::Memory
            } else {
                Kind::Idle
            };
            if seg.kind == Kind::Idle {
                // name the kernels around the gap, not the gap
                sc.label = self
                    .segs
                    .get(idx + 1)
                    .or(self.segs.get(idx.wrapping_sub(1)))
                    .copied();
            }
            sc.util = b.gear.clamp(0.0, 1.0);
            sc.road = b.road.clamp(0.0, 1.0);
            sc.dark = b.idle.clamp(0.0, 1.0);
        }
        sc
    }

    /// "matmul", "pointwise op 3 of 8", "fused chain (8 ops)", "pointwise op ×1024".
    fn what(&self, sc: &Scene) -> String {
        let Some(seg) = sc.label else {
            return String::new();
        };
        let name = self.names.get(seg.group).copied().unwrap_or("kernel");
        if seg.kind == Kind::Idle && sc.discrete {
            return String::new();
        }
        if !sc.discrete && seg.count > 1 {
            format!("{name} ×{}", seg.count)
        } else if seg.count > 1 {
            format!("{name} {} of {}", seg.nth, seg.count)
        } else if self.fused_ops > 0 && name.starts_with("fused") {
            format!("{name} ({} ops)", self.fused_ops)
        } else {
            name.to_string()
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Scene {
    ts: f64,
    seg: Option<Seg>,
    /// The kernel the headline names (in stream mode, a gap's neighbour).
    label: Option<Seg>,
    /// One kernel long enough to show its own truck trip.
    discrete: bool,
    /// Progress through `seg` (0..1).
    q: f64,
    kind: Kind,
    /// Factory utilisation (gear speed, lit windows).
    util: f64,
    /// Truck activity.
    road: f64,
    /// How dark the factory is (share of idle time).
    dark: f64,
    launched: usize,
    queued: usize,
    cpu_busy: bool,
}

// ---------------------------------------------------------------------------
// The animation engine: plain Rust state shared with the rAF and observer
// callbacks (single-threaded; leptos only sees it through a local StoredValue).

#[derive(Default)]
struct Anim {
    canvas: Option<HtmlCanvasElement>,
    ctx2d: Option<C2d>,
    plan: Option<Plan>,
    css_w: f64,
    /// Seconds into the loop.
    clock: f64,
    last_ts: Option<f64>,
    gear: f64,
    odo: f64,
    pen: f64,
    gear_s: f64,
    road_s: f64,
    frames: u64,
    raf: Option<i32>,
    visible: bool,
    hidden: bool,
    reduced: bool,
    alive: bool,
    dirty: bool,
}

impl Anim {
    fn should_run(&self) -> bool {
        self.alive && self.visible && !self.hidden && !self.reduced && self.plan.is_some()
    }
}

#[derive(Default)]
struct Hooks {
    io: Option<web_sys::IntersectionObserver>,
    io_cb: Option<Closure<dyn FnMut(js_sys::Array)>>,
    vis_cb: Option<Closure<dyn FnMut()>>,
    mql: Option<web_sys::MediaQueryList>,
    mql_cb: Option<Closure<dyn FnMut()>>,
}

type FrameCb = Closure<dyn FnMut(f64)>;

#[derive(Default)]
struct Engine {
    anim: RefCell<Anim>,
    tick: RefCell<Option<FrameCb>>,
    hooks: RefCell<Hooks>,
}

impl Engine {
    fn request_frame(&self) -> Option<i32> {
        let tick = self.tick.borrow();
        let cb = tick.as_ref()?;
        web_sys::window()?
            .request_animation_frame(cb.as_ref().unchecked_ref())
            .ok()
    }

    /// Start, stop or redraw after anything changed (state, visibility, motion
    /// preference).
    fn poke(&self) {
        let mut a = self.anim.borrow_mut();
        if a.should_run() {
            if a.raf.is_none() {
                a.last_ts = None;
                a.raf = self.request_frame();
            }
            return;
        }
        if let Some(id) = a.raf.take() {
            if let Some(w) = web_sys::window() {
                let _ = w.cancel_animation_frame(id);
            }
        }
        if a.alive && a.visible && !a.hidden && a.dirty {
            let still = a.reduced;
            draw_frame(&mut a, 0.0, still);
        }
    }

    fn on_frame(&self, ts: f64) {
        let mut a = self.anim.borrow_mut();
        a.raf = None;
        if !a.should_run() {
            return;
        }
        let dt = match a.last_ts {
            Some(last) => ((ts - last) / 1000.0).clamp(0.0, 0.1),
            None => 0.0,
        };
        a.last_ts = Some(ts);
        draw_frame(&mut a, dt, false);
        a.raf = self.request_frame();
    }

    fn shutdown(&self) {
        {
            let mut a = self.anim.borrow_mut();
            a.alive = false;
            if let Some(id) = a.raf.take() {
                if let Some(w) = web_sys::window() {
                    let _ = w.cancel_animation_frame(id);
                }
            }
        }
        let mut h = self.hooks.borrow_mut();
        if let Some(io) = h.io.take() {
            io.disconnect();
        }
        if let Some(cb) = h.vis_cb.take() {
            if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
                let _ = doc.remove_event_listener_with_callback(
                    "visibilitychange",
                    cb.as_ref().unchecked_ref(),
                );
            }
        }
        if let (Some(mql), Some(cb)) = (h.mql.take(), h.mql_cb.take()) {
            let _ = mql.remove_event_listener_with_callback("change", cb.as_ref().unchecked_ref());
        }
        h.io_cb = None;
        drop(h);
        self.tick.borrow_mut().take();
    }
}

fn reduced_motion_query() -> Option<web_sys::MediaQueryList> {
    web_sys::window()?
        .match_media("(prefers-reduced-motion: reduce)")
        .ok()
        .flatten()
}

/// Attach the canvas, the frame callback, the visibility observer and the
/// listeners. Called once, when the canvas is in the DOM.
fn setup(engine: &Rc<Engine>, canvas: &HtmlCanvasElement, reduced: RwSignal<bool>) {
    let ctx2d = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|o| o.dyn_into::<C2d>().ok());
    {
        let mut a = engine.anim.borrow_mut();
        a.canvas = Some(canvas.clone());
        a.ctx2d = ctx2d;
        a.alive = true;
        a.hidden = web_sys::window()
            .and_then(|w| w.document())
            .is_some_and(|d| d.hidden());
    }

    let weak: Weak<Engine> = Rc::downgrade(engine);
    *engine.tick.borrow_mut() = Some(Closure::new(move |ts: f64| {
        if let Some(e) = weak.upgrade() {
            e.on_frame(ts);
        }
    }));

    let mut hooks = Hooks::default();

    // Pause while off screen.
    let weak = Rc::downgrade(engine);
    let io_cb = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let Some(e) = weak.upgrade() else { return };
        if let Ok(entry) = entries
            .pop()
            .dyn_into::<web_sys::IntersectionObserverEntry>()
        {
            e.anim.borrow_mut().visible = entry.is_intersecting();
            e.poke();
        }
    });
    match web_sys::IntersectionObserver::new(io_cb.as_ref().unchecked_ref()) {
        Ok(io) => {
            io.observe(canvas);
            hooks.io = Some(io);
            hooks.io_cb = Some(io_cb);
        }
        // No IntersectionObserver: treat the canvas as always visible.
        Err(_) => engine.anim.borrow_mut().visible = true,
    }

    // Pause while the tab is hidden.
    let weak = Rc::downgrade(engine);
    let vis_cb = Closure::<dyn FnMut()>::new(move || {
        let Some(e) = weak.upgrade() else { return };
        let hidden = web_sys::window()
            .and_then(|w| w.document())
            .is_some_and(|d| d.hidden());
        e.anim.borrow_mut().hidden = hidden;
        e.poke();
    });
    if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
        if doc
            .add_event_listener_with_callback("visibilitychange", vis_cb.as_ref().unchecked_ref())
            .is_ok()
        {
            hooks.vis_cb = Some(vis_cb);
        }
    }

    // Follow the reduced-motion preference if it changes while the page is open.
    if let Some(mql) = reduced_motion_query() {
        let weak = Rc::downgrade(engine);
        let q = mql.clone();
        let mql_cb = Closure::<dyn FnMut()>::new(move || {
            let Some(e) = weak.upgrade() else { return };
            let on = q.matches();
            {
                let mut a = e.anim.borrow_mut();
                a.reduced = on;
                a.dirty = true;
            }
            e.poke();
            reduced.set(on);
        });
        if mql
            .add_event_listener_with_callback("change", mql_cb.as_ref().unchecked_ref())
            .is_ok()
        {
            hooks.mql = Some(mql);
            hooks.mql_cb = Some(mql_cb);
        }
    }
    *engine.hooks.borrow_mut() = hooks;
    engine.poke();
}

// ---------------------------------------------------------------------------
// Drawing

struct Lay {
    w: f64,
    h: f64,
    s: f64,
    ground: f64,
    wh0: f64,
    wh1: f64,
    wh_top: f64,
    fa0: f64,
    fa1: f64,
    fa_top: f64,
    road_top: f64,
    lane_in: f64,
    lane_out: f64,
    strip0: f64,
    strip1: f64,
    cpu_y: f64,
    gpu_y: f64,
}

fn layout(w: f64, h: f64) -> Lay {
    let s = (w / 820.0).clamp(0.72, 1.2);
    let ground = h - 66.0;
    let top = 44.0;
    let scene = (ground - top).max(60.0);
    let wh0 = 8.0;
    let wh1 = wh0 + (w * 0.2).max(78.0);
    let fa1 = w - 8.0;
    let fa0 = fa1 - (w * 0.3).max(124.0);
    Lay {
        w,
        h,
        s,
        ground,
        wh0,
        wh1,
        wh_top: ground - scene * 0.7,
        fa0,
        fa1,
        fa_top: ground - scene * 0.6,
        road_top: ground - 40.0 * s,
        lane_in: ground - 22.0 * s,
        lane_out: ground - 3.0 * s,
        strip0: if w < 480.0 { 52.0 } else { 62.0 },
        strip1: w - 10.0,
        cpu_y: h - 48.0,
        gpu_y: h - 34.0,
    }
}

/// Advance the clock by `dt` and draw; `still` draws the reduced-motion frame.
fn draw_frame(a: &mut Anim, dt: f64, still: bool) {
    let (Some(canvas), Some(c)) = (a.canvas.as_ref(), a.ctx2d.as_ref()) else {
        return;
    };
    let Some(p) = a.plan.as_ref() else { return };
    let dpr = chart::fit(
        canvas,
        a.css_w,
        |w| if w < 640.0 { 0.92 } else { 0.34 },
        300.0,
        420.0,
    );
    if !still {
        a.clock = (a.clock + dt).rem_euclid(PERIOD_S);
    }
    let ts = if still {
        p.still_t
    } else {
        a.clock / PERIOD_S * p.wall
    };
    let sc = p.scene(ts);
    if still {
        a.gear = 0.35;
        a.odo = 0.12;
        a.pen = 1.0;
        a.gear_s = sc.util;
        a.road_s = sc.road;
    } else {
        if sc.discrete || dt == 0.0 {
            a.gear_s = sc.util;
            a.road_s = sc.road;
        } else {
            let k = (dt * 8.0).min(1.0);
            a.gear_s += (sc.util - a.gear_s) * k;
            a.road_s += (sc.road - a.road_s) * k;
        }
        // 7 turns of the big gear = 10 of the small one: wrap without a jump.
        a.gear = (a.gear + dt * a.gear_s * TAU * 0.7).rem_euclid(TAU * 7.0);
        if a.road_s >= 0.05 {
            a.odo = (a.odo + dt / TRIP_S).rem_euclid(1.0);
        }
        if sc.cpu_busy {
            a.pen = (a.pen + dt * 11.0).rem_euclid(TAU);
        }
    }
    let w = f64::from(canvas.width()) / dpr;
    let h = f64::from(canvas.height()) / dpr;
    let _ = c.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    let v = Vars {
        gear: a.gear,
        odo: a.odo,
        pen: a.pen,
        util: a.gear_s,
        road: a.road_s,
        still,
    };
    render(c, &layout(w, h), p, &sc, &v);
    a.frames += 1;
    a.dirty = false;
    let _ = canvas.set_attribute("data-frame", &a.frames.to_string());
}

struct Vars {
    gear: f64,
    odo: f64,
    pen: f64,
    util: f64,
    road: f64,
    still: bool,
}

fn rect(c: &C2d, x: f64, y: f64, w: f64, h: f64, fill: &str) {
    c.set_fill_style_str(fill);
    c.fill_rect(x, y, w, h);
}

fn circle(c: &C2d, x: f64, y: f64, r: f64, fill: &str) {
    c.set_fill_style_str(fill);
    c.begin_path();
    let _ = c.arc(x, y, r.max(0.1), 0.0, TAU);
    c.fill();
}

fn text(c: &C2d, s: &str, (x, y): (f64, f64), font: &str, fill: &str, align: &str, max_w: f64) {
    c.set_font(font);
    c.set_fill_style_str(fill);
    c.set_text_align(align);
    let _ = c.fill_text_with_max_width(s, x, y, max_w.max(10.0));
}

fn gear(c: &C2d, cx: f64, cy: f64, r: f64, teeth: u32, angle: f64, fill: &str) {
    let step = TAU / f64::from(teeth);
    c.set_fill_style_str(fill);
    c.begin_path();
    for j in 0..teeth * 4 {
        let a = angle + f64::from(j) * step / 4.0;
        let rr = if matches!(j % 4, 1 | 2) { r } else { r * 0.78 };
        let (x, y) = (cx + rr * a.cos(), cy + rr * a.sin());
        if j == 0 {
            c.move_to(x, y);
        } else {
            c.line_to(x, y);
        }
    }
    c.close_path();
    c.fill();
    circle(c, cx, cy, r * 0.28, WHITE);
}

/// A truck centred at `x`, wheels on `base`; `dir` +1 faces right. `load` is the
/// crate colour, or None for empty.
fn truck(c: &C2d, x: f64, base: f64, dir: f64, load: Option<&str>, s: f64) {
    let (tw, th) = (36.0 * s, 18.0 * s);
    let left = x - tw / 2.0;
    let box_w = tw * 0.66;
    let cab_w = tw * 0.28;
    let (box_x, cab_x) = if dir > 0.0 {
        (left, left + tw - cab_w)
    } else {
        (left + tw - box_w, left)
    };
    let top = base - th;
    rect(c, box_x, top, box_w, th * 0.82, SLATE);
    rect(
        c,
        box_x + 1.5,
        top + 1.5,
        box_w - 3.0,
        th * 0.82 - 3.0,
        load.unwrap_or(WHITE),
    );
    if load.is_some() {
        // crate seams
        rect(
            c,
            box_x + box_w / 2.0 - 0.5,
            top + 1.5,
            1.0,
            th * 0.82 - 3.0,
            SLATE,
        );
    }
    rect(c, cab_x, top + th * 0.3, cab_w, th * 0.52, "#64748b");
    let win_x = if dir > 0.0 {
        cab_x + cab_w * 0.45
    } else {
        cab_x + cab_w * 0.1
    };
    rect(
        c,
        win_x,
        top + th * 0.36,
        cab_w * 0.45,
        th * 0.18,
        "#e0f2fe",
    );
    let r = th * 0.17;
    circle(c, left + tw * 0.2, base - r, r, INK);
    circle(c, left + tw * 0.8, base - r, r, INK);
}

fn render(c: &C2d, l: &Lay, p: &Plan, sc: &Scene, v: &Vars) {
    let s = l.s;
    let narrow = l.w < 560.0;
    c.set_text_baseline("alphabetic");
    rect(c, 0.0, 0.0, l.w, l.h, WHITE);

    // ground line
    rect(c, 0.0, l.ground, l.w, 1.0, "#cbd5e1");

    // --- warehouse (DRAM) --------------------------------------------------
    let ww = l.wh1 - l.wh0;
    rect(c, l.wh0, l.wh_top, ww, l.ground - l.wh_top, MEMORY);
    rect(
        c,
        l.wh0 + 1.5,
        l.wh_top + 1.5,
        ww - 3.0,
        l.ground - l.wh_top - 3.0,
        MEMORY_LIGHT,
    );
    c.set_fill_style_str(MEMORY);
    c.begin_path();
    c.move_to(l.wh0 - 4.0, l.wh_top + 1.0);
    c.line_to(l.wh0 + ww / 2.0, l.wh_top - 18.0 * s);
    c.line_to(l.wh1 + 4.0, l.wh_top + 1.0);
    c.close_path();
    c.fill();
    text(
        c,
        "Warehouse",
        (l.wh0 + 7.0, l.wh_top + 17.0),
        F12B,
        INK,
        "left",
        ww - 12.0,
    );
    text(
        c,
        "DRAM",
        (l.wh0 + 7.0, l.wh_top + 31.0),
        F11,
        MUTED,
        "left",
        ww - 12.0,
    );
    // crates
    let cs = 9.0 * s;
    let cols = (((ww - 22.0) / (cs + 2.0)).floor() as i32).clamp(1, 14);
    let rows = (((l.ground - l.wh_top - 44.0) / (cs + 2.0)).floor() as i32).clamp(0, 12);
    for rr in 0..rows {
        for cc in 0..cols {
            let x = l.wh0 + 7.0 + f64::from(cc) * (cs + 2.0);
            let y = l.ground - 4.0 - f64::from(rr + 1) * (cs + 2.0);
            rect(c, x, y, cs, cs, CRATE);
        }
    }
    // door
    rect(
        c,
        l.wh1 - 4.0 * s,
        l.ground - 24.0 * s,
        4.0 * s,
        24.0 * s,
        SLATE,
    );

    // --- road (memory bandwidth) -------------------------------------------
    let rw = l.fa0 - l.wh1;
    rect(c, l.wh1, l.road_top, rw, l.ground - l.road_top, ROAD);
    let mid = (l.road_top + l.ground) / 2.0 - 1.0;
    let mut x = l.wh1 + 6.0;
    while x + 8.0 * s < l.fa0 - 4.0 {
        rect(c, x, mid, 8.0 * s, 2.0, WHITE);
        x += 16.0 * s;
    }
    let rc = l.wh1 + rw / 2.0;
    let road_title = if rw < 210.0 {
        "Trucks: bandwidth"
    } else {
        "Trucks = memory bandwidth"
    };
    text(
        c,
        road_title,
        (rc, l.road_top - 7.0 * s - 16.0),
        F12B,
        MEMORY,
        "center",
        rw - 8.0,
    );
    text(
        c,
        &p.trips_text,
        (rc, l.road_top - 7.0 * s),
        F11,
        MUTED,
        "center",
        rw - 8.0,
    );

    // trucks
    let tw = 36.0 * s;
    let xa = l.wh1 + tw / 2.0 + 3.0;
    let xb = l.fa0 - tw / 2.0 - 3.0;
    let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t.clamp(0.0, 1.0);
    match (sc.discrete, sc.seg) {
        (true, Some(seg)) if seg.kind != Kind::Idle => {
            let m = seg.m_util.clamp(0.02, 1.0);
            let q = sc.q;
            if q < m / 2.0 {
                truck(
                    c,
                    lerp(xa, xb, q / (m / 2.0)),
                    l.lane_in,
                    1.0,
                    Some(CRATE),
                    s,
                );
            } else if q < 1.0 - m / 2.0 {
                truck(c, xb, l.lane_in, 1.0, None, s);
                text(
                    c,
                    "waiting…",
                    (xb, l.lane_in - 18.0 * s),
                    F10,
                    MUTED,
                    "center",
                    80.0,
                );
            } else {
                let t = (q - (1.0 - m / 2.0)) / (m / 2.0);
                truck(c, lerp(xb, xa, t), l.lane_out, -1.0, Some(COMPUTE), s);
            }
        }
        (true, _) => {
            truck(c, xa, l.lane_in, 1.0, None, s);
        }
        (false, _) if v.road < 0.05 => {
            truck(c, xa, l.lane_in, 1.0, None, s);
        }
        (false, _) => {
            // as many trucks on the road as the bandwidth is in use (1 to 3)
            let n = ((v.road * 3.0 - 0.15).ceil() as i32).clamp(1, 3);
            for k in 0..n {
                let u = (v.odo + f64::from(k) / 3.0).rem_euclid(1.0);
                if u < 0.5 {
                    truck(c, lerp(xa, xb, u * 2.0), l.lane_in, 1.0, Some(CRATE), s);
                } else {
                    truck(
                        c,
                        lerp(xb, xa, (u - 0.5) * 2.0),
                        l.lane_out,
                        -1.0,
                        Some(COMPUTE),
                        s,
                    );
                }
            }
        }
    }

    // --- factory (compute + SRAM) ------------------------------------------
    let fw = l.fa1 - l.fa0;
    let fh = l.ground - l.fa_top;
    rect(c, l.fa0, l.fa_top, fw, fh, COMPUTE);
    rect(
        c,
        l.fa0 + 1.5,
        l.fa_top + 1.5,
        fw - 3.0,
        fh - 3.0,
        COMPUTE_LIGHT,
    );
    // saw-tooth roof with a window per tooth; lit ones show utilisation
    let teeth = 5u32;
    let tooth = fw / f64::from(teeth);
    let lit = if v.util > 0.02 {
        ((v.util * f64::from(teeth)).round() as u32).max(1)
    } else {
        0
    };
    let rh = 13.0 * s;
    for i in 0..teeth {
        let x0 = l.fa0 + f64::from(i) * tooth;
        c.set_fill_style_str(COMPUTE);
        c.begin_path();
        c.move_to(x0, l.fa_top + 1.0);
        c.line_to(x0, l.fa_top - rh);
        c.line_to(x0 + tooth, l.fa_top + 1.0);
        c.close_path();
        c.fill();
        let pane = if i < lit { LIT } else { "#93a3b8" };
        rect(
            c,
            x0 + 2.0,
            l.fa_top - rh + 4.0,
            (tooth * 0.22).max(3.0),
            rh - 6.0,
            pane,
        );
    }
    // chimney and smoke
    let chx = l.fa1 - 20.0 * s;
    let ch_top = l.fa_top - rh - 12.0 * s;
    rect(c, chx, ch_top, 8.0 * s, l.fa_top - ch_top, SLATE);
    if v.util > 0.05 {
        for k in 0..3 {
            let ph = (v.gear / TAU * 0.8 + f64::from(k) / 3.0).rem_euclid(1.0);
            c.set_global_alpha(((1.0 - ph) * 0.8 * v.util.min(1.0)).clamp(0.0, 1.0));
            circle(
                c,
                chx + 4.0 * s + ph * 6.0 * s,
                ch_top - 4.0 - ph * 20.0 * s,
                (3.0 + ph * 4.0) * s,
                SMOKE,
            );
        }
        c.set_global_alpha(1.0);
    }
    text(
        c,
        "Factory",
        (l.fa0 + 8.0, l.fa_top + 17.0),
        F12B,
        INK,
        "left",
        fw - 16.0,
    );
    let sub = if narrow {
        p.flops_text.clone()
    } else {
        format!("compute + SRAM · {}", p.flops_text)
    };
    text(
        c,
        &sub,
        (l.fa0 + 8.0, l.fa_top + 31.0),
        F11,
        MUTED,
        "left",
        fw - 16.0,
    );
    // interior: gears on the left, SRAM shelf on the right
    let in_top = l.fa_top + 38.0;
    let in_bot = l.ground - 16.0;
    let ih = (in_bot - in_top).max(16.0);
    let gr = (ih * 0.46).min(22.0 * s).max(7.0);
    let gcx = l.fa0 + 12.0 + gr;
    let gcy = in_top + ih / 2.0;
    let gear_col = if v.util > 0.02 { COMPUTE } else { OVERHEAD };
    gear(c, gcx, gcy, gr, 10, v.gear, gear_col);
    let sr = gr * 0.7;
    gear(
        c,
        gcx + gr + sr * 0.92,
        gcy + gr * 0.35,
        sr,
        7,
        -v.gear * 10.0 / 7.0 + 0.2,
        gear_col,
    );
    let sx = gcx + gr + sr * 2.0 + 10.0;
    let sw = (l.fa1 - 10.0 - sx).min(fw * 0.4).min(110.0 * s);
    if sw > 24.0 {
        let cell = ((sw - 8.0) / 3.0).min(ih * 0.3);
        let shelf_h = cell * 2.0 + 8.0;
        let sy = gcy - shelf_h / 2.0;
        rect(c, sx, sy, sw, shelf_h, "#bfdbfe");
        for rr in 0..2 {
            for cc in 0..3 {
                let filled = sc.kind != Kind::Idle || v.util > 0.0;
                rect(
                    c,
                    sx + 3.0 + f64::from(cc) * ((sw - 6.0) / 3.0),
                    sy + 3.0 + f64::from(rr) * (cell + 2.0),
                    (sw - 6.0) / 3.0 - 2.0,
                    cell,
                    if filled { COMPUTE } else { "#93c5fd" },
                );
            }
        }
        text(
            c,
            "SRAM",
            (sx + sw / 2.0, sy + shelf_h + 11.0),
            F10,
            MUTED,
            "center",
            sw,
        );
    }
    // door (the dock)
    rect(c, l.fa0, l.ground - 24.0 * s, 4.0 * s, 24.0 * s, SLATE);
    // idle: dim the whole building
    if v.still || sc.dark > 0.0 {
        c.set_global_alpha((sc.dark * 0.45).clamp(0.0, 0.45));
        rect(c, l.fa0, l.fa_top - rh - 1.0, fw, fh + rh + 1.0, SLATE);
        c.set_global_alpha(1.0);
    }
    // status tag
    let (tag, tag_col) = match sc.kind {
        Kind::Compute => ("busy", COMPUTE),
        Kind::Memory => ("waiting for trucks", MEMORY),
        Kind::Idle => ("dark: no order", SLATE),
    };
    let op = match sc.seg {
        Some(seg)
            if sc.discrete
                && p.fused_ops > 1
                && seg.kind != Kind::Idle
                && seg.count == 1
                && p.names
                    .get(seg.group)
                    .is_some_and(|n| n.starts_with("fused")) =>
        {
            let k = ((sc.q * f64::from(p.fused_ops)).floor() as u32 + 1).min(p.fused_ops);
            if narrow {
                format!("op {k}/{} on chip", p.fused_ops)
            } else {
                format!("{tag} · op {k}/{} on chip", p.fused_ops)
            }
        }
        _ => tag.to_string(),
    };
    text(
        c,
        &op,
        (l.fa1 - 8.0, l.ground - 5.0),
        F11B,
        tag_col,
        "right",
        fw - 16.0,
    );

    // --- instruction desk (CPU overhead) -----------------------------------
    let dx = l.fa0 + fw * 0.58;
    let dy = l.fa_top - rh - 16.0 * s;
    // clerk
    circle(c, dx - 12.0 * s, dy - 21.0 * s, 6.0 * s, "#e2e8f0");
    c.set_stroke_style_str(SLATE);
    c.set_line_width(1.2);
    c.begin_path();
    let _ = c.arc(dx - 12.0 * s, dy - 21.0 * s, 6.0 * s, 0.0, TAU);
    c.stroke();
    rect(
        c,
        dx - 19.0 * s,
        dy - 14.0 * s,
        14.0 * s,
        12.0 * s,
        OVERHEAD,
    );
    // arm + pen
    let (px, py) = if sc.cpu_busy {
        (
            dx + 2.0 * s + 5.0 * s * v.pen.sin(),
            dy - 6.0 * s + 1.5 * s * (2.0 * v.pen).cos(),
        )
    } else {
        (dx - 2.0 * s, dy - 4.0 * s)
    };
    c.set_stroke_style_str(SLATE);
    c.set_line_width(2.0 * s);
    c.begin_path();
    c.move_to(dx - 8.0 * s, dy - 11.0 * s);
    c.line_to(px, py);
    c.stroke();
    // table
    rect(c, dx - 30.0 * s, dy - 3.0 * s, 62.0 * s, 4.0 * s, "#94a3b8");
    rect(c, dx - 27.0 * s, dy + 1.0 * s, 3.0 * s, 9.0 * s, DESK);
    rect(c, dx + 26.0 * s, dy + 1.0 * s, 3.0 * s, 9.0 * s, DESK);
    // the order being written
    if sc.cpu_busy {
        rect(c, dx - 3.0 * s, dy - 6.0 * s, 14.0 * s, 3.0 * s, WHITE);
        c.set_stroke_style_str(OVERHEAD);
        c.set_line_width(1.0);
        c.stroke_rect(dx - 3.0 * s, dy - 6.0 * s, 14.0 * s, 3.0 * s);
    }
    // out-tray: orders written but not yet started by the factory
    let shown = sc.queued.min(6);
    for k in 0..shown {
        let y = dy - 6.0 * s - k as f64 * 3.0 * s;
        rect(c, dx + 16.0 * s, y, 13.0 * s, 2.5 * s, WHITE);
        c.set_stroke_style_str(COMPUTE);
        c.set_line_width(0.8);
        c.stroke_rect(dx + 16.0 * s, y, 13.0 * s, 2.5 * s);
    }
    if sc.queued > 0 {
        let label = if sc.queued > 6 {
            format!("{} queued", sc.queued)
        } else {
            "queued".to_string()
        };
        text(
            c,
            &label,
            (dx + 22.0 * s, dy - 12.0 * s - shown as f64 * 3.0 * s),
            F10,
            COMPUTE,
            "center",
            70.0,
        );
    }
    let label_x = dx - 30.0 * s - 6.0;
    let label_w = (label_x - l.wh1 - 4.0).max(40.0);
    text(
        c,
        "Instruction desk (CPU)",
        (label_x, dy - 16.0 * s),
        F12B,
        SLATE,
        "right",
        label_w,
    );
    let desk_line = if sc.cpu_busy {
        format!(
            "writing order {} of {} · {} each",
            (sc.launched + 1).min(p.launches),
            p.launches,
            p.overhead_text
        )
    } else if p.launches == 1 {
        "the step's one order is handed out".to_string()
    } else {
        format!("all {} orders handed out", p.launches)
    };
    text(
        c,
        &desk_line,
        (label_x, dy - 3.0 * s),
        F11,
        MUTED,
        "right",
        label_w,
    );

    // --- headline ----------------------------------------------------------
    let what = p.what(sc);
    let head = match sc.kind {
        Kind::Compute => format!("{what}: compute-bound, the factory sets the pace"),
        Kind::Memory => format!("{what}: memory-bound, the factory waits for trucks"),
        Kind::Idle => "GPU idle: the factory waits for the desk's next order".to_string(),
    };
    let head_col = match sc.kind {
        Kind::Compute => COMPUTE,
        Kind::Memory => MEMORY,
        Kind::Idle => SLATE,
    };
    text(c, &head, (8.0, 17.0), F13B, head_col, "left", l.w - 16.0);
    let sub = if v.still {
        format!(
            "still picture at {} of a {} step",
            units::si(sc.ts, "s"),
            p.wall_text
        )
    } else {
        format!(
            "t = {} of a {} step, replayed every {} s",
            units::si(sc.ts, "s"),
            p.wall_text,
            PERIOD_S
        )
    };
    text(c, &sub, (8.0, 33.0), F11, MUTED, "left", l.w - 16.0);

    // --- timeline strip ----------------------------------------------------
    let (x0, x1) = (l.strip0, l.strip1);
    let sw = (x1 - x0).max(1.0);
    text(
        c,
        "desk",
        (x0 - 6.0, l.cpu_y + 8.0),
        F10,
        MUTED,
        "right",
        x0,
    );
    text(
        c,
        "factory",
        (x0 - 6.0, l.gpu_y + 11.0),
        F10,
        MUTED,
        "right",
        x0,
    );
    let (ch, gh) = (9.0, 14.0);
    rect(c, x0, l.cpu_y, sw, ch, TRACK);
    if p.wall > 0.0 {
        rect(
            c,
            x0,
            l.cpu_y,
            sw * (p.cpu_end / p.wall).clamp(0.0, 1.0),
            ch,
            OVERHEAD,
        );
    }
    for t in &p.cpu_ticks {
        rect(c, x0 + sw * t - 0.5, l.cpu_y, 1.0, ch, WHITE);
    }
    rect(c, x0, l.gpu_y, sw, gh, TRACK);
    for r in &p.strip {
        let col = match r.kind {
            Kind::Compute => COMPUTE,
            Kind::Memory => MEMORY,
            Kind::Idle => OVERHEAD,
        };
        let rx = x0 + sw * r.x0;
        let rw = (sw * (r.x1 - r.x0)).max(0.75);
        rect(c, rx, l.gpu_y + gh * r.y0, rw, gh * (r.y1 - r.y0), col);
    }
    if p.seg_marks.len() as f64 * 3.0 < sw {
        for m in &p.seg_marks {
            rect(c, x0 + sw * m - 0.5, l.gpu_y, 1.0, gh, WHITE);
        }
    }
    // playhead
    let ph = if p.wall > 0.0 {
        x0 + sw * (sc.ts / p.wall).clamp(0.0, 1.0)
    } else {
        x0
    };
    rect(
        c,
        ph - 1.0,
        l.cpu_y - 4.0,
        2.0,
        gh + (l.gpu_y - l.cpu_y) + 8.0,
        INK,
    );
    c.set_fill_style_str(INK);
    c.begin_path();
    c.move_to(ph - 4.0, l.cpu_y - 7.0);
    c.line_to(ph + 4.0, l.cpu_y - 7.0);
    c.line_to(ph, l.cpu_y - 2.0);
    c.close_path();
    c.fill();
    text(c, "0", (x0, l.h - 6.0), F10, MUTED, "left", 20.0);
    text(c, &p.wall_text, (x1, l.h - 6.0), F10, MUTED, "right", 80.0);
    let legend = if sw < 480.0 {
        "blue compute · orange memory · grey idle"
    } else {
        "blue: compute-bound · orange: memory-bound · grey: waiting on the CPU"
    };
    text(
        c,
        legend,
        (x0 + sw / 2.0, l.h - 6.0),
        F10,
        MUTED,
        "center",
        (sw - 110.0).max(40.0),
    );
}

// ---------------------------------------------------------------------------
// The component

#[derive(Clone, PartialEq)]
struct Doubling {
    after: State,
    flops_before: f64,
    wall_before: f64,
    wall_after: f64,
    regime_before: Regime,
}

fn doubled(s: &State) -> State {
    let mut t = s.clone();
    t.flops = (s.flops * 2.0).min(limits::FLOPS.1);
    t
}

fn why(speedup: f64, regime: Regime) -> &'static str {
    if speedup >= 1.9 {
        "close to 2×: this step is compute-bound, so a bigger factory is what it needed."
    } else {
        match regime {
            Regime::Memory => {
                "not 2×: the trucks (memory bandwidth) set the pace, and they are no faster than before."
            }
            Regime::Overhead => {
                "not 2×: the factory mostly waits for the instruction desk (CPU overhead), which did not speed up."
            }
            Regime::Compute => {
                "less than 2×: only the compute-bound part of the step got faster; the rest waits on trucks or the desk."
            }
        }
    }
}

#[component]
fn Gauge(
    kind: &'static str,
    label: &'static str,
    #[prop(into)] value: Signal<f64>,
) -> impl IntoView {
    view! {
        <div class=format!("gauge {kind}") data-gauge=kind data-value=move || value.get().to_string()
            role="meter" aria-label=label aria-valuemin="0" aria-valuemax="100"
            aria-valuenow=move || format!("{:.1}", value.get() * 100.0)>
            <span class="gauge-label">{label}</span>
            <span class="gauge-track">
                <span class="gauge-fill" style=move || format!("width:{:.1}%", (value.get() * 100.0).clamp(0.0, 100.0))></span>
            </span>
            <span class="gauge-value">{move || units::percent(value.get())}</span>
        </div>
    }
}

#[component]
pub fn Factory(ctx: Ctx) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let width = chart::CssWidth::new(canvas);
    let reduced = RwSignal::new(reduced_motion_query().is_some_and(|q| q.matches()));

    let engine: Rc<Engine> = Rc::new(Engine::default());
    engine.anim.borrow_mut().reduced = reduced.get_untracked();
    let stored = StoredValue::new_local(engine.clone());
    on_cleanup(move || {
        let _ = stored.try_with_value(|e| e.shutdown());
    });

    // Attach once the canvas is in the DOM.
    {
        let engine = engine.clone();
        Effect::new(move |done: Option<bool>| {
            if done == Some(true) {
                return true;
            }
            let Some(c) = canvas.get() else { return false };
            setup(&engine, &c, reduced);
            true
        });
    }
    // Rebuild the plan on every state or layout change; redraw (or let the loop
    // pick it up).
    {
        let engine = engine.clone();
        Effect::new(move |_| {
            let w = width.get();
            let plan = ctx.view.with(|s| ctx.report.with(|r| Plan::build(r, s)));
            {
                let mut a = engine.anim.borrow_mut();
                a.plan = Some(plan);
                a.css_w = w;
                a.dirty = true;
            }
            engine.poke();
        });
    }

    let shares = Memo::new(move |_| ctx.report.with(|r| r.shares));
    let summary = Memo::new(move |_| {
        ctx.report.with(|r| {
            let sh = r.shares;
            format!(
                "Step {}: {}. Factory busy (compute) {}, trucks (memory) {}, waiting on the instruction desk (overhead) {}.",
                units::si(r.wall_time_s, "s"),
                r.regime.label(),
                units::percent(sh.compute),
                units::percent(sh.memory),
                units::percent(sh.overhead)
            )
        })
    });
    let aria = move || {
        let (fused, ops) = ctx.view.with(|s| (s.fused, s.ops));
        ctx.report.with(|r| {
            let how = if fused {
                format!("the pointwise chain of {ops} ops is fused, so its data makes one trip in and one trip out")
            } else {
                "each pointwise op is its own kernel, so the data goes back to the warehouse after every op"
                    .to_string()
            };
            format!(
                "Animated factory picture of one step ({} kernel launches; {how}). {}",
                r.kernel_count,
                summary.get()
            )
        })
    };

    // "Double the factory"
    let last = RwSignal::new(None::<Doubling>);
    let at_max = Memo::new(move |_| ctx.view.with(|s| s.flops >= limits::FLOPS.1));
    let at_min = Memo::new(move |_| ctx.view.with(|s| s.flops <= limits::FLOPS.0));
    let preview = Memo::new(move |_| {
        ctx.view.with(|s| {
            let t = doubled(s);
            let after = t.report();
            (
                t.flops,
                ctx.report.with(|r| (r.wall_time_s, r.regime)),
                after.wall_time_s,
            )
        })
    });
    let double = move |_| {
        let before = ctx.state.get_untracked();
        let after = doubled(&before);
        if after.flops <= before.flops {
            return;
        }
        let (wall_before, regime_before) = ctx.report.with_untracked(|r| (r.wall_time_s, r.regime));
        let wall_after = after.report().wall_time_s;
        last.set(Some(Doubling {
            after: after.clone(),
            flops_before: before.flops,
            wall_before,
            wall_after,
            regime_before,
        }));
        ctx.state.set(after);
    };
    let halve = move |_| {
        ctx.state
            .update(|s| s.flops = (s.flops / 2.0).max(limits::FLOPS.0));
    };
    let caption = move || {
        let done = last.with(|d| {
            d.as_ref()
                .filter(|d| ctx.view.with(|s| *s == d.after))
                .cloned()
        });
        match done {
            Some(d) => {
                let sp = d.wall_before / d.wall_after;
                format!(
                    "You doubled the factory from {} to {}: the step went from {} to {}, {}× faster — {}",
                    units::si(d.flops_before, "FLOP/s"),
                    units::si(d.after.flops, "FLOP/s"),
                    units::si(d.wall_before, "s"),
                    units::si(d.wall_after, "s"),
                    units::sig3(sp),
                    why(sp, d.regime_before)
                )
            }
            None if at_max.get() => format!(
                "The factory is already at the largest size the model allows ({}).",
                units::si(limits::FLOPS.1, "FLOP/s")
            ),
            None => {
                let (f2, (w1, _), w2) = preview.get();
                format!(
                    "Doubling the factory to {} would take the step from {} to {} ({}× faster).",
                    units::si(f2, "FLOP/s"),
                    units::si(w1, "s"),
                    units::si(w2, "s"),
                    units::sig3(w1 / w2)
                )
            }
        }
    };
    let motion_note = move || {
        if reduced.get() {
            "Reduced motion is on: this is a still picture of the moment that dominates the step. It redraws when you change the model."
        } else {
            "One step of the model replays every few seconds; the strip below the picture is the step's timeline and the triangle is “now”. The animation pauses while it is off screen."
        }
    };

    view! {
        <p>
            "The same model as the explorer, drawn as the analogy: the warehouse is GPU memory, the trucks "
            "are its bandwidth, the factory is the compute units with their small on-chip memory, and the "
            "desk above it is the CPU writing one order per kernel launch."
        </p>
        <canvas id="factory-canvas" class="factory-canvas" node_ref=canvas role="img"
            aria-label=aria data-frame="0"></canvas>
        <p class="note factory-motion">{motion_note}</p>
        <p class="sr-only" aria-live="polite">{move || summary.get()}</p>
        <div class="factory-gauges" role="group" aria-label="Where the step's time goes">
            <Gauge kind="compute" label="Factory busy (compute)"
                value=Signal::derive(move || shares.get().compute)/>
            <Gauge kind="memory" label="Trucks busy (memory)"
                value=Signal::derive(move || shares.get().memory)/>
            <Gauge kind="overhead" label="Waiting on the desk (overhead)"
                value=Signal::derive(move || shares.get().overhead)/>
        </div>
        <div class="factory-actions">
            <button id="factory-double" class="factory-btn" on:click=double
                disabled=move || at_max.get()>"Double the factory"</button>
            <button id="factory-halve" class="factory-btn secondary" on:click=halve
                disabled=move || at_min.get()>"Halve it back"</button>
        </div>
        <p id="factory-caption" class="factory-caption" aria-live="polite">{caption}</p>
    }
}
