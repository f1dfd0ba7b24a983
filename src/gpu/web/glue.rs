//! JS glue for the lab's WebGPU driver: exceptions and rejections as text, awaiting
//! promises, yielding to the page, error scopes and test knobs.

use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::GpuDevice;

/// A JS exception or rejection as text.
pub fn js_err(e: JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    let msg = Reflect::get(&e, &"message".into())
        .ok()
        .and_then(|m| m.as_string());
    let name = Reflect::get(&e, &"name".into())
        .ok()
        .and_then(|m| m.as_string());
    match (name, msg) {
        (Some(n), Some(m)) if !m.is_empty() => format!("{n}: {m}"),
        (_, Some(m)) if !m.is_empty() => m,
        (Some(n), _) => n,
        _ => "unknown JavaScript error".into(),
    }
}

pub(super) fn get_str(o: &JsValue, k: &str) -> String {
    Reflect::get(o, &k.into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

pub fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now() / 1000.0)
        .unwrap_or(0.0)
}

/// Await a promise as a plain `JsValue` (one copy of the future machinery for
/// every promise type keeps the .wasm small).
pub async fn wait(p: impl AsRef<JsValue>) -> Result<JsValue, JsValue> {
    JsFuture::from(p.as_ref().clone().unchecked_into::<js_sys::Promise>()).await
}

/// Let the page breathe: resolve on the next macrotask.
/// Tasks to wait, after a GPU error, for `device.lost` to say the error was a loss
/// (zero-delay timeouts: browsers clamp nested ones to ~4 ms, so at most ~100 ms).
pub(super) const LOSS_GRACE_TASKS: u32 = 25;

pub async fn yield_now() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        } else {
            let _ = resolve.call0(&JsValue::NULL);
        }
    });
    let _ = wait(p).await;
}

/// Pop an error scope: `Err(message)` if it caught an error.
pub(super) async fn scope_error(device: &GpuDevice) -> Result<(), String> {
    match wait(device.pop_error_scope()).await {
        Ok(e) if e.is_null() || e.is_undefined() => Ok(()),
        Ok(e) => Err(get_str(&e, "message")),
        Err(e) => Err(js_err(e)),
    }
}

/// A test knob: `window[name] === true`.
pub(super) fn knob(name: &str) -> bool {
    web_sys::window()
        .and_then(|w| Reflect::get(&w, &name.into()).ok())
        .and_then(|v| v.as_bool())
        == Some(true)
}
