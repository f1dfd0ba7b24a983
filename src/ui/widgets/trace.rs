//! Widget `trace`, the trace widget's stand-in on the page. The widget ("Diagnose
//! your own run", `ui/apps/trace/`) is its own small Leptos app with its own .wasm
//! (`src/bin/brrr-trace-ui.rs`): only some visitors use it, so the page's first
//! load does not carry it. When the widget first comes on screen this component
//! imports that module (an ES module beside index.html), instantiates its .wasm
//! and calls its `mount` on an empty element; until then it shows a status line,
//! and if the module cannot be fetched or compiled it says so (the widget's
//! `data-trace-state="error"`) and the rest of the page is untouched. The page's
//! theme is passed on at mount and on every change (`set_dark`).

use crate::ui::kit::on_demand::{self, call};
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

/// The module's glue and .wasm (Trunk's `data-type="worker"` names: unhashed).
const JS: &str = "brrr-trace-ui.js";
const WASM: &str = "brrr-trace-ui_bg.wasm";

/// Mounts the widget into `el`, on the page's theme.
fn mount(module: &JsValue, _id: &str, el: web_sys::HtmlElement, ctx: Ctx) -> Result<(), String> {
    call(
        module,
        "mount",
        &[el.into(), ctx.dark.get_untracked().into()],
    )
    .map(|_| ())
}

#[component]
pub fn TraceHost(ctx: Ctx) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    let (stage, _) = on_demand::when_on_screen(ctx, host, JS, WASM, (mount, "trace"));
    let stand_in = move || {
        let (state, message) = stage.with(|s| s.stand_in("The trace analyser"))?;
        Some(view! {
            <div class="trace" data-trace-state=state>
                <p class="trace-status" data-trace-message role="status" aria-live="polite">{message}</p>
            </div>
        })
    };
    view! {
        {stand_in}
        <div class="trace-app" node_ref=host></div>
    }
}
