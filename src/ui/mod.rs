//! The Leptos front end (wasm32 only), in layers, each importing only those below
//! it: [`kit`] (the context, deferred work, on-demand modules, downloads,
//! storage, controls, readouts), [`chart`] (the plotters layer), [`widgets`] (a
//! view per registered widget and the parts they share), then [`shell`] (the
//! page and embed assembly) and [`apps`] (the two separately built apps) on top.
//! Components read the shared [`kit::Ctx`] and never compute physics: they call
//! `model` through `state`. This file only hands the entry points on.

pub mod apps;
pub mod chart;
pub mod kit;
pub mod shell;
pub mod widgets;

/// The renderer must be vendor/tachys (the registry's tachys with
/// vendor/tachys.patch, built by scripts/vendor-tachys.sh): only that copy has this
/// mark, so a build that resolves the registry's tachys instead (a Leptos moved
/// to a newer tachys, where cargo only warns "patch not used") fails here rather
/// than losing the fix in silence. vendor/PATCHED.md says how to drop the patch.
const _: &str = leptos::tachys::BRRR_PATCHED;

/// Starts the app (`src/main.rs`): [`shell::start::start`], in a task of its
/// own. The module's start function runs in the task where V8 finishes
/// compiling and instantiating it (~40 ms at Lighthouse's 4x CPU); the app's
/// start, with its functions compiled on their first call, would make that one
/// task long (a long first task delays the page's first response to input).
pub fn start() {
    leptos::prelude::set_timeout(shell::start::start, std::time::Duration::ZERO);
}

/// The trace widget's own app (`src/bin/brrr-trace-ui.rs`): mounts it into `el`.
pub fn mount_trace(el: web_sys::HtmlElement, dark: bool) {
    apps::trace::mount(el, dark);
}

/// The page's theme changed (the trace widget's app follows it).
pub fn trace_dark(on: bool) {
    apps::trace::set_dark(on);
}

/// The lab's own app (`src/bin/brrr-lab-ui.rs`): mounts it into `el` with the
/// host's options (`widgets/lab.rs`).
pub fn mount_lab(el: web_sys::HtmlElement, opts: &wasm_bindgen::JsValue) {
    apps::lab::mount(el, opts);
}

/// The page's theme changed (the lab's app follows it).
pub fn lab_dark(on: bool) {
    apps::lab::set_dark(on);
}

/// The state the page draws changed (a URL query; the lab's app follows it).
pub fn lab_view(query: &str) {
    apps::lab::set_view(query);
}

/// The widgets loaded on demand (`src/bin/brrr-more-ui.rs`): mounts widget
/// `options.id` into `el` with the host's options (`widgets/more.rs`).
pub fn mount_more(el: web_sys::HtmlElement, opts: &wasm_bindgen::JsValue) {
    apps::more::mount(el, opts);
}

/// The page's theme changed (the on-demand widgets follow it).
pub fn more_dark(on: bool) {
    apps::more::set_dark(on);
}

/// The state the page draws changed (a URL query; the on-demand widgets follow it).
pub fn more_view(query: &str) {
    apps::more::set_view(query);
}
