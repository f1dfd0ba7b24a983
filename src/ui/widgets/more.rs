//! The stand-in on the page of the widgets loaded on demand (those whose line in
//! `state::widgets::widget_list!` says `on_demand`; their app is `ui/apps/more/`, its own .wasm `src/bin/brrr-more-ui.rs`): when
//! the widget first comes on screen this component imports that module and calls
//! its `mount(element, options)`; until then it shows a status line, and if the
//! module cannot be fetched or compiled it says so (`data-more-load="error"`) and
//! the rest of the page is untouched.
//!
//! The options: `id` (which widget), `dark`, `view` (the state the page draws,
//! as the URL codec's query) and `apply(query)`, which sets the page's state
//! (the widget's own sliders and selects). Afterwards `set_view(query)` whenever
//! the drawn state changes; the theme goes to `set_dark` (`on_demand`).

use crate::state::{registry, url};
use crate::ui::kit::on_demand::{self, call};
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

/// The module's glue and .wasm (Trunk's `data-type="worker"` names: unhashed).
const JS: &str = "brrr-more-ui.js";
const WASM: &str = "brrr-more-ui_bg.wasm";

/// Mounts widget `id` into `el` with its options object (`more::mount` reads it).
fn mount_id(module: &JsValue, id: &str, el: web_sys::HtmlElement, ctx: Ctx) -> Result<(), String> {
    let state = ctx.state;
    let apply = Closure::<dyn Fn(String)>::new(move |q: String| {
        let next = url::decode(&q).0;
        match state.with_untracked(|s| (*s == next, registry::alike_but_on_demand(s, &next))) {
            (true, _) => {}
            // the module's own keys: no widget of the page reads them
            (false, true) => on_demand::set_unread(state, next),
            (false, false) => state.set(next),
        }
    });
    let opts = js_sys::Object::new();
    let fields: [(&str, JsValue); 4] = [
        ("id", id.into()),
        ("dark", ctx.dark.get_untracked().into()),
        ("view", ctx.view.with_untracked(url::encode).into()),
        ("apply", apply.into_js_value()),
    ];
    for (k, v) in fields {
        js_sys::Reflect::set(&opts, &k.into(), &v).map_err(crate::js::js_err)?;
    }
    call(module, "mount", &[el.into(), opts.into()]).map(|_| ())
}

/// The stand-in for widget `id`, named `what` in its status line.
#[component]
pub fn MoreHost(ctx: Ctx, id: &'static str, what: &'static str) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    let (stage, module) = on_demand::when_on_screen(ctx, host, JS, WASM, (mount_id, id));
    on_demand::send_view(ctx, stage, module);
    let stand_in = move || {
        let (state, message) = stage.with(|s| s.stand_in(what))?;
        Some(view! {
            <div class="more-host" data-more-load=state>
                <p class="more-load-status" data-more-message role="status" aria-live="polite">{message}</p>
            </div>
        })
    };
    view! {
        {stand_in}
        <div class="more-app" node_ref=host></div>
    }
}
