//! The Leptos shell (wasm32 only). One file per widget; `chart` is the one shared
//! plotters helper. Components read the shared [`Ctx`] and never compute physics:
//! they call `model` through `state`.

mod advice;
mod backend;
mod bert;
mod calculator;
mod chart;
mod compare;
mod controls;
mod diagnosis;
mod dit;
mod download;
mod factory;
mod frame;
mod fusion;
mod generations;
mod hardware_table;
mod help;
mod lab;
mod lab_datasheet;
mod lab_host;
mod lab_view;
mod later;
mod llm;
mod llm_measured;
mod microbench;
mod notices;
mod offline;
mod on_demand;
mod overhead;
mod palette;
mod panic;
mod plot;
mod readouts;
mod remedies;
mod roofline;
mod scaling;
mod share;
mod storage;
mod store;
mod tensor_cores;
mod theme;
mod trace;
mod trace_charts;
mod trace_host;
mod trace_row;
mod widgets;

use crate::model::Report;
use crate::state::page::Knobs;
use crate::state::url as state_url;
use crate::state::State;
use leptos::prelude::*;

/// The renderer must be vendor/tachys (the registry's tachys with
/// vendor/tachys.patch, built by scripts/vendor-tachys.sh): only that copy has this
/// mark, so a build that resolves the registry's tachys instead (a Leptos moved
/// to a newer tachys, where cargo only warns "patch not used") fails here rather
/// than losing the fix in silence. vendor/PATCHED.md says how to drop the patch.
const _: &str = leptos::tachys::BRRR_PATCHED;

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

    /// A widget's one model call, on the live path like [`Ctx::live`]: `f`'s
    /// flag says whether to compute what is only drawn too (sweeps, sentences,
    /// tables): true while the widget is on (or near) the screen and for the
    /// first value, false off-screen, where [`Ctx::held`] keeps drawing the last
    /// whole value, so a slider moved elsewhere pays only for the readouts.
    pub fn live_drawn<T>(self, f: impl Fn(&State, bool) -> T + Send + Sync + 'static) -> Memo<T>
    where
        T: PartialEq + Send + Sync + 'static,
    {
        let (state, on) = (self.state, self.on_screen);
        Memo::new(move |prev: Option<&T>| {
            // read first, so the memo follows the widget on and off the screen
            let drawn = on.get() || prev.is_none();
            state.with(|s| f(s, drawn))
        })
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

/// Starts the app. The full page's text is already in `index.html` (it paints
/// before the wasm loads: the loader in `Trunk.toml`, `pattern_script`, fetches
/// this module only after the static page's first frame); the app mounts each
/// interactive part into its `data-slot` placeholder there: everything up to the
/// explorer's chart at once (the first screen), then one part per task
/// ([`later`]: the explorer's controls and breakdown, then each later slot), so
/// no single long task or layout blocks the main thread, and sets
/// `data-ready="1"` once all are built. An embed (`?embed=ID`) replaces the
/// page's content with the one widget.
/// The trace widget's own app (`src/bin/brrr-trace-ui.rs`): mounts it into `el`.
pub fn mount_trace(el: web_sys::HtmlElement, dark: bool) {
    trace::mount(el, dark);
}

/// The page's theme changed (the trace widget's app follows it).
pub fn trace_dark(on: bool) {
    trace::set_dark(on);
}

/// The lab's own app (`src/bin/brrr-lab-ui.rs`): mounts it into `el` with the
/// host's options (`lab_host.rs`).
pub fn mount_lab(el: web_sys::HtmlElement, opts: &wasm_bindgen::JsValue) {
    lab::mount(el, opts);
}

/// The page's theme changed (the lab's app follows it).
pub fn lab_dark(on: bool) {
    lab::set_dark(on);
}

/// The state the page draws changed (a URL query; the lab's app follows it).
pub fn lab_view(query: &str) {
    lab::set_view(query);
}

pub fn start() {
    panic::install();
    // Everything the page starts from, read now: the URL is rewritten from the
    // state once the app runs. Its test hook `?debug_panic=1` panics once the page
    // is built (the panic banner's test).
    let start = store::initial();
    let debug_panic = start.knobs.debug_panic;
    // Effects made below need Leptos's executor (mount_to would start it later).
    let _ = any_spawner::Executor::init_wasm_bindgen();
    // The app's root owner: it lives as long as the page.
    let owner = Owner::new();
    owner.set();
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
    let notices = start.notices;
    if let Some(id) = start.embed {
        // the static essay is not part of an embed
        if let Some(body) = document().body() {
            body.set_inner_html("");
        }
        leptos::mount::mount_to_body(move || view! { <Embed ctx=ctx id=id notices=notices/> });
        // after any part the widget left for later (the explorer's)
        later::when_done(move || started(debug_panic));
    } else {
        let mut rest = slots();
        let mut notices = Some(notices);
        // the first screen, in this task: the slots up to the explorer
        let first = rest
            .iter()
            .position(|(name, _)| name == "roofline-explorer")
            .map_or(0, |i| i + 1);
        for (name, el) in rest.drain(..first) {
            mount_slot(ctx, &name, el, &mut notices);
        }
        // the rest, a part per task (`later`), then `started`
        for (name, el) in rest {
            let owner = owner.clone();
            // only the notices' own slot takes them (`mount_slot`)
            let mut notices = notices.take_if(|_| name == "notices");
            later::queue(move || owner.with(|| mount_slot(ctx, &name, el, &mut notices)));
        }
        later::when_done(move || started(debug_panic));
    }
    std::mem::forget(owner);
}

/// After everything is mounted: the readiness flag, the hash scroll, offline.
fn started(debug_panic: bool) {
    if let Some(el) = document().document_element() {
        let _ = el.set_attribute("data-ready", "1");
    }
    // After the next frame's layout every widget has a real size, which CSS
    // remembers for it while it is skipped off screen (static/style.css,
    // `content-visibility`).
    later::after_frame(|| {
        if let Some(el) = document().document_element() {
            let _ = el.set_attribute("data-laid-out", "");
        }
    });
    scroll_to_hash();
    offline::register();
    if debug_panic {
        panic!("debug_panic=1 was requested in the URL");
    }
}

/// The `data-slot` placeholders of `index.html`, in document order.
fn slots() -> Vec<(String, web_sys::HtmlElement)> {
    use wasm_bindgen::JsCast;
    let mut out = Vec::new();
    if let Ok(list) = document().query_selector_all("[data-slot]") {
        for i in 0..list.length() {
            let Some(el) = list
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
            else {
                continue;
            };
            if let Some(name) = el.get_attribute("data-slot") {
                out.push((name, el));
            }
        }
    }
    out
}

/// Mounts one slot's part: "theme", "notices", "help" or a widget id (a name the
/// app does not know leaves its slot empty).
fn mount_slot(
    ctx: Ctx,
    name: &str,
    el: web_sys::HtmlElement,
    notices: &mut Option<Vec<state_url::Notice>>,
) {
    use leptos::mount::mount_to;
    // a user-timing measure per part ("brrr:mount:NAME"), read by the benchmark
    let perf = window().performance();
    let start = format!("brrr:mount:{name}:start");
    if let Some(p) = &perf {
        let _ = p.mark(&start);
    }
    match name {
        "theme" => mount_to(el, move || view! { <theme::ThemeToggle ctx=ctx/> }).forget(),
        "notices" => {
            let n = notices.take().unwrap_or_default();
            mount_to(el, move || view! { <notices::UrlNotices notices=n/> }).forget()
        }
        "help" => mount_to(el, move || view! { <help::Help ctx=ctx/> }).forget(),
        id => {
            if let Some(def) = widgets::widget(id) {
                let id = def.id;
                mount_to(el, move || widgets::framed(ctx, id)).forget();
            }
        }
    }
    if let Some(p) = &perf {
        let _ = p.measure_with_str(&format!("brrr:mount:{name}"), &start);
    }
}

/// The widgets are built after load, so the browser's own jump to `#widget-id`
/// found nothing; do it now that they exist.
fn scroll_to_hash() {
    let hash = window().location().hash().unwrap_or_default();
    let id = hash.trim_start_matches('#');
    if !id.is_empty() {
        if let Some(el) = document().get_element_by_id(id) {
            el.scroll_into_view();
        }
    }
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

/// The roofline explorer: controls, chart, diagnosis, key numbers. The chart is
/// built with the first screen; the controls (two groups), the diagnosis and the
/// readouts each in a task after it ([`later::Later`]): one long task split in five.
/// Three panels placed by CSS grid areas: controls beside the chart and the
/// breakdown on wide screens; on narrow ones the chart comes first and stays
/// pinned to the top of the viewport while the controls scroll under it, so a
/// slider and the chart it moves are on screen together.
#[component]
fn Explorer(ctx: Ctx) -> impl IntoView {
    view! {
        <div class="explorer">
            <section class="panel controls" aria-label="Hardware and workload">
                <controls::Controls ctx=ctx/>
            </section>
            <section class="panel figure explorer-chart" aria-label="Roofline">
                // on phones, the pinned chart's one-line answer (hidden on wide
                // screens, where the diagnosis sits beside the chart)
                <p class="explorer-headline">{move || ctx.report.with(|r| format!(
                    "The step is {}: {} per step",
                    r.regime.label(),
                    crate::model::units::si(r.wall_time_s, "s")
                ))}</p>
                <roofline::Roofline ctx=ctx/>
            </section>
            <section class="panel figure explorer-details" aria-label="Time breakdown">
                <later::Later><div id="diagnosis"><diagnosis::Diagnosis ctx=ctx/></div></later::Later>
                <later::Later><readouts::Readouts ctx=ctx/></later::Later>
            </section>
        </div>
    }
}
