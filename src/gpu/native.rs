//! The lab's native driver (not wasm32): the page's measurement through the `wgpu`
//! crate's native backends (Vulkan, Metal, DX12), for `brrr-lab`. Everything but
//! the GPU calls is shared with the page's driver (`gpu::web`): the kernels
//! ([`wgsl`]), the plan, sweep order, element counts, calibration and dispatch
//! sequences ([`plan`]), the CPU reference and tolerances ([`reference`]), the
//! result types ([`super::results`]) and so the analysis and the JSON export.
//!
//! A variant is measured exactly as on the page (see `gpu::web`'s module docs):
//! compiled inside a validation error scope (a shader error fails that variant),
//! sized by [`Predictor`] and [`Plan::elements_for`], verified on a sample against
//! the CPU chain before it is timed, calibrated until a trial lasts about
//! [`Plan::chunk_target_s`], then timed `trials` times, alternating buffers. Time
//! comes from timestamp queries at both ends of each compute pass where the
//! adapter has them (else the wall clock around submit → done, minus the measured
//! round trip). Blocking calls (`device.poll`) replace the page's awaits; nothing
//! here panics on a GPU failure, which comes back as a message.

use super::plan::{self, Calibration, Limits, Plan, Predictor, EMPTY};
use super::reference::{self, Tolerance, Verdict};
use super::results::*;
use super::wgsl;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The progress label while the adapter and device are opened (a failure there is
/// the run's only message).
pub const OPENING: &str = "opening the GPU";

/// Query slots per read-back of timestamps.
const QUERY_PAIRS: u32 = 256;

/// Why a run stopped early.
#[derive(Debug)]
enum Stop {
    Lost(String),
    Error(String),
}

type Res<T> = Result<T, Stop>;

/// How the run was asked for.
pub struct Options<'a> {
    /// The small test size (seconds on a software driver).
    pub small: bool,
    /// Time with the wall clock even where timestamp queries exist.
    pub wall_clock: bool,
    /// (fraction done, what is running)
    pub progress: &'a dyn Fn(f64, &str),
}

/// A vendor's name from its PCI (or Khronos) id.
pub fn vendor_name(id: u32) -> &'static str {
    match id {
        0x10de => "NVIDIA",
        0x1002 | 0x1022 => "AMD",
        0x8086 => "Intel",
        0x106b => "Apple",
        0x13b5 => "ARM",
        0x5143 => "Qualcomm",
        0x1010 => "Imagination",
        0x10005 => "Mesa",
        _ => "",
    }
}

/// A wgpu adapter as the lab's [`AdapterInfo`] (the fields a browser fills):
/// vendor by name, the device's name, and the driver as the description.
pub fn info_of(a: &wgpu::Adapter) -> AdapterInfo {
    let i = a.get_info();
    let l = limits_of(a);
    let f = a.features();
    let driver = [i.driver.as_str(), i.driver_info.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    AdapterInfo {
        vendor: vendor_name(i.vendor).to_string(),
        architecture: String::new(),
        description: format!("{driver} ({:?})", i.backend),
        device: i.name,
        fallback: i.device_type == wgpu::DeviceType::Cpu,
        timestamps: f.contains(wgpu::Features::TIMESTAMP_QUERY),
        f16: f.contains(wgpu::Features::SHADER_F16),
        max_storage_binding: l.max_storage_binding,
        max_buffer: l.max_buffer,
        max_workgroups_per_dim: l.max_workgroups_per_dim,
        max_invocations: l.max_invocations,
    }
}

fn limits_of(a: &wgpu::Adapter) -> Limits {
    let l = a.limits();
    Limits {
        max_storage_binding: l.max_storage_buffer_binding_size as f64,
        max_buffer: l.max_buffer_size as f64,
        max_workgroups_per_dim: l.max_compute_workgroups_per_dimension,
        max_invocations: l.max_compute_invocations_per_workgroup,
        max_workgroup_size_x: l.max_compute_workgroup_size_x,
    }
}

/// The high-performance adapter of this machine, or why there is none.
pub fn adapter() -> Result<wgpu::Adapter, String> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: None,
        ..wgpu::RequestAdapterOptions::default()
    }))
    .map_err(|e| {
        format!(
            "no GPU adapter found ({e}): wgpu found no Vulkan, Metal or DX12 device; on Linux \
             install a Vulkan driver (Debian: mesa-vulkan-drivers)"
        )
    })
}

/// Today's date and time in ISO 8601 (UTC), like the page's `Date.toISOString()`.
pub fn iso_now() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    iso_date(d.as_secs(), d.subsec_millis())
}

/// `secs` since 1970 as ISO 8601 (the civil-from-days algorithm).
pub fn iso_date(secs: u64, millis: u32) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// A compiled kernel and its bind groups: 0 A0→B0, 1 A1→B1, 2 B0→B1, 3 B1→B0.
struct Kern {
    pipeline: wgpu::ComputePipeline,
    groups: Vec<wgpu::BindGroup>,
}

/// The timestamp queries: a query set of `2 × QUERY_PAIRS` slots (start and end of
/// a pass), where they are resolved, and where they are read back.
struct Queries {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    /// Nanoseconds per tick.
    period: f64,
}

/// The measuring rig of one run: the device and its queue, the plan, the timer
/// and the work buffers (the page's counterpart is `gpu::web`'s `Rig`).
struct Rig<'o> {
    device: wgpu::Device,
    queue: wgpu::Queue,
    plan: Plan,
    timer: Timer,
    lost: Arc<Mutex<Option<String>>>,
    errors: Arc<Mutex<Vec<String>>>,
    a: [wgpu::Buffer; 2],
    b: [wgpu::Buffer; 2],
    uniform: wgpu::Buffer,
    staging: wgpu::Buffer,
    queries: Option<Queries>,
    roundtrip: f64,
    pred: Predictor,
    opts: &'o Options<'o>,
    step: (f64, f64),
    label: String,
}

fn lock<T: Clone>(m: &Mutex<T>) -> T {
    match m.lock() {
        Ok(g) => g.clone(),
        Err(p) => p.into_inner().clone(),
    }
}

fn push(m: &Mutex<Vec<String>>, s: String) {
    match m.lock() {
        Ok(mut g) => g.push(s),
        Err(p) => p.into_inner().push(s),
    }
}

impl Rig<'_> {
    fn check(&self) -> Res<()> {
        match lock(&self.lost) {
            Some(m) => Err(Stop::Lost(m)),
            None => Ok(()),
        }
    }

    fn progress(&self, within: f64) {
        let (done, total) = self.step;
        let f = ((done + within.clamp(0.0, 1.0)) / total.max(1.0)).clamp(0.0, 1.0);
        (self.opts.progress)(f, &self.label);
    }

    fn errors_len(&self) -> usize {
        lock(&self.errors).len()
    }

    fn error_since(&self, n: usize) -> Option<String> {
        lock(&self.errors).get(n).cloned()
    }

    /// Block until the GPU has finished everything submitted.
    fn done(&self) -> Res<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| self.fail(&format!("waiting for the GPU: {e}")))?;
        self.check()
    }

    fn fail(&self, what: &str) -> Stop {
        match lock(&self.lost) {
            Some(m) => Stop::Lost(m),
            None => Stop::Error(what.to_string()),
        }
    }

    /// Compile `code`; errors come back as text.
    fn kernel(&self, code: &str, bind: bool) -> Result<Kern, String> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: None,
                source: wgpu::ShaderSource::Wgsl(code.into()),
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(format!("shader: {e}"));
        }
        let mut groups = Vec::new();
        if bind {
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let layout = pipeline.get_bind_group_layout(0);
            let pairs = [
                (&self.a[0], &self.b[0]),
                (&self.a[1], &self.b[1]),
                (&self.b[0], &self.b[1]),
                (&self.b[1], &self.b[0]),
            ];
            for (src, dst) in pairs {
                groups.push(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: src.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: dst.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: self.uniform.as_entire_binding(),
                        },
                    ],
                }));
            }
            if let Some(e) = pollster::block_on(scope.pop()) {
                return Err(format!("bind group: {e}"));
            }
        }
        Ok(Kern { pipeline, groups })
    }

    /// Set `n` (vec4s) and `m` for the next dispatches.
    fn uniforms(&self, elements: u64) {
        let n4 = u32::try_from(elements / 4).unwrap_or(u32::MAX);
        let mut bytes = [0u8; 8];
        bytes[..4].copy_from_slice(&n4.to_le_bytes());
        bytes[4..].copy_from_slice(&wgsl::MUL.to_le_bytes());
        self.queue.write_buffer(&self.uniform, 0, &bytes);
    }

    /// Upload the input pattern in `dt` to A0 and A1.
    fn fill(&self, dt: Dt) -> Res<()> {
        let bytes = reference::pattern_bytes(dt, self.plan.elements(dt));
        for buf in &self.a {
            let mut off = 0u64;
            while off < self.plan.bytes {
                let len = (self.plan.bytes - off).min(bytes.len() as u64) as usize;
                self.queue.write_buffer(buf, off, &bytes[..len]);
                off += len as u64;
            }
            self.queue.submit([]);
            self.done()?;
        }
        Ok(())
    }

    /// Run the dispatches `seq` (bind-group indices) of one pipeline, cut into
    /// submissions of at most `per_submit`; returns the GPU seconds.
    fn execute(&self, kern: &Kern, seq: &[u8], grid: (u32, u32), per_submit: u32) -> Res<f64> {
        let mut total = 0.0;
        let mut slot = 0u32;
        let chunks: Vec<&[u8]> = seq.chunks(per_submit.max(1) as usize).collect();
        let n = chunks.len();
        for (c, chunk) in chunks.into_iter().enumerate() {
            self.check()?;
            let mut enc = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
            {
                let timestamp_writes = match (self.timer, &self.queries) {
                    (Timer::Timestamps, Some(q)) => Some(wgpu::ComputePassTimestampWrites {
                        query_set: &q.set,
                        beginning_of_pass_write_index: Some(2 * slot),
                        end_of_pass_write_index: Some(2 * slot + 1),
                    }),
                    _ => None,
                };
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: None,
                    timestamp_writes,
                });
                pass.set_pipeline(&kern.pipeline);
                let mut bound = EMPTY;
                for &g in chunk {
                    if g != bound && g != EMPTY {
                        if let Some(group) = kern.groups.get(usize::from(g)) {
                            pass.set_bind_group(0, group, &[]);
                        }
                        bound = g;
                    }
                    pass.dispatch_workgroups(grid.0, grid.1, 1);
                }
            }
            let cb = enc.finish();
            let t0 = Instant::now();
            self.queue.submit([cb]);
            self.done()?;
            let elapsed = t0.elapsed().as_secs_f64();
            slot += 1;
            match self.timer {
                // never credit the round trip with more than half of a span
                Timer::WallClock => total += (elapsed - self.roundtrip).max(0.5 * elapsed),
                Timer::Timestamps => {
                    if slot == QUERY_PAIRS || c + 1 == n {
                        total += self.read_timestamps(slot)?;
                        slot = 0;
                    }
                }
            }
        }
        Ok(total)
    }

    /// Sum of the (end − start) spans of the first `pairs` passes, in seconds.
    fn read_timestamps(&self, pairs: u32) -> Res<f64> {
        let Some(q) = &self.queries else {
            return Err(Stop::Error("no query set".into()));
        };
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        enc.resolve_query_set(&q.set, 0..2 * pairs, &q.resolve, 0);
        enc.copy_buffer_to_buffer(&q.resolve, 0, &q.read, 0, u64::from(16 * pairs));
        self.queue.submit([enc.finish()]);
        let bytes = self.map_read(&q.read, u64::from(16 * pairs))?;
        let mut sum = 0.0;
        for p in bytes.chunks_exact(16) {
            let mut s = [0u8; 8];
            let mut e = [0u8; 8];
            s.copy_from_slice(&p[..8]);
            e.copy_from_slice(&p[8..]);
            let (start, end) = (u64::from_le_bytes(s), u64::from_le_bytes(e));
            if end < start {
                return Err(Stop::Error("GPU timestamps went backwards".into()));
            }
            sum += (end - start) as f64 * q.period * 1e-9;
        }
        Ok(sum)
    }

    fn map_read(&self, buf: &wgpu::Buffer, bytes: u64) -> Res<Vec<u8>> {
        let (tx, rx) = mpsc::channel();
        buf.map_async(wgpu::MapMode::Read, 0..bytes, move |r| {
            let _ = tx.send(r);
        });
        self.done()?;
        match rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(self.fail(&format!("reading back: {e}"))),
            Err(_) => return Err(self.fail("reading back: the GPU never answered")),
        }
        let out = buf
            .get_mapped_range(0..bytes)
            .map(|v| v.to_vec())
            .map_err(|e| self.fail(&format!("reading back: {e}")));
        buf.unmap();
        out
    }

    /// 5 empty submit → done round trips.
    fn measure_roundtrip(&mut self) -> Res<Vec<f64>> {
        let mut v = Vec::new();
        for _ in 0..5 {
            self.check()?;
            let cb = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor::default())
                .finish();
            let t0 = Instant::now();
            self.queue.submit([cb]);
            self.done()?;
            v.push(t0.elapsed().as_secs_f64());
        }
        self.roundtrip = median(&v).unwrap_or(0.0);
        Ok(v)
    }

    /// Verify run 0's output against the CPU chain on a sample.
    fn verify(
        &self,
        kern: &Kern,
        m: &Measurement,
        grid: (u32, u32),
        per_submit: u32,
    ) -> Res<Check> {
        let seq = plan::dispatch_sequence(m.kernel, m.repeat, 0, 1);
        self.execute(kern, &seq, grid, per_submit)?;
        let out = match m.kernel {
            Kernel::Eager => &self.b[((m.repeat.max(1) - 1) % 2) as usize],
            _ => &self.b[0],
        };
        let eb = m.dt.bytes();
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        let mut off = 0u64;
        let mut idx = Vec::new();
        for (start, len) in plan::sample_ranges(m.elements) {
            enc.copy_buffer_to_buffer(out, start * eb, &self.staging, off, len * eb);
            off += len * eb;
            idx.extend(start..start + len);
        }
        self.queue.submit([enc.finish()]);
        let bytes = self.map_read(&self.staging, off)?;
        let got: Vec<f32> = match m.dt {
            Dt::F32 => bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            Dt::F16 => bytes
                .chunks_exact(2)
                .map(|b| reference::f16_bits_to_f32(u16::from_le_bytes([b[0], b[1]])))
                .collect(),
        };
        let mut v = Verdict::default();
        v.add(m.op, m.dt, m.repeat, &idx, &got);
        Ok(v.into_check(Tolerance::for_variant(m.op, m.dt, m.repeat)))
    }

    /// Time `runs` runs per trial; returns seconds per run.
    fn trial(
        &self,
        kern: &Kern,
        m: &Measurement,
        grid: (u32, u32),
        runs: u32,
        per_submit: u32,
    ) -> Res<f64> {
        let seq = plan::dispatch_sequence(m.kernel, m.repeat, 0, runs);
        let t = self.execute(kern, &seq, grid, per_submit)?;
        Ok(t / f64::from(runs.max(1)))
    }

    /// Measure one variant (the page's procedure, step for step).
    fn measure(&mut self, kernel: Kernel, op: Option<Op>, dt: Dt, repeat: u32) -> Res<Measurement> {
        let dispatches = if kernel == Kernel::Eager {
            repeat.max(1)
        } else {
            1
        };
        let predict = |lab: &Self| lab.pred.predict(kernel, op, dt, repeat);
        let mut m = Measurement {
            kernel,
            op,
            dt,
            repeat,
            elements: self.plan.elements_for(dt, predict(self), dispatches),
            times: Vec::new(),
            check: Check::Failed {
                detail: "not run".into(),
            },
            remeasured: 0,
        };
        let errors_before = self.errors_len();
        let ops = if kernel == Kernel::Eager { 1 } else { repeat };
        let code = wgsl::elementwise(dt, op, ops, self.plan.wg);
        let kern = match self.kernel(&code, true) {
            Ok(k) => k,
            Err(e) => {
                self.check()?;
                m.check = Check::Failed { detail: e };
                return Ok(m);
            }
        };
        self.uniforms(m.elements);
        let mut grid = self.plan.grid(m.elements);
        let per_submit = self
            .plan
            .dispatches_per_submit(predict(self) * m.elements as f64);
        m.check = self.verify(&kern, &m, grid, per_submit)?;
        self.progress(0.2);
        if let Some(e) = self.error_since(errors_before) {
            m.check = Check::Failed { detail: e };
        }
        if !m.check.passed() {
            return Ok(m);
        }
        let mut runs = 1u32;
        let mut per_run = loop {
            let per_dispatch = predict(self) * m.elements as f64;
            let per_submit = self.plan.dispatches_per_submit(per_dispatch);
            let t = self.trial(&kern, &m, grid, runs, per_submit)?;
            match self.plan.calibrate(dt, t, runs, m.elements, dispatches) {
                // a dispatch far over budget (a slow GPU): shrink before timing
                Calibration::Shrink(n) => {
                    m.elements = n;
                    self.uniforms(n);
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
            per_run = self.trial(&kern, &m, grid, runs, per_submit)?;
            m.times.push(per_run);
            self.progress(0.35 + 0.65 * f64::from(i + 1) / f64::from(self.plan.trials));
        }
        // trials spread more than ±10 %: taken again (bounded), the quietest set
        // kept, as on the page
        while m.noisy() && m.remeasured < self.plan.remeasure {
            m.remeasured += 1;
            let mut again = Vec::new();
            for _ in 0..self.plan.trials {
                again.push(self.trial(&kern, &m, grid, runs, per_submit)?);
            }
            if quieter(&again, &m.times) {
                m.times = again;
            }
        }
        m.settle(self.error_since(errors_before));
        self.pred.learn(&m);
        Ok(m)
    }

    /// GPU time per empty dispatch, CPU time to record one, and cost per submit.
    fn overheads(&self, o: &mut Overheads) -> Res<()> {
        let kern = self.kernel(&wgsl::empty(), false).map_err(Stop::Error)?;
        let grid = (1, 1);
        let mut k = 64u32;
        loop {
            let t = self.execute(&kern, &vec![EMPTY; k as usize], grid, 8192)?;
            if t >= self.plan.chunk_target_s / 2.0 || k >= 8192 {
                break;
            }
            k = (k * 4).min(8192);
        }
        for _ in 0..self.plan.trials {
            let t = self.execute(&kern, &vec![EMPTY; k as usize], grid, 8192)?;
            o.dispatch.push(t / f64::from(k));
            // recording alone, never submitted
            let (t0, mut n) = (Instant::now(), 0u32);
            while t0.elapsed().as_secs_f64() < 0.01 && n < 1 << 20 {
                let mut enc = self
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
                {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
                    pass.set_pipeline(&kern.pipeline);
                    for _ in 0..1024 {
                        pass.dispatch_workgroups(1, 1, 1);
                    }
                }
                let _ = enc.finish();
                n += 1024;
            }
            o.encode.push(t0.elapsed().as_secs_f64() / f64::from(n));
        }
        let submits = 100;
        for _ in 0..self.plan.trials {
            self.check()?;
            let t0 = Instant::now();
            for _ in 0..submits {
                let mut enc = self
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
                {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
                    pass.set_pipeline(&kern.pipeline);
                    pass.dispatch_workgroups(1, 1, 1);
                }
                self.queue.submit([enc.finish()]);
            }
            let issued = t0.elapsed().as_secs_f64();
            self.done()?;
            let t = (t0.elapsed().as_secs_f64() - self.roundtrip)
                .max(issued)
                .max(0.0);
            o.submit.push(t / f64::from(submits));
        }
        Ok(())
    }
}

/// Run the whole lab on this machine's adapter. `Err` when nothing could be
/// measured (no adapter, no device, limits too small, or a failure before the
/// first measurement); otherwise the run, complete or partial.
pub fn run(opts: &Options<'_>) -> Result<LabRun, String> {
    let (mut lab, mut run, dts) = setup(opts)?;
    let device = lab.device.clone();
    let sweep = plan::sweep();
    lab.step.1 = 2.0 + dts.len() as f64 * (1.0 + sweep.len() as f64);
    let result = sweep_all(&mut lab, &dts, &sweep, &mut run);
    for e in lock(&lab.errors).iter().take(5) {
        run.notes.push(e.clone());
    }
    drop(lab);
    device.destroy();
    let kept = if run.measurements.is_empty() {
        "nothing was measured"
    } else {
        "the results so far are kept, marked partial"
    };
    match result {
        Ok(()) => {
            run.outcome = Outcome::Complete;
            run.reason.clear();
            (opts.progress)(1.0, "done");
        }
        Err(Stop::Lost(m)) => {
            run.reason = format!("The GPU device was lost during the run ({m}); {kept}.");
        }
        Err(Stop::Error(m)) => {
            run.reason = format!("The run stopped on an error ({m}); {kept}.");
        }
    }
    if run.measurements.is_empty() && run.outcome != Outcome::Complete {
        return Err(run.reason);
    }
    Ok(run)
}

/// ((dtype, repeat), verdict) per variant.
pub type Verdicts = Vec<((Dt, u32), Check)>;

/// Verify (not time) the fused chains of `op` at every repeat of the sweep, in f32
/// and, where the adapter has `shader-f16`, f16, at the small size: the WGSL the
/// page runs, executed on this machine's adapter, against the CPU reference.
/// Returns ((dtype, repeat), verdict) per variant.
pub fn verify_chains(op: Op) -> Result<Verdicts, String> {
    let quiet = |_: f64, _: &str| {};
    let opts = Options {
        small: true,
        wall_clock: true,
        progress: &quiet,
    };
    let (lab, _, dts) = setup(&opts)?;
    let mut out = Vec::new();
    let res = (|| -> Res<()> {
        for &dt in &dts {
            lab.fill(dt)?;
            for r in plan::REPEATS {
                let m = Measurement {
                    kernel: Kernel::Fused,
                    op: Some(op),
                    dt,
                    repeat: r,
                    elements: lab.plan.elements(dt),
                    times: Vec::new(),
                    check: Check::Failed {
                        detail: "not run".into(),
                    },
                    remeasured: 0,
                };
                let code = wgsl::elementwise(dt, Some(op), r, lab.plan.wg);
                let check = match lab.kernel(&code, true) {
                    Ok(kern) => {
                        lab.uniforms(m.elements);
                        let grid = lab.plan.grid(m.elements);
                        lab.verify(&kern, &m, grid, 1)?
                    }
                    Err(e) => Check::Failed { detail: e },
                };
                out.push(((dt, r), check));
            }
        }
        Ok(())
    })();
    lab.device.destroy();
    match res {
        Ok(()) => Ok(out),
        Err(Stop::Lost(m) | Stop::Error(m)) => Err(m),
    }
}

/// Open the adapter and device and create the buffers: the [`Rig`] of a run, the
/// run's record so far (adapter, plan, notes) and the dtypes to sweep.
fn setup<'o>(opts: &'o Options<'o>) -> Result<(Rig<'o>, LabRun, Vec<Dt>), String> {
    (opts.progress)(0.0, OPENING);
    let adapter = adapter()?;
    let info = info_of(&adapter);
    let limits = limits_of(&adapter);
    let mut plan =
        plan::plan(&limits, opts.small).map_err(|e| format!("Limits too small: {e}."))?;
    let mut features = wgpu::Features::empty();
    if info.timestamps {
        features |= wgpu::Features::TIMESTAMP_QUERY;
    }
    if info.f16 {
        features |= wgpu::Features::SHADER_F16;
    }
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("brrr-lab"),
        required_features: features,
        // the adapter's largest buffers (the defaults are 128/256 MiB)
        required_limits: adapter.limits(),
        ..wgpu::DeviceDescriptor::default()
    }))
    .map_err(|e| format!("The adapter refused a device: {e}"))?;
    let lost = Arc::new(Mutex::new(None::<String>));
    {
        let lost = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            let m = format!("{msg} (reason: {reason:?})");
            match lost.lock() {
                Ok(mut g) => *g = Some(m),
                Err(p) => *p.into_inner() = Some(m),
            }
        });
    }
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    {
        let errors = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            push(&errors, format!("GPU error: {e}"));
        }));
    }
    let timer = if info.timestamps && !opts.wall_clock {
        Timer::Timestamps
    } else {
        Timer::WallClock
    };
    let mut run = LabRun {
        outcome: Outcome::Partial,
        reason: "Interrupted during the run.".into(),
        date: iso_now(),
        adapter: info.clone(),
        timer,
        small: opts.small,
        elements: plan.elements(Dt::F32),
        notes: plan.notes.clone(),
        overheads: Overheads::default(),
        measurements: Vec::new(),
    };
    run.notes.push(format!(
        "Measured natively by brrr-lab (wgpu {:?} backend), not in a browser.",
        adapter.get_info().backend
    ));
    if info.fallback {
        run.notes.push(
            "This is a software (CPU) adapter: the figures describe the CPU, not a GPU.".into(),
        );
    }
    if timer == Timer::WallClock {
        run.notes.push(
            "Timed with the wall clock around submit → done, minus the measured round trip.".into(),
        );
    }

    // buffers, halving the size while the GPU runs out of memory
    let work =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let mk = |bytes: u64, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: bytes,
            usage,
            mapped_at_creation: false,
        })
    };
    let (a, b) = loop {
        let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let bufs = [
            mk(plan.bytes, work),
            mk(plan.bytes, work),
            mk(plan.bytes, work),
            mk(plan.bytes, work),
        ];
        if pollster::block_on(scope.pop()).is_none() {
            let [a0, a1, b0, b1] = bufs;
            break ([a0, a1], [b0, b1]);
        }
        for b in &bufs {
            b.destroy();
        }
        let half = plan.bytes / 2 / (16 * u64::from(plan.wg)) * (16 * u64::from(plan.wg));
        if (half as f64) < plan::MIN_BYTES {
            return Err("the GPU is out of memory even for small buffers".into());
        }
        plan.bytes = half;
        run.notes.push(format!(
            "Out of GPU memory at the planned size; using {} per buffer.",
            plan::size_text(half as f64)
        ));
    };
    run.elements = plan.elements(Dt::F32);
    let uniform = mk(
        16,
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    );
    let staging = mk(
        8192 * 4,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    );
    let queries = (timer == Timer::Timestamps).then(|| Queries {
        set: device.create_query_set(&wgpu::QuerySetDescriptor {
            label: None,
            ty: wgpu::QueryType::Timestamp,
            count: 2 * QUERY_PAIRS,
        }),
        resolve: mk(
            u64::from(16 * QUERY_PAIRS),
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        ),
        read: mk(
            u64::from(16 * QUERY_PAIRS),
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        ),
        period: f64::from(queue.get_timestamp_period()),
    });
    let dts: Vec<Dt> = if info.f16 {
        vec![Dt::F32, Dt::F16]
    } else {
        vec![Dt::F32]
    };
    let lab = Rig {
        device: device.clone(),
        queue,
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
        pred: Predictor::default(),
        opts,
        step: (0.0, 1.0),
        label: "measuring the submit round trip".into(),
    };
    Ok((lab, run, dts))
}

fn sweep_all(
    lab: &mut Rig<'_>,
    dts: &[Dt],
    sweep: &[(Kernel, Op, u32)],
    run: &mut LabRun,
) -> Res<()> {
    lab.progress(0.0);
    run.overheads.roundtrip = lab.measure_roundtrip()?;
    let step_done = |lab: &mut Rig<'_>| {
        lab.step.0 += 1.0;
        lab.progress(0.0);
    };
    step_done(lab);
    for &dt in dts {
        lab.fill(dt)?;
        lab.label = format!("copy bandwidth ({})", dt.id());
        lab.progress(0.0);
        // probe at the smallest size to predict the full-size copy
        lab.pred.forget_copy(dt);
        let full = lab.plan.clone();
        lab.plan.bytes = lab.plan.min_elements.min(full.elements(dt)) * dt.bytes();
        let probe = lab.measure(Kernel::Copy, None, dt, 0);
        lab.plan = full;
        let probe = probe?;
        lab.pred.learn(&probe);
        let m = lab.measure(Kernel::Copy, None, dt, 0)?;
        run.measurements.push(m);
        step_done(lab);
        if dt == Dt::F32 {
            lab.label = "dispatch and submit overhead".into();
            lab.progress(0.0);
            lab.overheads(&mut run.overheads)?;
            step_done(lab);
        }
        for &(kernel, op, r) in sweep {
            lab.label = format!("{} {} ×{} ({})", kernel.id(), op.id(), r, dt.id());
            lab.progress(0.0);
            let m = lab.measure(kernel, Some(op), dt, r)?;
            run.measurements.push(m);
            step_done(lab);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_iso_8601() {
        assert_eq!(iso_date(0, 0), "1970-01-01T00:00:00.000Z");
        // 2026-11-23T06:27:06Z
        assert_eq!(iso_date(1_795_415_226, 42), "2026-11-23T06:27:06.042Z");
        assert_eq!(iso_date(951_782_400, 0), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn vendors_by_id() {
        assert_eq!(vendor_name(0x10de), "NVIDIA");
        assert_eq!(vendor_name(0x10005), "Mesa");
        assert_eq!(vendor_name(7), "");
    }
}
