//! Measuring: the [`Rig`] a run works with (device, plan, buffers, timer,
//! predictions, progress), compiling kernels, executing dispatch sequences, and one
//! variant's verify → calibrate → time (see `super`'s module docs), plus the fixed
//! costs (empty dispatch, recording, submit).

use super::glue::{now, scope_error, yield_now};
use super::queries::{Queries, QUERY_PAIRS};
use super::run::Hooks;
use super::{Res, Stop};
use crate::gpu::plan::{self, Calibration, Plan, Predictor, EMPTY as NONE};
use crate::gpu::reference::{self, Tolerance, Verdict};
use crate::gpu::results::*;
use crate::gpu::wgsl;
use crate::js::{self, js_err, wait};
use js_sys::{Float32Array, Uint16Array};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    GpuAutoLayoutMode, GpuBindGroup, GpuBindGroupDescriptor, GpuBindGroupEntry, GpuBuffer,
    GpuBufferBinding, GpuComputePassDescriptor, GpuComputePipeline, GpuComputePipelineDescriptor,
    GpuDevice, GpuErrorFilter, GpuProgrammableStage, GpuQueue, GpuShaderModuleDescriptor,
};

/// A compiled kernel and its bind groups: 0 A0→B0, 1 A1→B1, 2 B0→B1, 3 B1→B0.
pub(super) struct Kern {
    pub(super) pipeline: GpuComputePipeline,
    pub(super) groups: Vec<GpuBindGroup>,
}

/// The measuring rig of one run: the device and its queue, the plan, the timer,
/// the work buffers and what the run has learnt so far (the page's counterpart of
/// `gpu::native`'s `Rig`).
pub(super) struct Rig<'h> {
    pub(super) device: GpuDevice,
    pub(super) queue: GpuQueue,
    pub(super) plan: Plan,
    pub(super) timer: Timer,
    pub(super) lost: Rc<RefCell<Option<String>>>,
    pub(super) errors: Rc<RefCell<Vec<String>>>,
    pub(super) a: [GpuBuffer; 2],
    pub(super) b: [GpuBuffer; 2],
    pub(super) uniform: GpuBuffer,
    pub(super) staging: GpuBuffer,
    pub(super) queries: Option<Queries>,
    pub(super) roundtrip: f64,
    pub(super) hooks: &'h Hooks<'h>,
    /// Progress: steps done, steps total, and the fraction of the current step.
    pub(super) step: Cell<(f64, f64)>,
    pub(super) label: RefCell<String>,
    /// Predicts each variant's time from those measured before it.
    pub(super) pred: RefCell<Predictor>,
}

impl Rig<'_> {
    pub(super) fn check(&self) -> Res<()> {
        if let Some(m) = self.lost.borrow().as_ref() {
            return Err(Stop::Lost(m.clone()));
        }
        if (self.hooks.cancelled)() {
            return Err(Stop::Cancelled);
        }
        Ok(())
    }

    pub(super) fn progress(&self, within: f64) {
        let (done, total) = self.step.get();
        let f = ((done + within.clamp(0.0, 1.0)) / total.max(1.0)).clamp(0.0, 1.0);
        (self.hooks.progress)(f, &self.label.borrow());
    }

    /// A rejected GPU promise: the device's loss if that is why, else the error.
    pub(super) fn fail(&self, what: &str, e: JsValue) -> Stop {
        if let Some(m) = self.lost.borrow().as_ref() {
            return Stop::Lost(m.clone());
        }
        Stop::Error(format!("{what}: {}", js_err(e)))
    }

    pub(super) async fn done(&self) -> Res<()> {
        wait(self.queue.on_submitted_work_done())
            .await
            .map_err(|e| self.fail("waiting for the GPU", e))?;
        Ok(())
    }

    /// Compile `code`; errors come back as text (and never reach the console).
    pub(super) async fn kernel(&self, code: &str, bind: bool) -> Result<Kern, String> {
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
            let pairs = [
                (&self.a[0], &self.b[0]),
                (&self.a[1], &self.b[1]),
                (&self.b[0], &self.b[1]),
                (&self.b[1], &self.b[0]),
            ];
            for (src, dst) in pairs {
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

    /// Run the dispatches `seq` (bind-group indices) of one pipeline, cut into
    /// submissions of at most `per_submit`; returns the GPU seconds.
    pub(super) async fn execute(
        &self,
        kern: &Kern,
        seq: &[u8],
        grid: (u32, u32),
        per_submit: u32,
    ) -> Res<f64> {
        let mut total = 0.0;
        let mut slot = 0u32;
        let chunks: Vec<&[u8]> = seq.chunks(per_submit.max(1) as usize).collect();
        let n = chunks.len();
        for (c, chunk) in chunks.into_iter().enumerate() {
            self.check()?;
            let enc = self.device.create_command_encoder();
            let desc = GpuComputePassDescriptor::new();
            if let (Timer::Timestamps, Some(q)) = (self.timer, &self.queries) {
                desc.set_timestamp_writes(&q.writes(slot));
            }
            let pass = enc.begin_compute_pass_with_descriptor(&desc);
            pass.set_pipeline(&kern.pipeline);
            let mut bound = NONE;
            for &g in chunk {
                if g != bound && g != NONE {
                    pass.set_bind_group(0, kern.groups.get(usize::from(g)));
                    bound = g;
                }
                pass.dispatch_workgroups_with_workgroup_count_y(grid.0, grid.1);
            }
            pass.end();
            let cb = enc.finish();
            let t0 = now();
            self.queue.submit(&[cb]);
            self.done().await?;
            let t1 = now();
            slot += 1;
            match self.timer {
                // The measured round trip is a median; on a busy machine one
                // submission can come back faster than it, which would leave
                // nothing (or less than nothing). Never credit the round trip with
                // more than half of what was measured.
                Timer::WallClock => {
                    let elapsed = (t1 - t0).max(0.0);
                    total += (elapsed - self.roundtrip).max(0.5 * elapsed);
                }
                Timer::Timestamps => {
                    if slot == QUERY_PAIRS || c + 1 == n {
                        total += self.read_timestamps(slot).await?;
                        slot = 0;
                    }
                }
            }
            yield_now().await;
        }
        self.check()?;
        Ok(total)
    }

    /// Median of 5 empty submit → done round trips.
    pub(super) async fn measure_roundtrip(&mut self) -> Res<Vec<f64>> {
        let mut v = Vec::new();
        for _ in 0..5 {
            self.check()?;
            let cb = self.device.create_command_encoder().finish();
            let t0 = now();
            self.queue.submit(&[cb]);
            self.done().await?;
            v.push(now() - t0);
            yield_now().await;
        }
        self.roundtrip = median(&v).unwrap_or(0.0);
        Ok(v)
    }

    /// Verify run 0's output against the CPU chain on a sample.
    pub(super) async fn verify(
        &self,
        kern: &Kern,
        m: &Measurement,
        grid: (u32, u32),
        per_submit: u32,
    ) -> Res<Check> {
        let seq = plan::dispatch_sequence(m.kernel, m.repeat, 0, 1);
        self.execute(kern, &seq, grid, per_submit).await?;
        let out = match m.kernel {
            Kernel::Eager => &self.b[((m.repeat.max(1) - 1) % 2) as usize],
            _ => &self.b[0],
        };
        let eb = m.dt.bytes();
        let ranges = plan::sample_ranges(m.elements);
        let enc = self.device.create_command_encoder();
        let mut off = 0u64;
        let mut idx = Vec::new();
        for &(start, len) in &ranges {
            enc.copy_buffer_to_buffer_with_f64_and_f64_and_f64(
                out,
                (start * eb) as f64,
                &self.staging,
                off as f64,
                (len * eb) as f64,
            )
            .map_err(|e| self.fail("copying the output", e))?;
            off += len * eb;
            idx.extend(start..start + len);
        }
        self.queue.submit(&[enc.finish()]);
        let got: Vec<f32> = self
            .map_read(&self.staging, off as u32, |ab| match m.dt {
                Dt::F32 => Float32Array::new(ab).to_vec(),
                Dt::F16 => Uint16Array::new(ab)
                    .to_vec()
                    .into_iter()
                    .map(reference::f16_bits_to_f32)
                    .collect(),
            })
            .await?;
        // the CPU chain, in slices, yielding so the page stays responsive
        let mut v = Verdict::default();
        let slice = (65536 / m.repeat.max(1) as usize).clamp(64, 8192);
        let mut t = now();
        for (i, g) in idx.chunks(slice).zip(got.chunks(slice)) {
            v.add(m.op, m.dt, m.repeat, i, g);
            if now() - t > 0.008 {
                yield_now().await;
                self.check()?;
                t = now();
            }
        }
        Ok(v.into_check(Tolerance::for_variant(m.op, m.dt, m.repeat)))
    }

    /// Predicted seconds per element of one dispatch of a variant.
    pub(super) fn predict(&self, kernel: Kernel, op: Option<Op>, dt: Dt, repeat: u32) -> f64 {
        self.pred.borrow().predict(kernel, op, dt, repeat)
    }

    pub(super) fn learn(&self, m: &Measurement) {
        self.pred.borrow_mut().learn(m);
    }

    /// Time `runs` runs per trial; returns seconds per run.
    pub(super) async fn trial(
        &self,
        kern: &Kern,
        m: &Measurement,
        grid: (u32, u32),
        runs: u32,
        per_submit: u32,
    ) -> Res<f64> {
        let seq = plan::dispatch_sequence(m.kernel, m.repeat, 0, runs);
        let t = self.execute(kern, &seq, grid, per_submit).await?;
        Ok(t / f64::from(runs.max(1)))
    }

    /// Measure one variant (see the module docs): verify, calibrate, time the
    /// trials and take noisy ones again.
    pub(super) async fn measure(
        &self,
        kernel: Kernel,
        op: Option<Op>,
        dt: Dt,
        repeat: u32,
    ) -> Res<Measurement> {
        let dispatches = if kernel == Kernel::Eager {
            repeat.max(1)
        } else {
            1
        };
        let mut m = Measurement {
            kernel,
            op,
            dt,
            repeat,
            elements: self
                .plan
                .elements_for(dt, self.predict(kernel, op, dt, repeat), dispatches),
            times: Vec::new(),
            check: Check::Failed {
                detail: "not run".into(),
            },
            remeasured: 0,
        };
        let errors_before = self.errors.borrow().len();
        // eager runs `repeat` kernels of one op each; fused one kernel of `repeat` ops
        let ops = if kernel == Kernel::Eager { 1 } else { repeat };
        let mut code = wgsl::elementwise(dt, op, ops, self.plan.wg);
        // test knob `window.__brrrLabBreakShader = true`: fused x·m ×2 gets invalid WGSL
        if kernel == Kernel::Fused
            && op == Some(Op::Mul)
            && repeat == 2
            && js::flag("__brrrLabBreakShader")
        {
            code.push_str("\nnot WGSL");
        }
        let kern = match self.kernel(&code, true).await {
            Ok(k) => k,
            Err(e) => {
                self.check()?; // a lost device is not this variant's fault
                m.check = Check::Failed { detail: e };
                return Ok(m);
            }
        };
        self.uniforms(m.elements)?;
        let mut grid = self.plan.grid(m.elements);
        let per_submit = self
            .plan
            .dispatches_per_submit(self.predict(kernel, op, dt, repeat) * m.elements as f64);
        m.check = self.verify(&kern, &m, grid, per_submit).await?;
        self.progress(0.2);
        if let Some(e) = self.errors.borrow().get(errors_before) {
            m.check = Check::Failed { detail: e.clone() };
        }
        if !m.check.passed() {
            return Ok(m);
        }
        // calibrate (and warm up): grow the runs per trial until a trial is long
        // enough to time well
        let mut runs = 1u32;
        let mut per_run = loop {
            let per_dispatch = self.predict(kernel, op, dt, repeat) * m.elements as f64;
            let per_submit = self.plan.dispatches_per_submit(per_dispatch);
            let t = self.trial(&kern, &m, grid, runs, per_submit).await?;
            match self.plan.calibrate(dt, t, runs, m.elements, dispatches) {
                // a dispatch far over budget (a slow GPU): shrink before timing
                Calibration::Shrink(n) => {
                    m.elements = n;
                    self.uniforms(n)?;
                    grid = self.plan.grid(n);
                }
                Calibration::Done => break t,
                Calibration::Runs(r) => runs = r,
            }
        };
        self.progress(0.35);
        let per_submit = self
            .plan
            .dispatches_per_submit(per_run.max(1e-9) / f64::from(dispatches));
        for i in 0..self.plan.trials {
            per_run = self.trial(&kern, &m, grid, runs, per_submit).await?;
            m.times.push(per_run);
            self.progress(0.35 + 0.65 * f64::from(i + 1) / f64::from(self.plan.trials));
        }
        // trials spread more than ±10 %: take them again (bounded), keep the
        // quietest set; one still that wide is marked noisy on the page and in the
        // exports (`Measurement::noisy`)
        let base = self.label.borrow().clone();
        while m.noisy() && m.remeasured < self.plan.remeasure {
            m.remeasured += 1;
            *self.label.borrow_mut() = format!(
                "{base}, measuring again: trials spread {}",
                crate::gpu::table::spread_text(&m.times)
            );
            self.progress(1.0);
            let mut again = Vec::new();
            for _ in 0..self.plan.trials {
                again.push(self.trial(&kern, &m, grid, runs, per_submit).await?);
            }
            if quieter(&again, &m.times) {
                m.times = again;
            }
        }
        *self.label.borrow_mut() = base;
        let gpu_error = self.errors.borrow().get(errors_before).cloned();
        m.settle(gpu_error);
        self.learn(&m);
        Ok(m)
    }

    /// GPU time per empty dispatch, CPU time to record one, and cost per submit.
    pub(super) async fn overheads(&self, o: &mut Overheads) -> Res<()> {
        let kern = self
            .kernel(&wgsl::empty(), false)
            .await
            .map_err(Stop::Error)?;
        let grid = (1, 1);
        // calibrate dispatches per trial
        let mut k = 64u32;
        loop {
            let t = self
                .execute(&kern, &vec![NONE; k as usize], grid, 8192)
                .await?;
            if t >= self.plan.chunk_target_s / 2.0 || k >= 8192 {
                break;
            }
            k = (k * 4).min(8192);
        }
        self.progress(0.3);
        for _ in 0..self.plan.trials {
            let t = self
                .execute(&kern, &vec![NONE; k as usize], grid, 8192)
                .await?;
            o.dispatch.push(t / f64::from(k));
            // recording alone, timed over enough dispatches for performance.now()'s
            // coarse clock (100 µs in most browsers); never submitted
            let (t0, mut n) = (now(), 0u32);
            while now() - t0 < 0.01 && n < 1 << 20 {
                let enc = self.device.create_command_encoder();
                let pass = enc.begin_compute_pass();
                pass.set_pipeline(&kern.pipeline);
                for _ in 0..1024 {
                    pass.dispatch_workgroups(1);
                }
                pass.end();
                let _ = enc.finish();
                n += 1024;
            }
            o.encode.push((now() - t0) / f64::from(n));
            yield_now().await;
        }
        self.progress(0.6);
        // submits: many one-dispatch command buffers in a row, then one wait
        let submits = 100;
        for _ in 0..self.plan.trials {
            self.check()?;
            let t0 = now();
            for _ in 0..submits {
                let enc = self.device.create_command_encoder();
                let pass = enc.begin_compute_pass();
                pass.set_pipeline(&kern.pipeline);
                pass.dispatch_workgroups(1);
                pass.end();
                self.queue.submit(&[enc.finish()]);
            }
            // the CPU time to issue them is a floor: the round-trip median can
            // exceed one noisy wait and would leave nothing
            let issued = now() - t0;
            self.done().await?;
            let t = (now() - t0 - self.roundtrip).max(issued).max(0.0);
            o.submit.push(t / f64::from(submits));
            yield_now().await;
        }
        Ok(())
    }
}
