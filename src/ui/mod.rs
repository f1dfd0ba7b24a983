//! The Leptos shell (wasm32 only). One file per widget; `chart` is the one shared
//! plotters helper. Components read the shared [`Ctx`] and never compute physics:
//! they call `model` through `state`.

mod advice;
mod backend;
mod bert;
mod calculator;
mod chart;
mod controls;
mod diagnosis;
mod dit;
mod download;
mod essay;
mod factory;
mod frame;
mod fusion;
mod generations;
mod hardware_table;
mod help;
mod lab;
mod lab_datasheet;
mod lab_view;
mod llm;
mod microbench;
mod notices;
mod offline;
mod overhead;
mod palette;
mod panic;
mod plot;
mod readouts;
mod remedies;
mod roofline;
mod share;
mod storage;
mod store;
mod tensor_cores;
mod theme;
mod widgets;

use crate::model::Report;
use crate::state::page::{Knobs, Start};
use crate::state::url as state_url;
use crate::state::State;
use leptos::prelude::*;

/// Shared, reactive app state. `Copy`, so components take it by value.
///
/// How a widget reads it (ARCHITECTURE.md, "Reactive reads"):
/// - what it only draws: `view` / `report` (held while the widget is off-screen);
/// - what it publishes as a readout (`data-metric`, a live contract read at any
///   time): [`Ctx::live`], computed from `state` on every change, on screen or off;
/// - a value it both publishes and draws: computed once with [`Ctx::live`] and
///   drawn through [`Ctx::held`], never computed a second time from `view`;
/// - `state` itself: written by controls, read untracked by actions.
#[derive(Clone, Copy)]
pub struct Ctx {
    /// The shared state: write here (every control does).
    pub state: RwSignal<State>,
    /// The state to read for display. Inside a widget frame it holds still while the
    /// widget is off-screen (see `frame::gate`), so a slider move only recomputes and
    /// re-renders what a user can see; elsewhere it follows `state` exactly.
    pub view: Memo<State>,
    /// Whether the widget is on (or near) the screen; always true outside a gated
    /// frame. `view`, `report` and [`Ctx::held`] values follow it.
    pub on_screen: Signal<bool>,
    /// The model's answer for `state`; recomputed once per change.
    pub report: Memo<Report>,
    /// Dark theme on (charts pick their palette from it).
    pub dark: RwSignal<bool>,
    /// The URL's test knobs (`state::page::Knobs`).
    pub knobs: Knobs,
}

impl Ctx {
    /// A value of the live path: computed from the shared `state` on every change,
    /// whether the widget is on screen or not. For readouts (`data-metric`) and
    /// anything else a reader may ask for at any time.
    pub fn live<T>(self, f: impl Fn(&State) -> T + Send + Sync + 'static) -> Memo<T>
    where
        T: PartialEq + Send + Sync + 'static,
    {
        let state = self.state;
        Memo::new(move |_| state.with(&f))
    }

    /// What the widget draws of a live value: follows it while the widget is on
    /// screen, holds its last value while off-screen (like `view`), without
    /// computing it again.
    pub fn held<T>(self, live: Memo<T>) -> Memo<T>
    where
        T: Clone + PartialEq + Send + Sync + 'static,
    {
        let on = self.on_screen;
        Memo::new(move |prev: Option<&T>| match prev {
            Some(p) if !on.get() => p.clone(),
            _ => live.get(),
        })
    }
}

pub fn start() {
    panic::install();
    let start = store::initial();
    let debug_panic = start.knobs.debug_panic;
    leptos::mount::mount_to_body(move || view! { <App start=start/> });
    if let Some(el) = document().document_element() {
        let _ = el.set_attribute("data-ready", "1");
    }
    scroll_to_hash();
    offline::register();
    // Test hook for the panic banner (tests/e2e): `?debug_panic=1` panics after mount.
    if debug_panic {
        panic!("debug_panic=1 was requested in the URL");
    }
}

/// The page is built after load, so the browser's own jump to `#widget-id` found
/// nothing; do it now that the widgets exist.
fn scroll_to_hash() {
    let hash = window().location().hash().unwrap_or_default();
    let id = hash.trim_start_matches('#');
    if !id.is_empty() {
        if let Some(el) = document().get_element_by_id(id) {
            el.scroll_into_view();
        }
    }
}

#[component]
fn App(start: Start) -> impl IntoView {
    let state = RwSignal::new(start.state);
    let report = Memo::new(move |_| state.with(State::report));
    let dark = theme::init(start.theme.map(|t| t.is_dark()));
    store::sync_url(state, start.embed, start.theme.map(|_| dark));
    let ctx = Ctx {
        state,
        view: Memo::new(move |_| state.get()),
        on_screen: Signal::stored(true),
        report,
        dark,
        knobs: start.knobs,
    };
    let url_notices = start.notices;

    if let Some(id) = start.embed {
        return view! { <Embed ctx=ctx id=id notices=url_notices/> }.into_any();
    }

    view! {
        <header class="top">
            <h1>"brrr"</h1>
            <p class="tagline">
                "Why is my GPU slow? Every step spends its time computing, moving bytes, or waiting for the CPU. "
                "Move the sliders and watch which one wins."
            </p>
            <theme::ThemeToggle ctx=ctx/>
            <nav class="toc" aria-label="Sections">
                <a href="#intro">"Intro"</a>
                <a href="#compute">"Compute"</a>
                <a href="#bandwidth">"Bandwidth"</a>
                <a href="#overhead-chapter">"Overhead"</a>
                <a href="#conclusion">"Remedies"</a>
                <a href="#measure">"Measure"</a>
                <a href="#beyond">"Beyond"</a>
                <a href="#tools">"Tools"</a>
            </nav>
        </header>
        <main>
            <notices::UrlNotices notices=url_notices/>
            <section id="intro" class="chapter" aria-labelledby="intro-title">
                <h2 id="intro-title" class="sr-only">"Introduction"</h2>
                <p class="lede">
                    "Three things can eat a step's time: the arithmetic itself, moving tensors between GPU "
                    "memory and the cores, and everything else — mostly the CPU deciding what to launch. "
                    "Which one dominates is the regime, and the regime decides which optimisations can "
                    "possibly help. The explorer below is the whole model in one picture; the sections after "
                    "it take it apart, and every slider moves every widget."
                </p>
                {widgets::framed(ctx, "roofline-explorer")}
            </section>
            <essay::Essay ctx=ctx/>
            <help::Help ctx=ctx/>
        </main>
        <footer class="foot">
            <p>
                "After Horace He, “Making Deep Learning Go Brrrr From First Principles” (2022). "
                "Roofline model: Williams, Waterman & Patterson, CACM 2009. "
                "Everything runs in your browser; nothing is sent anywhere."
            </p>
        </footer>
    }
    .into_any()
}

/// Embed mode (`?embed=WIDGET_ID`): one widget, no page chrome, filling the iframe,
/// with a link to the full page at the same state.
#[component]
fn Embed(ctx: Ctx, id: &'static str, notices: Vec<state_url::Notice>) -> impl IntoView {
    if let Some(el) = document().document_element() {
        let _ = el.class_list().add_1("embed");
    }
    let full = move || {
        let q = ctx.state.with(|s| store::query(s, None));
        store::page_url(&q, &format!("#{id}"))
    };
    post_height(id);
    view! {
        <notices::UrlNotices notices=notices/>
        <main class="embed-main">
            // The frame's title is an h3, as on the full page; these give the embedded
            // document its h1 and h2 for screen readers without changing the look.
            <h1 class="sr-only">"brrr"</h1>
            <h2 class="sr-only">"A widget from the brrr essay on GPU performance"</h2>
            {widgets::framed(ctx, id)}
            <p class="embed-foot">
                <a href=full target="_blank" rel="noopener">"Open in brrr ↗"</a>
            </p>
        </main>
    }
}

/// The message an embed posts to the page around it whenever its content height
/// changes (and once it has laid out): `{type: "brrr:height", id, height}`, height
/// in CSS pixels, rounded up. The host page sets its iframe's height from it (the
/// snippet is in README, "Share and embed"). It goes to any origin ("*"): an
/// embed cannot know the course page it sits in, and the message says nothing but
/// the widget's id and its height.
pub const HEIGHT_MESSAGE: &str = "brrr:height";

/// In embed mode inside a frame, post [`HEIGHT_MESSAGE`] to the parent now and
/// whenever the document's height changes (a ResizeObserver on `<html>`, whose
/// height is its content's, whatever the iframe's height). Not framed: nothing.
fn post_height(id: &'static str) {
    use std::cell::Cell;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    let w = window();
    let Ok(Some(parent)) = w.parent() else { return };
    if js_sys::Object::is(&parent, &w) {
        return;
    }
    let Some(root) = document().document_element() else {
        return;
    };
    let last = Cell::new(f64::NAN);
    let observed = root.clone();
    let send = Closure::<dyn FnMut()>::new(move || {
        let h = observed.get_bounding_client_rect().height().ceil();
        if !(h.is_finite() && h > 0.0) || h == last.get() {
            return;
        }
        last.set(h);
        let msg = js_sys::Object::new();
        let set = |k: &str, v: JsValue| js_sys::Reflect::set(&msg, &k.into(), &v).is_ok();
        if set("type", HEIGHT_MESSAGE.into()) && set("id", id.into()) && set("height", h.into()) {
            let _ = parent.post_message(&msg, "*");
        }
    });
    // the observer reports once as soon as it observes (after the first layout),
    // then on every change of the height; it lives as long as the page
    if let Ok(obs) = web_sys::ResizeObserver::new(send.as_ref().unchecked_ref()) {
        obs.observe(&root);
        send.forget();
    }
}

/// The roofline explorer: controls, chart, diagnosis, key numbers. Three panels
/// placed by CSS grid areas: controls beside the chart and the breakdown on wide
/// screens; on narrow ones the chart comes first and stays pinned to the top of
/// the viewport while the controls scroll under it, so a slider and the chart it
/// moves are on screen together.
#[component]
fn Explorer(ctx: Ctx) -> impl IntoView {
    view! {
        <div class="explorer">
            <section class="panel controls" aria-label="Hardware and workload">
                <controls::Controls ctx=ctx/>
            </section>
            <section class="panel figure explorer-chart" aria-label="Roofline">
                <roofline::Roofline ctx=ctx/>
            </section>
            <section class="panel figure explorer-details" aria-label="Time breakdown">
                <div id="diagnosis"><diagnosis::Diagnosis ctx=ctx/></div>
                <readouts::Readouts ctx=ctx/>
            </section>
        </div>
    }
}
