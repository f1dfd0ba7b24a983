//! Loading a widget's own module on demand (the trace widget's and the lab's
//! stand-ins, `trace_host.rs` and `lab_host.rs`): `import()` of an ES module beside
//! index.html (Trunk's `data-type="worker" data-bindgen-target="web"` build of a
//! `src/bin/*-ui.rs`, unhashed names), instantiating its .wasm, and calling its
//! exports by name. Every failure comes back as text for the stand-in to show.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(inline_js = "export function import_module(u) { return import(u); }")]
extern "C" {
    /// `import(url)`: a snippet module, so the page's CSP ('self') allows it.
    #[wasm_bindgen(catch)]
    fn import_module(url: &str) -> Result<js_sys::Promise, JsValue>;
}

/// `path` against the page's base URL (a snippet's `import` would resolve a
/// relative one against the snippet's own URL).
fn absolute(path: &str) -> Result<String, String> {
    let base = leptos::prelude::document()
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
    let module = JsFuture::from(promise).await.map_err(crate::js::js_err)?;
    let opts = js_sys::Object::new();
    js_sys::Reflect::set(&opts, &"module_or_path".into(), &absolute(wasm)?.into())
        .map_err(crate::js::js_err)?;
    let init = call(&module, "default", &[opts.into()])?;
    JsFuture::from(js_sys::Promise::resolve(&init))
        .await
        .map_err(crate::js::js_err)?;
    Ok(module)
}
