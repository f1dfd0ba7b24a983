//! The page's [`Driver`]: what `gpu::procedure` needs of a GPU, through web-sys's
//! WebGPU. Every GPU promise is awaited through `crate::js::wait`; a rejected one
//! is reported as the device's loss when that is why.

use super::glue::{now, scope_error, yield_now};
use super::queries::Queries;
use super::{Hooks, Res, Stop};
use crate::gpu::procedure::{self, binds, Buf, Driver, GROUPS};
use crate::gpu::reference;
use crate::gpu::results::*;
use crate::gpu::wgsl;
use crate::js::{self, js_err, wait};
use js_sys::{BigUint64Array, Float32Array, Uint16Array};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    gpu_map_mode, GpuAutoLayoutMode, GpuBindGroup, GpuBindGroupDescriptor, GpuBindGroupEntry,
    GpuBuffer, GpuBufferBinding, GpuComputePassDescriptor, GpuComputePipeline,
    GpuComputePipelineDescriptor, GpuDevice, GpuErrorFilter, GpuProgrammableStage, GpuQueue,
    GpuShaderModuleDescriptor,
};

/// A compiled kernel and its bind groups: 0 A0→B0, 1 A1→B1, 2 B0→B1, 3 B1→B0, 4 C→B0.
pub(super) struct Kern {
    pipeline: GpuComputePipeline,
    groups: Vec<GpuBindGroup>,
}

/// The page's GPU of one run: the device and its queue, the work buffers, the
/// timestamp queries, what went wrong so far, and the page's hooks (the
/// counterpart of `gpu::native`'s `Wgpu`).
pub(super) struct Rig<'h> {
    pub(super) device: GpuDevice,
    pub(super) queue: GpuQueue,
    pub(super) lost: Rc<RefCell<Option<String>>>,
    pub(super) errors: Rc<RefCell<Vec<String>>>,
    pub(super) a: [GpuBuffer; 2],
    pub(super) b: [GpuBuffer; 2],
    /// The cache sweep's source (its working sets).
    pub(super) c: GpuBuffer,
    pub(super) uniform: GpuBuffer,
    pub(super) staging: GpuBuffer,
    pub(super) queries: Option<Queries>,
    pub(super) hooks: &'h Hooks<'h>,
}

impl Rig<'_> {
    fn buf(&self, b: Buf) -> &GpuBuffer {
        match b {
            Buf::A(i) => &self.a[i.min(1)],
            Buf::B(i) => &self.b[i.min(1)],
            Buf::C => &self.c,
        }
    }

    async fn map_read<T>(
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

    /// A rejected GPU promise: the device's loss if that is why, else the error.
    pub(super) fn fail(&self, what: &str, e: JsValue) -> Stop {
        if let Some(m) = self.lost.borrow().as_ref() {
            return Stop::Lost(m.clone());
        }
        Stop::Error(format!("{what}: {}", js_err(e)))
    }
}

impl Driver for Rig<'_> {
    type Kern = Kern;

    /// Compile `code`; errors come back as text (and never reach the console).
    async fn compile(&self, code: &str, bind: bool) -> Result<Kern, String> {
        self.device.push_error_scope(GpuErrorFilter::Validation);
        let module = self
            .device
            .create_shader_module(&GpuShaderModuleDescriptor::new(code));
        scope_error(&self.device)
            .await
            .map_err(|e| format!("shader: {e}"))?;
        let stage = GpuProgrammableStage::new(&module);
        stage.set_entry_point("main");
        let desc = GpuComputePipelineDescriptor::new_with_gpu_auto_layout_mode(
            GpuAutoLayoutMode::Auto,
            &stage,
        );
        let pipeline: GpuComputePipeline = wait(self.device.create_compute_pipeline_async(&desc))
            .await
            .map_err(|e| format!("pipeline: {}", js_err(e)))?
            .unchecked_into();
        let mut groups = Vec::new();
        if bind {
            self.device.push_error_scope(GpuErrorFilter::Validation);
            let layout = pipeline.get_bind_group_layout(0);
            for (src, dst) in GROUPS.map(|(s, d)| (self.buf(s), self.buf(d))) {
                let entries = [
                    GpuBindGroupEntry::new_with_gpu_buffer_binding(0, &GpuBufferBinding::new(src)),
                    GpuBindGroupEntry::new_with_gpu_buffer_binding(1, &GpuBufferBinding::new(dst)),
                    GpuBindGroupEntry::new_with_gpu_buffer_binding(
                        2,
                        &GpuBufferBinding::new(&self.uniform),
                    ),
                ];
                groups.push(
                    self.device
                        .create_bind_group(&GpuBindGroupDescriptor::new(&entries, &layout)),
                );
            }
            scope_error(&self.device)
                .await
                .map_err(|e| format!("bind group: {e}"))?;
        }
        Ok(Kern { pipeline, groups })
    }

    fn uniforms(&self, elements: u64) -> Res<()> {
        self.queue
            .write_buffer_with_u32_and_u8_slice(&self.uniform, 0, &wgsl::uniform_bytes(elements))
            .map_err(|e| self.fail("writing the parameters", e))
    }

    fn upload(&self, buf: Buf, offset: u64, bytes: &[u8]) -> Res<()> {
        self.queue
            .write_buffer_with_u32_and_u8_slice(self.buf(buf), offset as u32, bytes)
            .map_err(|e| self.fail("uploading the input", e))
    }

    async fn pass(&self, k: &Kern, seq: &[u8], grid: (u32, u32), slot: Option<u32>) -> Res<f64> {
        let enc = self.device.create_command_encoder();
        let desc = GpuComputePassDescriptor::new();
        if let (Some(slot), Some(q)) = (slot, &self.queries) {
            desc.set_timestamp_writes(&q.writes(slot));
        }
        let pass = enc.begin_compute_pass_with_descriptor(&desc);
        pass.set_pipeline(&k.pipeline);
        for g in binds(seq) {
            if let Some(g) = g {
                pass.set_bind_group(0, k.groups.get(g));
            }
            pass.dispatch_workgroups_with_workgroup_count_y(grid.0, grid.1);
        }
        pass.end();
        let cb = enc.finish();
        let t0 = now();
        self.queue.submit(&[cb]);
        self.done().await?;
        Ok(now() - t0)
    }

    async fn timestamps(&self, pairs: u32) -> Res<f64> {
        let Some(q) = &self.queries else {
            return Err(Stop::Error("no query set".into()));
        };
        let enc = self.device.create_command_encoder();
        enc.resolve_query_set_with_u32(&q.set, 0, 2 * pairs, &q.resolve, 0);
        enc.copy_buffer_to_buffer_with_u32_and_u32_and_u32(&q.resolve, 0, &q.read, 0, 16 * pairs)
            .map_err(|e| self.fail("copying timestamps", e))?;
        self.queue.submit(&[enc.finish()]);
        let ticks = self
            .map_read(&q.read, 16 * pairs, |ab| BigUint64Array::new(ab).to_vec())
            .await?;
        // WebGPU's timestamps are nanoseconds
        procedure::spans(&ticks, 1.0)
    }

    async fn sample(&self, out: usize, dt: Dt, ranges: &[(u64, u64)]) -> Res<Vec<f32>> {
        let out = self.buf(Buf::B(out));
        let eb = dt.bytes();
        let enc = self.device.create_command_encoder();
        let mut off = 0u64;
        for &(start, len) in ranges {
            enc.copy_buffer_to_buffer_with_f64_and_f64_and_f64(
                out,
                (start * eb) as f64,
                &self.staging,
                off as f64,
                (len * eb) as f64,
            )
            .map_err(|e| self.fail("copying the output", e))?;
            off += len * eb;
        }
        self.queue.submit(&[enc.finish()]);
        self.map_read(&self.staging, off as u32, |ab| match dt {
            Dt::F32 => Float32Array::new(ab).to_vec(),
            Dt::F16 => Uint16Array::new(ab)
                .to_vec()
                .into_iter()
                .map(reference::f16_bits_to_f32)
                .collect(),
        })
        .await
    }

    async fn round_trip(&self) -> Res<f64> {
        let cb = self.device.create_command_encoder().finish();
        let t0 = now();
        self.queue.submit(&[cb]);
        self.done().await?;
        Ok(now() - t0)
    }

    fn record(&self, kern: &Kern, n: u32) {
        let enc = self.device.create_command_encoder();
        let pass = enc.begin_compute_pass();
        pass.set_pipeline(&kern.pipeline);
        for _ in 0..n {
            pass.dispatch_workgroups(1);
        }
        pass.end();
        let _ = enc.finish();
    }

    fn submit_one(&self, kern: &Kern) {
        let enc = self.device.create_command_encoder();
        let pass = enc.begin_compute_pass();
        pass.set_pipeline(&kern.pipeline);
        pass.dispatch_workgroups(1);
        pass.end();
        self.queue.submit(&[enc.finish()]);
    }

    async fn done(&self) -> Res<()> {
        wait(self.queue.on_submitted_work_done())
            .await
            .map_err(|e| self.fail("waiting for the GPU", e))?;
        Ok(())
    }

    fn now(&self) -> f64 {
        now()
    }

    async fn yield_now(&self) {
        yield_now().await;
    }

    fn check(&self) -> Res<()> {
        if let Some(m) = self.lost.borrow().as_ref() {
            return Err(Stop::Lost(m.clone()));
        }
        if (self.hooks.cancelled)() {
            return Err(Stop::Cancelled);
        }
        Ok(())
    }

    fn errors_len(&self) -> usize {
        self.errors.borrow().len()
    }

    fn error_since(&self, n: usize) -> Option<String> {
        self.errors.borrow().get(n).cloned()
    }

    fn progress(&self, f: f64, label: &str) {
        (self.hooks.progress)(f, label);
    }

    /// `window.__brrrLabBreakShader = true`: fused x·m ×2 gets invalid WGSL.
    fn break_shader(&self, kernel: Kernel, op: Option<Op>, repeat: u32) -> bool {
        kernel == Kernel::Fused
            && op == Some(Op::Mul)
            && repeat == 2
            && js::flag("__brrrLabBreakShader")
    }
}
