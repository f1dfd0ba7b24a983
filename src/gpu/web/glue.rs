//! JS glue for the lab's WebGPU driver: the clock, yielding to the page, error
//! scopes (awaiting promises, errors as text and test knobs: `crate::js`).

use crate::js::{js_err, wait};
use js_sys::Reflect;
use wasm_bindgen::JsValue;
use web_sys::GpuDevice;

/// A string property of a JS object (empty when absent or not a string).
pub(super) fn get_str(o: &JsValue, k: &str) -> String {
    Reflect::get(o, &k.into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// `performance.now()` in seconds (0 where there is no performance clock).
pub fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now() / 1000.0)
        .unwrap_or(0.0)
}

/// Tasks to wait, after a GPU error, for `device.lost` to say the error was a loss
/// (zero-delay timeouts: browsers clamp nested ones to ~4 ms, so at most ~100 ms).
pub(super) const LOSS_GRACE_TASKS: u32 = 25;

/// Let the page breathe: resolve on the next macrotask.
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
