//! The lab's WebGPU side (wasm32 only): adapter and device, buffers, pipelines,
//! dispatch, timing, read-back and verification. Every JS or GPU failure becomes a
//! message; nothing here panics.
//!
//! # How a variant is measured
//! 1. Its WGSL is compiled inside a validation error scope (a shader error fails
//!    the variant, not the run).
//! 2. Its element count is chosen from the time predicted by earlier variants so
//!    one dispatch stays under [`Plan::chunk_max_s`] and all trials under the
//!    variant budget ([`Plan::elements_for`]).
//! 3. One run on the pristine input; a sample of the output is read back and
//!    compared with the CPU reference ([`reference`]). A failed check is recorded
//!    and the variant is not timed.
//! 4. Calibration (also the warm-up): runs per trial grow until a trial lasts about
//!    [`Plan::chunk_target_s`], far above the timer's resolution (Chrome quantizes
//!    timestamps to ~100 µs).
//! 5. `trials` timed trials. Each trial records `k` runs, alternating the input
//!    buffer (A0/A1) and output buffer (B0/B1) so no run reads what the previous
//!    one just wrote; it is cut into submissions of at most `chunk_max_s`, each
//!    awaited, with a yield to the page in between. With timestamp queries a
//!    submission is one compute pass with a timestamp at each end; otherwise
//!    `performance.now()` around submit → `onSubmittedWorkDone`, minus the
//!    measured round trip of an empty submission.

use super::plan::{self, Limits, Plan, Predictor, EMPTY as NONE};
use super::reference::{self, Tolerance, Verdict};
use super::results::*;
use super::wgsl;
use js_sys::{BigUint64Array, Float32Array, JsString, Object, Reflect, Uint16Array};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    gpu_buffer_usage as usage, gpu_map_mode, Gpu, GpuAdapter, GpuAutoLayoutMode, GpuBindGroup,
    GpuBindGroupDescriptor, GpuBindGroupEntry, GpuBuffer, GpuBufferBinding, GpuBufferDescriptor,
    GpuComputePassDescriptor, GpuComputePassTimestampWrites, GpuComputePipeline,
    GpuComputePipelineDescriptor, GpuDevice, GpuDeviceDescriptor, GpuErrorFilter,
    GpuProgrammableStage, GpuQuerySet, GpuQuerySetDescriptor, GpuQueryType, GpuQueue,
    GpuShaderModuleDescriptor,
};

/// Why a run stopped early.
#[derive(Debug)]
pub enum Stop {
    Cancelled,
    /// The device was lost (driver reset, watchdog, `destroy()`); the message says why.
    Lost(String),
    Error(String),
}

type Res<T> = Result<T, Stop>;

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

fn get_str(o: &JsValue, k: &str) -> String {
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
const LOSS_GRACE_TASKS: u32 = 25;

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
async fn scope_error(device: &GpuDevice) -> Result<(), String> {
    match wait(device.pop_error_scope()).await {
        Ok(e) if e.is_null() || e.is_undefined() => Ok(()),
        Ok(e) => Err(get_str(&e, "message")),
        Err(e) => Err(js_err(e)),
    }
}

/// A test knob: `window[name] === true`.
fn knob(name: &str) -> bool {
    web_sys::window()
        .and_then(|w| Reflect::get(&w, &name.into()).ok())
        .and_then(|v| v.as_bool())
        == Some(true)
}

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

async fn adapter() -> Result<GpuAdapter, String> {
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

fn limits_of(a: &GpuAdapter) -> Limits {
    let l = a.limits();
    Limits {
        max_storage_binding: l.max_storage_buffer_binding_size(),
        max_buffer: l.max_buffer_size(),
        max_workgroups_per_dim: l.max_compute_workgroups_per_dimension(),
        max_invocations: l.max_compute_invocations_per_workgroup(),
        max_workgroup_size_x: l.max_compute_workgroup_size_x(),
    }
}

fn info_of(a: &GpuAdapter) -> AdapterInfo {
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

/// What the run reports back to the page while it works.
pub struct Hooks<'a> {
    pub cancelled: &'a dyn Fn() -> bool,
    /// (fraction done, what is running)
    pub progress: &'a dyn Fn(f64, &str),
    /// The run so far (after every measurement).
    pub update: &'a dyn Fn(&LabRun),
}

/// A compiled kernel and its bind groups: 0 A0→B0, 1 A1→B1, 2 B0→B1, 3 B1→B0.
struct Kern {
    pipeline: GpuComputePipeline,
    groups: Vec<GpuBindGroup>,
}

/// Query slots per read-back of timestamps.
const QUERY_PAIRS: u32 = 256;

struct Lab<'h> {
    device: GpuDevice,
    queue: GpuQueue,
    plan: Plan,
    timer: Timer,
    lost: Rc<RefCell<Option<String>>>,
    errors: Rc<RefCell<Vec<String>>>,
    a: [GpuBuffer; 2],
    b: [GpuBuffer; 2],
    uniform: GpuBuffer,
    staging: GpuBuffer,
    queries: Option<(GpuQuerySet, GpuBuffer, GpuBuffer)>,
    roundtrip: f64,
    hooks: &'h Hooks<'h>,
    /// Progress: steps done, steps total, and the fraction of the current step.
    step: Cell<(f64, f64)>,
    label: RefCell<String>,
    /// Predicts each variant's time from those measured before it.
    pred: RefCell<Predictor>,
}

impl Lab<'_> {
    fn check(&self) -> Res<()> {
        if let Some(m) = self.lost.borrow().as_ref() {
            return Err(Stop::Lost(m.clone()));
        }
        if (self.hooks.cancelled)() {
            return Err(Stop::Cancelled);
        }
        Ok(())
    }

    fn progress(&self, within: f64) {
        let (done, total) = self.step.get();
        let f = ((done + within.clamp(0.0, 1.0)) / total.max(1.0)).clamp(0.0, 1.0);
        (self.hooks.progress)(f, &self.label.borrow());
    }

    /// A rejected GPU promise: the device's loss if that is why, else the error.
    fn fail(&self, what: &str, e: JsValue) -> Stop {
        if let Some(m) = self.lost.borrow().as_ref() {
            return Stop::Lost(m.clone());
        }
        Stop::Error(format!("{what}: {}", js_err(e)))
    }

    async fn done(&self) -> Res<()> {
        wait(self.queue.on_submitted_work_done())
            .await
            .map_err(|e| self.fail("waiting for the GPU", e))?;
        Ok(())
    }

    /// Compile `code`; errors come back as text (and never reach the console).
    async fn kernel(&self, code: &str, bind: bool) -> Result<Kern, String> {
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

    /// Set `n` (vec4s) and `m` for the next dispatches.
    fn uniforms(&self, elements: u64) -> Res<()> {
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
    async fn fill(&self, dt: Dt) -> Res<()> {
        let elems = self.plan.elements(dt);
        let period = reference::PATTERN.min(elems);
        let mut bytes = Vec::with_capacity((period * dt.bytes()) as usize);
        for i in 0..period {
            match dt {
                Dt::F32 => bytes.extend_from_slice(&reference::input(i).to_le_bytes()),
                Dt::F16 => bytes.extend_from_slice(
                    &reference::f32_to_f16_bits(reference::input(i)).to_le_bytes(),
                ),
            }
        }
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

    /// Run the dispatches `seq` (bind-group indices) of one pipeline, cut into
    /// submissions of at most `per_submit`; returns the GPU seconds.
    async fn execute(
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
            if let (Timer::Timestamps, Some((qs, _, _))) = (self.timer, &self.queries) {
                let tw = GpuComputePassTimestampWrites::new(qs);
                tw.set_beginning_of_pass_write_index(2 * slot);
                tw.set_end_of_pass_write_index(2 * slot + 1);
                desc.set_timestamp_writes(&tw);
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

    /// Sum of the (end − start) spans of the first `pairs` passes, in seconds.
    async fn read_timestamps(&self, pairs: u32) -> Res<f64> {
        let Some((qs, resolve, read)) = &self.queries else {
            return Err(Stop::Error("no query set".into()));
        };
        let enc = self.device.create_command_encoder();
        enc.resolve_query_set_with_u32(qs, 0, 2 * pairs, resolve, 0);
        enc.copy_buffer_to_buffer_with_u32_and_u32_and_u32(resolve, 0, read, 0, 16 * pairs)
            .map_err(|e| self.fail("copying timestamps", e))?;
        self.queue.submit(&[enc.finish()]);
        let ns = self
            .map_read(read, 16 * pairs, |ab| BigUint64Array::new(ab).to_vec())
            .await?;
        let mut sum = 0.0;
        for p in ns.chunks(2) {
            if let [start, end] = p {
                if end < start {
                    return Err(Stop::Error("GPU timestamps went backwards".into()));
                }
                sum += (end - start) as f64 * 1e-9;
            }
        }
        Ok(sum)
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

    /// Median of 5 empty submit → done round trips.
    async fn measure_roundtrip(&mut self) -> Res<Vec<f64>> {
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
    async fn verify(
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
    fn predict(&self, kernel: Kernel, op: Option<Op>, dt: Dt, repeat: u32) -> f64 {
        self.pred.borrow().predict(kernel, op, dt, repeat)
    }

    fn learn(&self, m: &Measurement) {
        self.pred.borrow_mut().learn(m);
    }

    /// Time `runs` runs per trial; returns seconds per run.
    async fn trial(
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

    /// Measure one variant (see the module docs). `record` = false for the probe.
    async fn measure(
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
        };
        let errors_before = self.errors.borrow().len();
        // eager runs `repeat` kernels of one op each; fused one kernel of `repeat` ops
        let ops = if kernel == Kernel::Eager { 1 } else { repeat };
        let mut code = wgsl::elementwise(dt, op, ops, self.plan.wg);
        // test knob `window.__brrrLabBreakShader = true`: fused x·m ×2 gets invalid WGSL
        if kernel == Kernel::Fused
            && op == Some(Op::Mul)
            && repeat == 2
            && knob("__brrrLabBreakShader")
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
            // a dispatch far over budget (a slow GPU): shrink before timing
            let t_dispatch = t / f64::from(dispatches);
            if t_dispatch > 2.0 * self.plan.chunk_max_s && m.elements > self.plan.min_elements {
                let n = self
                    .plan
                    .elements_for(dt, t_dispatch / m.elements as f64, dispatches);
                if n < m.elements {
                    m.elements = n;
                    self.uniforms(n)?;
                    grid = self.plan.grid(n);
                    continue;
                }
            }
            let trial_s = t * f64::from(runs);
            if trial_s >= self.plan.chunk_target_s / 2.0 || runs >= 4096 {
                break t;
            }
            let grow = (self.plan.chunk_target_s / trial_s.max(self.plan.chunk_target_s / 64.0))
                .clamp(2.0, 64.0);
            runs = ((f64::from(runs) * grow) as u32).min(4096);
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
        if let Some(e) = self.errors.borrow().get(errors_before) {
            m.check = Check::Failed { detail: e.clone() };
        }
        if m.times.iter().any(|t| !(t.is_finite() && *t > 0.0)) {
            m.check = Check::Failed {
                detail: "the timer returned no usable span (kernel shorter than its resolution)"
                    .into(),
            };
        }
        self.learn(&m);
        Ok(m)
    }

    /// GPU time per empty dispatch, CPU time to record one, and cost per submit.
    async fn overheads(&self, o: &mut Overheads) -> Res<()> {
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

/// Everything the run creates on the GPU and on `window`, torn down on drop: the
/// test hook, the error handler, and the device (destroying it frees its memory).
struct Session {
    device: GpuDevice,
    _lost_hook: Closure<dyn FnMut()>,
    _on_error: Closure<dyn FnMut(web_sys::GpuUncapturedErrorEvent)>,
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

async fn open_device(adapter: &GpuAdapter, info: &AdapterInfo) -> Result<GpuDevice, String> {
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

/// Run the whole lab. `Err` when nothing could be measured at all (no WebGPU, no
/// adapter, no device, limits too small, or the device lost or an error before the
/// first measurement); otherwise the run, complete, partial (device lost, error) or
/// cancelled, with everything measured so far. A run cancelled before its first
/// measurement is returned empty and is neither shown nor saved (`hooks.update`).
pub async fn run(small: bool, wall_clock: bool, hooks: &Hooks<'_>) -> Result<LabRun, String> {
    (hooks.progress)(0.0, "opening the GPU");
    let adapter = adapter().await?;
    let info = info_of(&adapter);
    let limits = limits_of(&adapter);
    let plan = plan::plan(&limits, small).map_err(|e| format!("Limits too small: {e}."))?;
    let device = open_device(&adapter, &info).await?;

    let lost = Rc::new(RefCell::new(None::<String>));
    {
        let lost = lost.clone();
        let p = device.lost();
        wasm_bindgen_futures::spawn_local(async move {
            if let Ok(i) = wait(p).await {
                let reason = get_str(&i, "reason");
                let msg = get_str(&i, "message");
                *lost.borrow_mut() = Some(if msg.is_empty() {
                    format!("reason: {reason}")
                } else {
                    format!("{msg} (reason: {reason})")
                });
            }
        });
    }
    let errors = Rc::new(RefCell::new(Vec::<String>::new()));
    let on_error = {
        let errors = errors.clone();
        Closure::<dyn FnMut(web_sys::GpuUncapturedErrorEvent)>::new(
            move |e: web_sys::GpuUncapturedErrorEvent| {
                e.prevent_default();
                errors
                    .borrow_mut()
                    .push(format!("GPU error: {}", e.error().message()));
            },
        )
    };
    device.set_onuncapturederror(Some(on_error.as_ref().unchecked_ref()));
    let lost_hook = {
        let d = device.clone();
        Closure::<dyn FnMut()>::new(move || d.destroy())
    };
    if let Some(w) = web_sys::window() {
        let _ = Reflect::set(&w, &"__brrrLabLoseDevice".into(), lost_hook.as_ref());
    }
    let session = Session {
        device: device.clone(),
        _lost_hook: lost_hook,
        _on_error: on_error,
    };

    let timer = if info.timestamps && !wall_clock {
        Timer::Timestamps
    } else {
        Timer::WallClock
    };
    // saved as it goes: a run cut short by a reload or a crash stays marked partial
    let mut run = LabRun {
        outcome: Outcome::Partial,
        reason: "Interrupted: the page was closed or reloaded during the run.".into(),
        date: js_sys::Date::new_0().to_iso_string().into(),
        adapter: info.clone(),
        timer,
        small,
        elements: plan.elements(Dt::F32),
        notes: plan.notes.clone(),
        overheads: Overheads::default(),
        measurements: Vec::new(),
    };
    if info.fallback {
        run.notes.push(
            "This is a software (fallback) adapter: it runs on the CPU, so the figures describe \
             the CPU, not a GPU."
                .into(),
        );
    }
    if timer == Timer::WallClock {
        run.notes.push(if info.timestamps && wall_clock {
            "Timed with performance.now() around onSubmittedWorkDone (requested), minus the \
             measured round trip."
                .into()
        } else {
            "No timestamp queries on this adapter: timed with performance.now() around \
             onSubmittedWorkDone, minus the measured round trip."
                .into()
        });
    }

    let result = session_run(&session, plan, timer, lost.clone(), errors, hooks, &mut run).await;
    // A GPU promise can be rejected before device.lost resolves (a pending mapAsync
    // aborts first), and under load that takes more than one task: give the loss up
    // to LOSS_GRACE_TASKS tasks (each a zero-delay timeout) so it is reported as the
    // loss. Only an error pays this; checked before our own destroy below.
    let result = match result {
        Err(Stop::Error(m)) => {
            for _ in 0..LOSS_GRACE_TASKS {
                if lost.borrow().is_some() {
                    break;
                }
                yield_now().await;
            }
            let l = lost.borrow().clone();
            Err(l.map_or(Stop::Error(m), Stop::Lost))
        }
        r => r,
    };
    drop(session);
    // stopped before the first measurement: nothing to keep, so the results shown
    // and saved earlier (if any) stay as they were
    let none = run.measurements.is_empty();
    let kept = if none {
        "nothing was measured; earlier results, if any, are unchanged"
    } else {
        "the results so far are kept, marked partial"
    };
    match result {
        Ok(()) => {
            run.outcome = Outcome::Complete;
            run.reason.clear();
            (hooks.progress)(1.0, "done");
        }
        Err(Stop::Cancelled) => {
            run.outcome = Outcome::Cancelled;
            run.reason = format!("Cancelled: {kept}.");
        }
        Err(Stop::Lost(m)) => {
            run.outcome = Outcome::Partial;
            run.reason = format!("The GPU device was lost during the run ({m}); {kept}.");
        }
        Err(Stop::Error(m)) => {
            run.outcome = Outcome::Partial;
            run.reason = format!("The run stopped on an error ({m}); {kept}.");
        }
    }
    if none {
        if run.outcome == Outcome::Partial {
            return Err(run.reason);
        }
    } else {
        (hooks.update)(&run);
    }
    Ok(run)
}

async fn session_run(
    s: &Session,
    mut plan: Plan,
    timer: Timer,
    lost: Rc<RefCell<Option<String>>>,
    errors: Rc<RefCell<Vec<String>>>,
    hooks: &Hooks<'_>,
    run: &mut LabRun,
) -> Res<()> {
    let device = &s.device;
    // buffers, halving the size while the GPU runs out of memory
    let (a, b) = loop {
        device.push_error_scope(GpuErrorFilter::OutOfMemory);
        let mk = |u: u32| {
            device
                .create_buffer(&GpuBufferDescriptor::new_with_f64(plan.bytes as f64, u))
                .map_err(|e| Stop::Error(format!("creating buffers: {}", js_err(e))))
        };
        let work = usage::STORAGE | usage::COPY_SRC | usage::COPY_DST;
        let bufs = [mk(work)?, mk(work)?, mk(work)?, mk(work)?];
        if scope_error(device).await.is_ok() {
            let [a0, a1, b0, b1] = bufs;
            break ([a0, a1], [b0, b1]);
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
        run.notes.push(format!(
            "Out of GPU memory at the planned size; using {} per buffer.",
            plan::size_text(half as f64)
        ));
    };
    run.elements = plan.elements(Dt::F32);
    let mk = |bytes: f64, u: u32| {
        device
            .create_buffer(&GpuBufferDescriptor::new_with_f64(bytes, u))
            .map_err(|e| Stop::Error(format!("creating buffers: {}", js_err(e))))
    };
    let uniform = mk(16.0, usage::UNIFORM | usage::COPY_DST)?;
    let staging = mk(8192.0 * 4.0, usage::MAP_READ | usage::COPY_DST)?;
    let queries = if timer == Timer::Timestamps {
        let qs = device
            .create_query_set(&GpuQuerySetDescriptor::new(
                2 * QUERY_PAIRS,
                GpuQueryType::Timestamp,
            ))
            .map_err(|e| Stop::Error(format!("creating timestamp queries: {}", js_err(e))))?;
        let bytes = f64::from(16 * QUERY_PAIRS);
        let resolve = mk(bytes, usage::QUERY_RESOLVE | usage::COPY_SRC)?;
        let read = mk(bytes, usage::MAP_READ | usage::COPY_DST)?;
        Some((qs, resolve, read))
    } else {
        None
    };

    let dts: Vec<Dt> = if run.adapter.f16 {
        vec![Dt::F32, Dt::F16]
    } else {
        vec![Dt::F32]
    };
    // steps: setup, copy (per dtype), overheads, the sweep per dtype
    let sweep = plan::sweep();
    let total = 2.0 + dts.len() as f64 * (1.0 + sweep.len() as f64);
    let lab = Lab {
        queue: device.queue(),
        device: device.clone(),
        plan,
        timer,
        lost,
        errors,
        a,
        b,
        uniform,
        staging,
        queries,
        roundtrip: 0.0,
        hooks,
        step: Cell::new((0.0, total)),
        label: RefCell::new("measuring the submit round trip".into()),
        pred: RefCell::new(Predictor::default()),
    };
    let mut lab = lab;
    lab.progress(0.0);
    run.overheads.roundtrip = lab.measure_roundtrip().await?;
    let step_done = |lab: &Lab<'_>| {
        let (d, t) = lab.step.get();
        lab.step.set((d + 1.0, t));
        lab.progress(0.0);
    };
    step_done(&lab);

    for &dt in &dts {
        lab.fill(dt).await?;
        *lab.label.borrow_mut() = format!("copy bandwidth ({})", dt.id());
        lab.progress(0.0);
        // probe at the smallest size to predict the full-size copy
        {
            lab.pred.borrow_mut().forget_copy(dt);
            let saved = lab.plan.elements(dt);
            let probe_plan = Plan {
                bytes: lab.plan.min_elements.min(saved) * dt.bytes(),
                ..lab.plan.clone()
            };
            let full = std::mem::replace(&mut lab.plan, probe_plan);
            let probe = lab.measure(Kernel::Copy, None, dt, 0).await;
            lab.plan = full;
            let probe = probe?;
            lab.learn(&probe);
        }
        let m = lab.measure(Kernel::Copy, None, dt, 0).await?;
        lab.learn(&m);
        run.measurements.push(m);
        (hooks.update)(run);
        step_done(&lab);

        if dt == Dt::F32 {
            *lab.label.borrow_mut() = "dispatch and submit overhead".into();
            lab.progress(0.0);
            lab.overheads(&mut run.overheads).await?;
            (hooks.update)(run);
            step_done(&lab);
        }

        for &(kernel, op, r) in &sweep {
            *lab.label.borrow_mut() = format!("{} {} ×{} ({})", kernel.id(), op.id(), r, dt.id());
            lab.progress(0.0);
            let m = lab.measure(kernel, Some(op), dt, r).await?;
            run.measurements.push(m);
            (hooks.update)(run);
            step_done(&lab);
        }
    }
    let errs = lab.errors.borrow();
    for e in errs.iter().take(5) {
        run.notes.push(e.clone());
    }
    Ok(())
}
