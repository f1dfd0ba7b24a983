//! Widget `lab`, the lab's stand-in on the page. "Measure my GPU" (`ui/apps/lab/`
//! and the WebGPU driver `gpu::web`) is its own small Leptos
//! app with its own .wasm (`src/bin/brrr-lab-ui.rs`): few visitors use it, so the
//! page's first load does not carry it. When the widget first comes on screen this
//! component imports that module and calls its `mount`; until then it shows a
//! status line, and if the module cannot be fetched or compiled it says so
//! (`data-lab-load="error"`) and the rest of the page is untouched.
//!
//! The interface is narrow and carries the state as the URL codec's query
//! (`state::url`, a stable contract that round-trips exactly):
//! - at mount, `mount(element, options)`, the options an object: `dark` (the
//!   theme), `small` and `wall` (the test knobs `lab_size=small`,
//!   `lab_timer=wall`, read from the URL before the app rewrote it), `view` (the
//!   state the widget draws, `ctx.view`, for its chart's preset roofline), and two
//!   callbacks: `live()` → the shared state now, and `apply(query)`, which sets
//!   the shared state ("Use my GPU": the module applies its measured ceilings to
//!   `live()`'s state with `gpu::apply` and hands back the result);
//! - afterwards: `set_view(query)` whenever the drawn state changes, `set_dark`
//!   on every theme change.

use crate::state::url;
use crate::ui::kit::on_demand::{self, call};
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

/// The module's glue and .wasm (Trunk's `data-type="worker"` names: unhashed).
const JS: &str = "brrr-lab-ui.js";
const WASM: &str = "brrr-lab-ui_bg.wasm";

/// Mounts the widget into `el` with its options object (`lab::mount` reads it).
fn mount(module: &JsValue, _id: &str, el: web_sys::HtmlElement, ctx: Ctx) -> Result<(), String> {
    let state = ctx.state;
    let live = Closure::<dyn Fn() -> String>::new(move || state.with_untracked(url::encode));
    let apply = Closure::<dyn Fn(String)>::new(move |q: String| state.set(url::decode(&q).0));
    let opts = js_sys::Object::new();
    let fields: [(&str, JsValue); 6] = [
        ("dark", ctx.dark.get_untracked().into()),
        ("small", ctx.knobs.lab_small.into()),
        ("wall", ctx.knobs.lab_wall_clock.into()),
        ("view", ctx.view.with_untracked(url::encode).into()),
        ("live", live.into_js_value()),
        ("apply", apply.into_js_value()),
    ];
    for (k, v) in fields {
        js_sys::Reflect::set(&opts, &k.into(), &v).map_err(crate::js::js_err)?;
    }
    call(module, "mount", &[el.into(), opts.into()]).map(|_| ())
}

#[component]
pub fn LabHost(ctx: Ctx) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    let (stage, module) = on_demand::when_on_screen(ctx, host, JS, WASM, (mount, "lab"));
    on_demand::send_view(ctx, stage, module);
    let stand_in = move || {
        let (state, message) = stage.with(|s| s.stand_in("The GPU lab"))?;
        Some(view! {
            <div class="lab-host" data-lab-load=state>
                <p class="lab-load-status" data-lab-message role="status" aria-live="polite">{message}</p>
            </div>
        })
    };
    view! {
        {stand_in}
        <div class="lab-app" node_ref=host></div>
    }
}
