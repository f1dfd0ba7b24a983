//! The lab's native driver (not wasm32): the page's measurement through the `wgpu`
//! crate's native backends (Vulkan, Metal, DX12), for `brrr-lab`. Everything but
//! the GPU calls is shared with the page's driver (`gpu::web`): the kernels
//! ([`wgsl`]), the plan, sweep order, element counts, calibration and dispatch
//! sequences ([`plan`]), the CPU reference and tolerances ([`reference`]), the
//! result types ([`super::results`]) and so the analysis and the JSON export.
//!
//! A variant is measured by the page's procedure itself (`gpu::procedure`, async
//! code over its `Driver` trait): this module is the wgpu [`Driver`], whose calls
//! block (`device.poll`), and runs the procedure under `pollster::block_on`.
//! Nothing here panics on a GPU failure, which comes back as a message.

use super::plan;
use super::procedure::{self, binds, Buf, Driver, Lab, Res, Stop, GROUPS, QUERY_PAIRS};
use super::reference;
use super::results::*;
use super::wgsl;
use adapter::limits_of;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The progress label while the adapter and device are opened (a failure there is
/// the run's only message).
pub use super::procedure::OPENING;
pub use adapter::{adapter, info_of, iso_date, iso_now, vendor_name};

mod adapter;

/// How the run was asked for.
pub struct Options<'a> {
    /// The small test size (seconds on a software driver).
    pub small: bool,
    /// Time with the wall clock even where timestamp queries exist.
    pub wall_clock: bool,
    /// (fraction done, what is running)
    pub progress: &'a dyn Fn(f64, &str),
}

/// A compiled kernel and its bind groups: 0 A0→B0, 1 A1→B1, 2 B0→B1, 3 B1→B0, 4 C→B0.
pub struct Kern {
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

/// This machine's GPU for one run, the procedure's [`Driver`]: the device and its
/// queue, the work buffers, the timestamp queries, what went wrong so far (the
/// page's counterpart is `gpu::web`'s `Rig`).
pub struct Wgpu<'o> {
    device: wgpu::Device,
    queue: wgpu::Queue,
    lost: Arc<Mutex<Option<String>>>,
    errors: Arc<Mutex<Vec<String>>>,
    a: [wgpu::Buffer; 2],
    b: [wgpu::Buffer; 2],
    /// The cache sweep's source (its working sets).
    c: wgpu::Buffer,
    uniform: wgpu::Buffer,
    staging: wgpu::Buffer,
    queries: Option<Queries>,
    opts: &'o Options<'o>,
    start: Instant,
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

impl Wgpu<'_> {
    fn buf(&self, b: Buf) -> &wgpu::Buffer {
        match b {
            Buf::A(i) => &self.a[i.min(1)],
            Buf::B(i) => &self.b[i.min(1)],
            Buf::C => &self.c,
        }
    }

    fn fail(&self, what: &str) -> Stop {
        match lock(&self.lost) {
            Some(m) => Stop::Lost(m),
            None => Stop::Error(what.to_string()),
        }
    }

    /// Block until the GPU has finished everything submitted.
    fn wait(&self) -> Res<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| self.fail(&format!("waiting for the GPU: {e}")))?;
        self.check()
    }

    fn encoder(&self) -> wgpu::CommandEncoder {
        self.device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default())
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
        let ticks: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
            .collect();
        procedure::spans(&ticks, q.period)
    }

    fn map_read(&self, buf: &wgpu::Buffer, bytes: u64) -> Res<Vec<u8>> {
        let (tx, rx) = mpsc::channel();
        buf.map_async(wgpu::MapMode::Read, 0..bytes, move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
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
}

impl Driver for Wgpu<'_> {
    type Kern = Kern;

    /// Compile `code`; errors come back as text.
    async fn compile(&self, code: &str, bind: bool) -> Result<Kern, String> {
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
        if let Some(e) = scope.pop().await {
            return Err(format!("shader: {e}"));
        }
        let mut groups = Vec::new();
        if bind {
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let layout = pipeline.get_bind_group_layout(0);
            for (src, dst) in GROUPS.map(|(s, d)| (self.buf(s), self.buf(d))) {
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
            if let Some(e) = scope.pop().await {
                return Err(format!("bind group: {e}"));
            }
        }
        Ok(Kern { pipeline, groups })
    }

    fn uniforms(&self, elements: u64) -> Res<()> {
        self.queue
            .write_buffer(&self.uniform, 0, &wgsl::uniform_bytes(elements));
        Ok(())
    }

    fn upload(&self, buf: Buf, offset: u64, bytes: &[u8]) -> Res<()> {
        self.queue.write_buffer(self.buf(buf), offset, bytes);
        Ok(())
    }

    async fn pass(&self, k: &Kern, seq: &[u8], grid: (u32, u32), slot: Option<u32>) -> Res<f64> {
        let mut enc = self.encoder();
        {
            let timestamp_writes = match (slot, &self.queries) {
                (Some(slot), Some(q)) => Some(wgpu::ComputePassTimestampWrites {
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
            pass.set_pipeline(&k.pipeline);
            for g in binds(seq) {
                if let Some(group) = g.and_then(|g| k.groups.get(g)) {
                    pass.set_bind_group(0, group, &[]);
                }
                pass.dispatch_workgroups(grid.0, grid.1, 1);
            }
        }
        let cb = enc.finish();
        let t0 = Instant::now();
        self.queue.submit([cb]);
        self.wait()?;
        Ok(t0.elapsed().as_secs_f64())
    }

    async fn timestamps(&self, pairs: u32) -> Res<f64> {
        self.read_timestamps(pairs)
    }

    async fn sample(&self, out: usize, dt: Dt, ranges: &[(u64, u64)]) -> Res<Vec<f32>> {
        let out = self.buf(Buf::B(out));
        let eb = dt.bytes();
        let mut enc = self.encoder();
        let mut off = 0u64;
        for &(start, len) in ranges {
            enc.copy_buffer_to_buffer(out, start * eb, &self.staging, off, len * eb);
            off += len * eb;
        }
        self.queue.submit([enc.finish()]);
        let bytes = self.map_read(&self.staging, off)?;
        Ok(match dt {
            Dt::F32 => bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            Dt::F16 => bytes
                .chunks_exact(2)
                .map(|b| reference::f16_bits_to_f32(u16::from_le_bytes([b[0], b[1]])))
                .collect(),
        })
    }

    async fn round_trip(&self) -> Res<f64> {
        let cb = self.encoder().finish();
        let t0 = Instant::now();
        self.queue.submit([cb]);
        self.wait()?;
        Ok(t0.elapsed().as_secs_f64())
    }

    fn record(&self, kern: &Kern, n: u32) {
        let mut enc = self.encoder();
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&kern.pipeline);
            for _ in 0..n {
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        let _ = enc.finish();
    }

    fn submit_one(&self, kern: &Kern) {
        let mut enc = self.encoder();
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&kern.pipeline);
            pass.dispatch_workgroups(1, 1, 1);
        }
        self.queue.submit([enc.finish()]);
    }

    async fn done(&self) -> Res<()> {
        self.wait()
    }

    fn now(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Nothing to let run: the native lab owns its thread.
    async fn yield_now(&self) {}

    fn check(&self) -> Res<()> {
        match lock(&self.lost) {
            Some(m) => Err(Stop::Lost(m)),
            None => Ok(()),
        }
    }

    fn errors_len(&self) -> usize {
        lock(&self.errors).len()
    }

    fn error_since(&self, n: usize) -> Option<String> {
        lock(&self.errors).get(n).cloned()
    }

    fn progress(&self, f: f64, label: &str) {
        (self.opts.progress)(f, label);
    }
}

/// Run the whole lab on this machine's adapter. `Err` when nothing could be
/// measured (no adapter, no device, limits too small, or a failure before the
/// first measurement); otherwise the run, complete or partial.
pub fn run(opts: &Options<'_>) -> Result<LabRun, String> {
    let (mut lab, mut run, dts) = setup(opts)?;
    let result = pollster::block_on(lab.sweep(&dts, &mut run, &|_| {}));
    for e in lock(&lab.driver.errors).iter().take(5) {
        run.notes.push(e.clone());
    }
    lab.driver.device.destroy();
    if result.is_ok() {
        (opts.progress)(1.0, "done");
    }
    procedure::settle(&mut run, result, "nothing was measured");
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
    let res = pollster::block_on(async {
        let d = &lab.driver;
        for &dt in &dts {
            lab.fill(dt).await?;
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
                let check = match d.compile(&code, true).await {
                    Ok(kern) => {
                        d.uniforms(m.elements)?;
                        let grid = lab.plan.grid(m.elements);
                        lab.verify(&kern, &m, grid, 1).await?
                    }
                    Err(e) => Check::Failed { detail: e },
                };
                out.push(((dt, r), check));
            }
        }
        Ok::<(), Stop>(())
    });
    lab.driver.device.destroy();
    match res {
        Ok(()) => Ok(out),
        Err(Stop::Lost(m) | Stop::Error(m)) => Err(m),
        Err(Stop::Cancelled) => Err("cancelled".into()),
    }
}

/// The cache sweep alone, at the small size (64 KiB … 64 MiB, timed and
/// verified like the page's): the run's record with its read measurements.
pub fn cache_sweep() -> Result<LabRun, String> {
    let quiet = |_: f64, _: &str| {};
    let opts = Options {
        small: true,
        wall_clock: false,
        progress: &quiet,
    };
    let (mut lab, mut run, _) = setup(&opts)?;
    let sizes = lab.plan.cache_sizes();
    let res = pollster::block_on(async {
        run.overheads.roundtrip = lab.measure_roundtrip().await?;
        lab.cache_sweep(&sizes, &mut run, &|_| {}).await
    });
    lab.driver.device.destroy();
    procedure::settle(&mut run, res, "nothing was measured");
    match run.outcome {
        Outcome::Complete => Ok(run),
        _ => Err(run.reason),
    }
}

/// Open the adapter and device and create the buffers: the procedure's [`Lab`], the
/// run's record so far (adapter, plan, notes) and the dtypes to sweep.
fn setup<'o>(opts: &'o Options<'o>) -> Result<(Lab<Wgpu<'o>>, LabRun, Vec<Dt>), String> {
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
    let mut run = procedure::begin(
        &info,
        &plan,
        opts.small,
        opts.wall_clock,
        iso_now(),
        "Interrupted during the run.",
    );
    let timer = run.timer;
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
        procedure::halve(&mut plan, &mut run.notes)?;
    };
    run.elements = plan.elements(Dt::F32);
    // the cache sweep's source, halved while the GPU runs out of memory
    let c = loop {
        let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let c = mk(plan.cache_bytes.max(16), usage);
        if pollster::block_on(scope.pop()).is_none() || plan.cache_bytes == 0 {
            break c;
        }
        c.destroy();
        procedure::halve_cache(&mut plan, &mut run.notes);
    };
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
    let dts = procedure::dtypes(&info);
    let driver = Wgpu {
        device,
        queue,
        lost,
        errors,
        a,
        b,
        c,
        uniform,
        staging,
        queries,
        opts,
        start: Instant::now(),
    };
    let lab = Lab::new(driver, plan, timer);
    Ok((lab, run, dts))
}
