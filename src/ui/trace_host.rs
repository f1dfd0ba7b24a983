//! The trace widget's stand-in on the page. The widget ("Diagnose your own run",
//! `trace.rs`) is its own small Leptos app with its own .wasm
//! (`src/bin/brrr-trace-ui.rs`): only some visitors use it, so the page's first
//! load does not carry it. When the widget first comes on screen this component
//! imports that module (an ES module beside index.html), instantiates its .wasm
//! and calls its `mount` on an empty element; until then it shows a status line,
//! and if the module cannot be fetched or compiled it says so (the widget's
//! `data-trace-state="error"`) and the rest of the page is untouched. The page's
//! theme is passed on at mount and on every change (`set_dark`).

use super::on_demand::{self, call};
use super::Ctx;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

/// The module's glue and .wasm (Trunk's `data-type="worker"` names: unhashed).
const JS: &str = "brrr-trace-ui.js";
const WASM: &str = "brrr-trace-ui_bg.wasm";

#[derive(Clone, PartialEq)]
enum Stage {
    Waiting,
    Loading,
    Ready,
    Failed(String),
}

/// Imports the module, instantiates its .wasm and mounts the widget into `el`.
async fn load(el: web_sys::HtmlElement, dark: bool) -> Result<JsValue, String> {
    let module = on_demand::load(JS, WASM).await?;
    call(&module, "mount", &[el.into(), dark.into()])?;
    Ok(module)
}

#[component]
pub fn TraceHost(ctx: Ctx) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    let stage = RwSignal::new(Stage::Waiting);
    let module = StoredValue::new_local(None::<JsValue>);
    Effect::new(move |_| {
        if !ctx.on_screen.get() || stage.get_untracked() != Stage::Waiting {
            return;
        }
        let Some(el) = host.get_untracked() else {
            return;
        };
        stage.set(Stage::Loading);
        let el: web_sys::HtmlElement = el.into();
        leptos::task::spawn_local(async move {
            match load(el, ctx.dark.get_untracked()).await {
                Ok(m) => {
                    module.set_value(Some(m));
                    stage.set(Stage::Ready);
                }
                Err(e) => stage.set(Stage::Failed(e)),
            }
        });
    });
    Effect::new(move |_| {
        let dark = ctx.dark.get();
        module.with_value(|m| {
            if let Some(m) = m {
                let _ = call(m, "set_dark", &[dark.into()]);
            }
        });
    });
    let stand_in = move || {
        let (state, message) = match stage.get() {
            Stage::Ready => return None,
            Stage::Failed(e) => (
                "error",
                format!("The trace analyser could not be loaded: {e}. The rest of the page is unaffected; reload to try again."),
            ),
            Stage::Waiting | Stage::Loading => (
                "loading",
                "The trace analyser loads when this widget comes into view…".to_string(),
            ),
        };
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
