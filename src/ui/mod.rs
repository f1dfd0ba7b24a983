//! The Leptos shell (wasm32 only). One file per widget; `chart` is the one shared
//! plotters helper. Components read the shared [`Ctx`] and never compute physics:
//! they call `model` through `state`.

mod chart;
mod controls;
mod help;
mod notices;
mod panic;
mod readouts;
mod roofline;
mod store;

use crate::model::Report;
use crate::state::State;
use leptos::prelude::*;

/// Shared, reactive app state. `Copy`, so components take it by value.
#[derive(Clone, Copy)]
pub struct Ctx {
    pub state: RwSignal<State>,
    /// The model's answer for `state`; recomputed once per change.
    pub report: Memo<Report>,
}

pub fn start() {
    panic::install();
    leptos::mount::mount_to_body(App);
    if let Some(el) = document().document_element() {
        let _ = el.set_attribute("data-ready", "1");
    }
    // Test hook for the panic banner (tests/e2e): `?debug_panic=1` panics after mount.
    if window()
        .location()
        .search()
        .unwrap_or_default()
        .contains("debug_panic=1")
    {
        panic!("debug_panic=1 was requested in the URL");
    }
}

#[component]
fn App() -> impl IntoView {
    let (initial, url_notices) = store::initial_state();
    let state = RwSignal::new(initial);
    let report = Memo::new(move |_| state.with(State::report));
    store::sync_url(state);
    let ctx = Ctx { state, report };

    view! {
        <header class="top">
            <h1>"brrr"</h1>
            <p class="tagline">
                "Why is my GPU slow? Every step spends its time computing, moving bytes, or waiting for the CPU. "
                "Move the sliders and watch which one wins."
            </p>
        </header>
        <notices::UrlNotices notices=url_notices/>
        <main class="explorer" id="roofline-explorer">
            <section class="panel controls" aria-label="Hardware and workload">
                <controls::Controls ctx=ctx/>
            </section>
            <section class="panel figure" aria-label="Roofline and time breakdown">
                <roofline::Roofline ctx=ctx/>
                <readouts::Readouts ctx=ctx/>
            </section>
        </main>
        <help::Help/>
        <footer class="foot">
            <p>
                "After Horace He, “Making Deep Learning Go Brrrr From First Principles” (2022). "
                "Roofline model: Williams, Waterman & Patterson, CACM 2009. "
                "Everything runs in your browser; nothing is sent anywhere."
            </p>
        </footer>
    }
}
