//! Loading a widget's own module on demand (the trace widget's and the lab's
//! stand-ins, `widgets/trace.rs` and `widgets/lab.rs`): `import()` of an ES module beside
//! index.html (Trunk's `data-type="worker" data-bindgen-target="web"` build of a
//! `src/bin/*-ui.rs`, unhashed names), instantiating its .wasm, and calling its
//! exports by name. Every failure comes back as text for the stand-in to show.

use crate::state::State;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(inline_js = "export function import_module(u) { return import(u); }")]
extern "C" {
    /// `import(url)`: a snippet module, so the page's CSP ('self') allows it.
    #[wasm_bindgen(catch)]
    fn import_module(url: &str) -> Result<js_sys::Promise, JsValue>;
}

/// `path` against the page's base URL (a snippet's `import` would resolve a
/// relative one against the snippet's own URL).
fn absolute(path: &str) -> Result<String, String> {
    let base = document()
        .base_uri()
        .ok()
        .flatten()
        .ok_or("the page has no base URL")?;
    web_sys::Url::new_with_base(path, &base)
        .map(|u| u.href())
        .map_err(crate::js::js_err)
}

/// Calls the module's export `name` with `args`.
pub fn call(module: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let f: js_sys::Function = js_sys::Reflect::get(module, &name.into())
        .map_err(crate::js::js_err)?
        .dyn_into()
        .map_err(|_| format!("the module has no function {name}"))?;
    let args: js_sys::Array = args.iter().collect();
    f.apply(&JsValue::NULL, &args).map_err(crate::js::js_err)
}

/// Imports the module `js` and instantiates its .wasm `wasm` (both relative to
/// the page); the module, ready for [`call`].
pub async fn load(js: &str, wasm: &str) -> Result<JsValue, String> {
    let promise = import_module(&absolute(js)?).map_err(crate::js::js_err)?;
    let module = crate::js::wait(promise).await.map_err(crate::js::js_err)?;
    let opts = js_sys::Object::new();
    js_sys::Reflect::set(&opts, &"module_or_path".into(), &absolute(wasm)?.into())
        .map_err(crate::js::js_err)?;
    let init = call(&module, "default", &[opts.into()])?;
    crate::js::wait(js_sys::Promise::resolve(&init))
        .await
        .map_err(crate::js::js_err)?;
    Ok(module)
}

/// Where a widget's module is.
#[derive(Clone, PartialEq)]
pub enum Stage {
    Waiting,
    Loading,
    Ready,
    Failed(String),
}

impl Stage {
    /// The stand-in's state and line until the module runs (`None` once it does);
    /// `what` names the widget's app ("The trace analyser").
    pub fn stand_in(&self, what: &str) -> Option<(&'static str, String)> {
        match self {
            Stage::Ready => None,
            Stage::Failed(e) => Some((
                "error",
                format!("{what} could not be loaded: {e}. The rest of the page is unaffected; reload to try again."),
            )),
            Stage::Waiting | Stage::Loading => Some((
                "loading",
                format!("{what} loads when this widget comes into view…"),
            )),
        }
    }
}

/// What mounts a loaded module's widget: `(module, widget id, host element, ctx)`.
pub type Mount = fn(&JsValue, &str, web_sys::HtmlElement, super::ctx::Ctx) -> Result<(), String>;

/// A widget's module, loaded when the widget first comes on screen: `js` and
/// `wasm` are imported and instantiated, then `mount.0(module, mount.1, host
/// element)` mounts widget `mount.1`; the page's theme goes to its `set_dark` on every change. Returns the
/// stage (for the stand-in) and the module once loaded.
pub fn when_on_screen(
    ctx: super::ctx::Ctx,
    host: NodeRef<leptos::html::Div>,
    js: &'static str,
    wasm: &'static str,
    mount: (Mount, &'static str),
) -> (RwSignal<Stage>, StoredValue<Option<JsValue>, LocalStorage>) {
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
            let loaded = async {
                let m = load(js, wasm).await?;
                (mount.0)(&m, mount.1, el, ctx)?;
                Ok::<_, String>(m)
            };
            match loaded.await {
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
    (stage, module)
}

/// Once the module runs, the state the page draws (`ctx.view`, held while the
/// widget is off-screen) goes to its `set_view` as a URL query, now and on every
/// change.
pub fn send_view(
    ctx: super::ctx::Ctx,
    stage: RwSignal<Stage>,
    module: StoredValue<Option<JsValue>, LocalStorage>,
) {
    Effect::new(move |_| {
        let view = ctx.view.with(crate::state::url::encode);
        if stage.get() != Stage::Ready {
            return;
        }
        module.with_value(|m| {
            if let Some(m) = m {
                let _ = call(m, "set_view", &[view.into()]);
            }
        });
    });
}

thread_local! {
    /// Notified where the state changed without telling its readers
    /// ([`set_unread`]): what encodes the whole state (the address, the embed's
    /// link) tracks it beside the state.
    static UNREAD: ArcTrigger = ArcTrigger::new();
}

/// Sets the page's state to `next`, which differs from it only in parameters
/// no reader of the page's app reads (the on-demand module's own,
/// `state::registry::alike_but_on_demand`): its widgets, controls and memos are
/// not woken (a slider of the module would otherwise re-run every control of
/// the page per input); the address and the embed's link follow it.
pub fn set_unread(state: RwSignal<State>, next: State) {
    state.update_untracked(|s| *s = next);
    UNREAD.with(ArcTrigger::notify);
}

/// Track [`set_unread`]'s changes (beside the state's own) in what encodes the
/// whole state.
pub fn track_unread() {
    UNREAD.with(ArcTrigger::track);
}
