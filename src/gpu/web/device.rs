//! The adapter (and what the page shows of it), its limits, the device, and the
//! [`Session`] that owns what a run creates on the GPU and on `window`.

use super::glue::get_str;
use crate::gpu::plan::Limits;
use crate::gpu::results::AdapterInfo;
use crate::js::{js_err, wait};
use js_sys::{JsString, Object, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Gpu, GpuAdapter, GpuDevice, GpuDeviceDescriptor};

fn gpu() -> Result<Gpu, String> {
    let nav = web_sys::window().ok_or("no window")?.navigator();
    let g = Reflect::get(&nav, &"gpu".into()).map_err(js_err)?;
    if g.is_undefined() || g.is_null() {
        return Err("This browser does not offer WebGPU (navigator.gpu is missing): use a recent \
                    Chrome, Edge or Safari, or Firefox with WebGPU enabled, over HTTPS or localhost."
            .into());
    }
    Ok(g.unchecked_into())
}

pub(super) async fn adapter() -> Result<GpuAdapter, String> {
    let opts = web_sys::GpuRequestAdapterOptions::new();
    opts.set_power_preference(web_sys::GpuPowerPreference::HighPerformance);
    let a = wait(gpu()?.request_adapter_with_options(&opts))
        .await
        .map_err(|e| format!("Asking for a WebGPU adapter failed: {}", js_err(e)))?;
    if a.is_null() || a.is_undefined() {
        return Err(
            "WebGPU is present but offered no adapter (GPU blocklisted, disabled, or no GPU)."
                .into(),
        );
    }
    Ok(a.unchecked_into())
}

pub(super) fn limits_of(a: &GpuAdapter) -> Limits {
    let l = a.limits();
    Limits {
        max_storage_binding: l.max_storage_buffer_binding_size(),
        max_buffer: l.max_buffer_size(),
        max_workgroups_per_dim: l.max_compute_workgroups_per_dimension(),
        max_invocations: l.max_compute_invocations_per_workgroup(),
        max_workgroup_size_x: l.max_compute_workgroup_size_x(),
    }
}

pub(super) fn info_of(a: &GpuAdapter) -> AdapterInfo {
    // `adapter.info` is recent; read it defensively so older browsers show blanks.
    let info = Reflect::get(a, &"info".into()).unwrap_or(JsValue::UNDEFINED);
    let fallback = |o: &JsValue| {
        Reflect::get(o, &"isFallbackAdapter".into())
            .ok()
            .and_then(|v| v.as_bool())
    };
    let f = a.features();
    let l = limits_of(a);
    AdapterInfo {
        vendor: get_str(&info, "vendor"),
        architecture: get_str(&info, "architecture"),
        description: get_str(&info, "description"),
        device: get_str(&info, "device"),
        fallback: fallback(&info).or_else(|| fallback(a)).unwrap_or(false),
        timestamps: f.has("timestamp-query"),
        f16: f.has("shader-f16"),
        max_storage_binding: l.max_storage_binding,
        max_buffer: l.max_buffer,
        max_workgroups_per_dim: l.max_workgroups_per_dim,
        max_invocations: l.max_invocations,
    }
}

/// What the page shows before a run: the adapter, or why there is none.
pub async fn probe() -> Result<AdapterInfo, String> {
    Ok(info_of(&adapter().await?))
}

/// Everything the run creates on the GPU and on `window`, torn down on drop: the
/// test hook, the error handler, and the device (destroying it frees its memory).
pub(super) struct Session {
    pub(super) device: GpuDevice,
    pub(super) _lost_hook: Closure<dyn FnMut() -> wasm_bindgen::JsValue>,
    pub(super) _on_error: Closure<dyn FnMut(web_sys::GpuUncapturedErrorEvent)>,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(w) = web_sys::window() {
            let _ = Reflect::delete_property(&w, &"__brrrLabLoseDevice".into());
        }
        self.device.set_onuncapturederror(None);
        self.device.destroy();
    }
}

pub(super) async fn open_device(
    adapter: &GpuAdapter,
    info: &AdapterInfo,
) -> Result<GpuDevice, String> {
    let desc = GpuDeviceDescriptor::new();
    let mut feats: Vec<JsString> = Vec::new();
    if info.timestamps {
        feats.push("timestamp-query".into());
    }
    if info.f16 {
        feats.push("shader-f16".into());
    }
    desc.set_required_features(&feats);
    // ask for the adapter's largest buffers (the defaults are 128/256 MiB)
    let lim = Object::new();
    let _ = Reflect::set(
        &lim,
        &"maxStorageBufferBindingSize".into(),
        &info.max_storage_binding.into(),
    );
    let _ = Reflect::set(&lim, &"maxBufferSize".into(), &info.max_buffer.into());
    desc.set_required_limits(lim.unchecked_ref());
    wait(adapter.request_device_with_descriptor(&desc))
        .await
        .map(JsCast::unchecked_into)
        .map_err(|e| format!("The browser refused a WebGPU device: {}", js_err(e)))
}
