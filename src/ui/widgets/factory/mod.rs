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
//! built once per change of the explorer's setting in
//! `crate::factory::Storyboard::build`; a frame is a few binary searches and
//! ~150 plain `CanvasRenderingContext2d` calls, each fill, font and alignment set
//! only when it changes. The loop runs on
//! `requestAnimationFrame`, stops on unmount, and pauses while the canvas is off
//! screen or the tab is hidden. With `prefers-reduced-motion: reduce` there is no
//! loop: a still frame is drawn on each change of the setting.

mod draw;

use crate::factory::{Storyboard, PERIOD_S};
use crate::js::OnScreenWatch;
use crate::model::{remedies, units, Setting, Shares};
use crate::state::widgets::factory::{doubled, doubled_setting};
use crate::state::{limits, State};
use crate::ui::chart;
use crate::ui::kit::Ctx;
use draw::{layout, render, Vars};
use leptos::html::Canvas;
use leptos::prelude::*;
use std::cell::RefCell;
use std::f64::consts::TAU;
use std::rc::{Rc, Weak};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d as C2d, HtmlCanvasElement};

/// Seconds for one stream-mode truck round trip.
const TRIP_S: f64 = 1.3;

// ---------------------------------------------------------------------------
// The animation engine: plain Rust state shared with the rAF and observer
// callbacks (single-threaded; leptos only sees it through a local StoredValue).

#[derive(Default)]
struct Anim {
    canvas: Option<HtmlCanvasElement>,
    ctx2d: Option<C2d>,
    plan: Option<Storyboard>,
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

    /// Says on the canvas whether the animation loop runs (`data-running`, "1"
    /// or "0"; tests wait on it), written only when it changes.
    fn mark_running(&self, on: bool) {
        let Some(c) = self.canvas.as_ref() else {
            return;
        };
        let v = if on { "1" } else { "0" };
        if c.get_attribute("data-running").as_deref() != Some(v) {
            let _ = c.set_attribute("data-running", v);
        }
    }
}

/// What the engine listens to, kept to be removed on unmount: the on-screen
/// watch, `visibilitychange` and the reduced-motion media query.
#[derive(Default)]
struct Listeners {
    on_screen: Option<OnScreenWatch>,
    vis_cb: Option<Closure<dyn FnMut()>>,
    mql: Option<web_sys::MediaQueryList>,
    mql_cb: Option<Closure<dyn FnMut()>>,
}

type FrameCb = Closure<dyn FnMut(f64)>;

#[derive(Default)]
struct Engine {
    anim: RefCell<Anim>,
    tick: RefCell<Option<FrameCb>>,
    listeners: RefCell<Listeners>,
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
            a.mark_running(a.raf.is_some());
            return;
        }
        if let Some(id) = a.raf.take() {
            if let Some(w) = web_sys::window() {
                let _ = w.cancel_animation_frame(id);
            }
        }
        a.mark_running(false);
        if a.alive && a.visible && !a.hidden && a.dirty {
            let still = a.reduced;
            draw_frame(&mut a, 0.0, still);
        }
    }

    fn on_frame(&self, ts: f64) {
        let mut a = self.anim.borrow_mut();
        a.raf = None;
        if !a.should_run() {
            a.mark_running(false);
            return;
        }
        let dt = match a.last_ts {
            Some(last) => ((ts - last) / 1000.0).clamp(0.0, 0.1),
            None => 0.0,
        };
        a.last_ts = Some(ts);
        draw_frame(&mut a, dt, false);
        a.raf = self.request_frame();
        a.mark_running(a.raf.is_some());
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
        let mut h = self.listeners.borrow_mut();
        h.on_screen = None;
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

    let mut listeners = Listeners::default();

    // Pause while off screen.
    let weak = Rc::downgrade(engine);
    listeners.on_screen = OnScreenWatch::new(canvas, "0px", move |on| {
        let Some(e) = weak.upgrade() else { return };
        e.anim.borrow_mut().visible = on;
        e.poke();
    });
    if listeners.on_screen.is_none() {
        // No IntersectionObserver: treat the canvas as always visible.
        engine.anim.borrow_mut().visible = true;
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
            listeners.vis_cb = Some(vis_cb);
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
            listeners.mql = Some(mql);
            listeners.mql_cb = Some(mql_cb);
        }
    }
    *engine.listeners.borrow_mut() = listeners;
    engine.poke();
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
#[derive(Clone, PartialEq)]
struct Doubling {
    after: State,
    flops_before: f64,
    wall_before: f64,
    wall_after: f64,
    shares_before: Shares,
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

    // all the picture, its text and its preview read of the state: the
    // explorer's setting, so another widget's control (fusion's chain, next to
    // the factory on the page) rebuilds and recomputes nothing here
    let setting = Memo::new(move |_| ctx.view.with(|s| s.setting));
    run_engine(ctx, setting, engine, canvas, width, reduced);

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
        let (fused, ops) = setting.with(|s| (s.shape.fused, s.shape.ops));
        ctx.report.with(|r| {
            let how = if fused {
                format!(
                    "the pointwise chain of {} is fused, so its data makes one trip in and one trip out",
                    units::count(ops, "op", "ops")
                )
            } else {
                "each pointwise op is its own kernel, so the data goes back to the warehouse after every op"
                    .to_string()
            };
            format!(
                "Animated factory picture of one step ({}; {how}). {}",
                units::count(r.kernel_count, "kernel launch", "kernel launches"),
                summary.get()
            )
        })
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
            aria-label=aria data-frame="0" data-running="0"></canvas>
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
        {double_the_factory(ctx, setting)}
    }
}

/// The engine follows the page: attached once the canvas is in the DOM, its
/// plan rebuilt on every change of the explorer's setting or the layout (a
/// redraw, or the running loop picks it up).
fn run_engine(
    ctx: Ctx,
    setting: Memo<Setting>,
    engine: Rc<Engine>,
    canvas: NodeRef<Canvas>,
    width: chart::CssWidth,
    reduced: RwSignal<bool>,
) {
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
    // Rebuild the plan on every setting or layout change; redraw (or let the
    // loop pick it up).
    {
        let engine = engine.clone();
        Effect::new(move |_| {
            let w = width.get();
            let plan = setting.with(|s| ctx.report.with(|r| Storyboard::build(r, s)));
            {
                let mut a = engine.anim.borrow_mut();
                a.plan = Some(plan);
                a.css_w = w;
                a.dirty = true;
            }
            engine.poke();
        });
    }
}

/// "Double the factory" (and halve it back), with what it did or would do.
fn double_the_factory(ctx: Ctx, setting: Memo<Setting>) -> impl IntoView {
    let last = RwSignal::new(None::<Doubling>);
    let at_max = Memo::new(move |_| setting.with(|s| s.flops >= limits::FLOPS.1));
    let at_min = Memo::new(move |_| setting.with(|s| s.flops <= limits::FLOPS.0));
    let preview = Memo::new(move |_| {
        setting.with(|s| {
            let t = doubled_setting(s);
            let after = State::report_of(&t);
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
        if after.setting.flops <= before.setting.flops {
            return;
        }
        let (wall_before, shares_before) = ctx.report.with_untracked(|r| (r.wall_time_s, r.shares));
        let wall_after = after.report().wall_time_s;
        last.set(Some(Doubling {
            after: after.clone(),
            flops_before: before.setting.flops,
            wall_before,
            wall_after,
            shares_before,
        }));
        ctx.state.set(after);
    };
    let halve = move |_| {
        ctx.state
            .update(|s| s.setting.flops = (s.setting.flops / 2.0).max(limits::FLOPS.0));
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
                let went = match remedies::step_change(d.wall_before, d.wall_after) {
                    Some((a, b, faster)) => format!("went from {a} to {b}, {faster}"),
                    None => format!("stayed at {}, no faster", units::si(d.wall_before, "s")),
                };
                format!(
                    "You doubled the factory from {} to {}: the step {went} — {}",
                    units::si(d.flops_before, "FLOP/s"),
                    units::si(d.after.setting.flops, "FLOP/s"),
                    remedies::why_more_flops(d.shares_before, sp)
                )
            }
            None if at_max.get() => format!(
                "The factory is already at the largest size the model allows ({}).",
                units::si(limits::FLOPS.1, "FLOP/s")
            ),
            None => {
                let (f2, (w1, _), w2) = preview.get();
                match remedies::step_change(w1, w2) {
                    Some((a, b, faster)) => format!(
                        "Doubling the factory to {} would take the step from {a} to {b} ({faster}).",
                        units::si(f2, "FLOP/s")
                    ),
                    None => format!(
                        "Doubling the factory to {} would leave the step at {} (no faster).",
                        units::si(f2, "FLOP/s"),
                        units::si(w1, "s")
                    ),
                }
            }
        }
    };
    view! {
        <div class="factory-actions">
            <button id="factory-double" class="factory-btn" on:click=double
                disabled=move || at_max.get()>"Double the factory"</button>
            <button id="factory-halve" class="factory-btn secondary" on:click=halve
                disabled=move || at_min.get()>"Halve it back"</button>
        </div>
        <p id="factory-caption" class="factory-caption" aria-live="polite">{caption}</p>
    }
}
