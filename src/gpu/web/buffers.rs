//! The lab's buffers: the four work buffers (A0, A1 inputs; B0, B1 outputs), halved
//! while the GPU runs out of memory; uploading the input pattern; the uniforms; and
//! reading a buffer back.

use super::glue::scope_error;
use super::{Res, Stop};
use crate::gpu::plan::Plan;
use crate::gpu::procedure;
use crate::js::js_err;
use web_sys::{
    gpu_buffer_usage as usage, GpuBuffer, GpuBufferDescriptor, GpuDevice, GpuErrorFilter,
};

/// One buffer of `bytes` with `usage`.
pub(super) fn buffer(device: &GpuDevice, bytes: f64, usage: u32) -> Res<GpuBuffer> {
    device
        .create_buffer(&GpuBufferDescriptor::new_with_f64(bytes, usage))
        .map_err(|e| Stop::Error(format!("creating buffers: {}", js_err(e))))
}

/// The work buffers ([A0, A1], [B0, B1]) of `plan.bytes` each, halving the size
/// (and saying so in `notes`) while the GPU runs out of memory.
pub(super) async fn work_buffers(
    device: &GpuDevice,
    plan: &mut Plan,
    notes: &mut Vec<String>,
) -> Res<([GpuBuffer; 2], [GpuBuffer; 2])> {
    loop {
        device.push_error_scope(GpuErrorFilter::OutOfMemory);
        let work = usage::STORAGE | usage::COPY_SRC | usage::COPY_DST;
        let mk = || buffer(device, plan.bytes as f64, work);
        let bufs = [mk()?, mk()?, mk()?, mk()?];
        if scope_error(device).await.is_ok() {
            let [a0, a1, b0, b1] = bufs;
            return Ok(([a0, a1], [b0, b1]));
        }
        for b in &bufs {
            b.destroy();
        }
        procedure::halve(plan, notes).map_err(Stop::Error)?;
    }
}

/// The cache sweep's source C of `plan.cache_bytes`, halved (with a note) while
/// the GPU runs out of memory; 16 bytes when there is no sweep.
pub(super) async fn cache_buffer(
    device: &GpuDevice,
    plan: &mut Plan,
    notes: &mut Vec<String>,
) -> Res<GpuBuffer> {
    loop {
        let bytes = plan.cache_bytes.max(16) as f64;
        device.push_error_scope(GpuErrorFilter::OutOfMemory);
        let c = buffer(device, bytes, usage::STORAGE | usage::COPY_DST)?;
        if scope_error(device).await.is_ok() || plan.cache_bytes == 0 {
            return Ok(c);
        }
        c.destroy();
        procedure::halve_cache(plan, notes);
    }
}
