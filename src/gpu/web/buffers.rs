//! The lab's buffers: the four work buffers (A0, A1 inputs; B0, B1 outputs), halved
//! while the GPU runs out of memory; uploading the input pattern; the uniforms; and
//! reading a buffer back.

use super::glue::{scope_error, yield_now};
use super::measure::Rig;
use super::{Res, Stop};
use crate::gpu::plan::{self, Plan};
use crate::gpu::reference;
use crate::gpu::results::Dt;
use crate::gpu::wgsl;
use crate::js::{js_err, wait};
use web_sys::{
    gpu_buffer_usage as usage, gpu_map_mode, GpuBuffer, GpuBufferDescriptor, GpuDevice,
    GpuErrorFilter,
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
        let half = plan.bytes / 2 / (16 * u64::from(plan.wg)) * (16 * u64::from(plan.wg));
        if (half as f64) < plan::MIN_BYTES {
            return Err(Stop::Error(
                "the GPU is out of memory even for small buffers".into(),
            ));
        }
        plan.bytes = half;
        notes.push(format!(
            "Out of GPU memory at the planned size; using {} per buffer.",
            plan::size_text(half as f64)
        ));
    }
}

impl Rig<'_> {
    /// Set `n` (vec4s) and `m` for the next dispatches.
    pub(super) fn uniforms(&self, elements: u64) -> Res<()> {
        let n4 = u32::try_from(elements / 4).unwrap_or(u32::MAX);
        let mut bytes = [0u8; 8];
        bytes[..4].copy_from_slice(&n4.to_le_bytes());
        bytes[4..].copy_from_slice(&wgsl::MUL.to_le_bytes());
        self.queue
            .write_buffer_with_u32_and_u8_slice(&self.uniform, 0, &bytes)
            .map_err(|e| self.fail("writing the parameters", e))
    }

    /// Upload the input pattern in `dt` to A0 and A1, yielding to the page every
    /// 16 MiB.
    pub(super) async fn fill(&self, dt: Dt) -> Res<()> {
        let bytes = reference::pattern_bytes(dt, self.plan.elements(dt));
        for buf in &self.a {
            let mut off = 0u64;
            while off < self.plan.bytes {
                let len = (self.plan.bytes - off).min(bytes.len() as u64) as usize;
                self.queue
                    .write_buffer_with_u32_and_u8_slice(buf, off as u32, &bytes[..len])
                    .map_err(|e| self.fail("uploading the input", e))?;
                off += len as u64;
                if off % (16 << 20) < len as u64 {
                    yield_now().await;
                    self.check()?;
                }
            }
        }
        Ok(())
    }

    pub(super) async fn map_read<T>(
        &self,
        buf: &GpuBuffer,
        bytes: u32,
        f: impl FnOnce(&js_sys::ArrayBuffer) -> T,
    ) -> Res<T> {
        wait(buf.map_async_with_u32_and_u32(gpu_map_mode::READ, 0, bytes))
            .await
            .map_err(|e| self.fail("reading back", e))?;
        let out = buf
            .get_mapped_range_with_u32_and_u32(0, bytes)
            .map(|ab| f(&ab))
            .map_err(|e| self.fail("reading back", e));
        buf.unmap();
        out
    }
}
