//! The lab's procedure, written once for both drivers: the submit round trip, one
//! variant's compile → verify → calibrate → time → re-measure, the fixed costs
//! (empty dispatch, recording, submit) and the sweep. It is async code over the
//! [`Driver`] trait, which says only how to talk to a GPU: `gpu::web` implements
//! it with web-sys's WebGPU (each await a promise, with yields to the page), and
//! `gpu::native` with the `wgpu` crate (blocking calls; `brrr-lab` runs the same
//! procedure under `pollster::block_on`, as wgpu's own examples run one async body
//! on both targets). Pure: no web-sys, no wgpu.
//!
//! How a variant is measured (the page's module docs, `gpu::web`, say why):
//! 1. its WGSL compiled inside a validation error scope (a shader error fails the
//!    variant, not the run);
//! 2. its element count from the time [`Predictor`] expects, so one dispatch stays
//!    under [`Plan::chunk_max_s`] and all trials under the variant budget;
//! 3. one run on the pristine input, a sample read back and compared with the CPU
//!    chain ([`reference`]); a failed check is recorded and the variant not timed;
//! 4. calibration (also the warm-up) until a trial lasts about
//!    [`Plan::chunk_target_s`];
//! 5. `trials` timed trials, alternating buffers, cut into submissions, each
//!    awaited, with a yield in between; timestamp queries per pass where the
//!    adapter has them, else the wall clock minus the measured round trip;
//! 6. trials spread more than ±10 % taken again (bounded), the quietest set kept,
//!    one still that wide marked noisy; the progress line says so meanwhile.

use super::plan::{self, Calibration, Plan, Predictor, EMPTY, READ_GROUP};
use super::reference::{self, Tolerance, Verdict};
use super::results::*;
use super::wgsl;

/// Query slots per read-back of timestamps (pairs: start and end of a pass).
pub const QUERY_PAIRS: u32 = 256;

/// The progress label while the adapter and device are opened.
pub const OPENING: &str = "opening the GPU";

/// Why a run stopped early.
#[derive(Debug)]
pub enum Stop {
    /// The page's Cancel (the native lab never cancels).
    Cancelled,
    /// The device was lost (driver reset, watchdog, `destroy()`); the message says why.
    Lost(String),
    Error(String),
}

pub type Res<T> = Result<T, Stop>;

/// What the procedure needs of a GPU: the calls that differ between WebGPU in the
/// page and wgpu natively. The driver owns the device, the four work buffers (A0,
/// A1 inputs; B0, B1 outputs), the uniform, the staging buffer and the timestamp
/// queries.
#[allow(async_fn_in_trait)] // one generic caller, never `dyn`, never sent to a thread
pub trait Driver {
    /// A compiled kernel and its bind groups: 0 A0→B0, 1 A1→B1, 2 B0→B1, 3 B1→B0.
    type Kern;
    /// Compile `code` (with the work buffers bound when `bind`); errors as text.
    async fn compile(&self, code: &str, bind: bool) -> Result<Self::Kern, String>;
    /// Set the element count (and the multiplier) for the next dispatches.
    fn uniforms(&self, elements: u64) -> Res<()>;
    /// Write `bytes` into input buffer `buf` (A0, A1 or C) at `offset` (queued:
    /// the next submission carries it).
    fn upload(&self, buf: Buf, offset: u64, bytes: &[u8]) -> Res<()>;
    /// One compute pass of `dispatches` (bind-group indices, [`EMPTY`] = keep),
    /// submitted and awaited; with `slot`, timestamps at its ends into that query
    /// pair. Returns the wall-clock seconds from submit to done.
    async fn pass(
        &self,
        kern: &Self::Kern,
        dispatches: &[u8],
        grid: (u32, u32),
        slot: Option<u32>,
    ) -> Res<f64>;
    /// The GPU seconds of the first `pairs` timestamped passes.
    async fn timestamps(&self, pairs: u32) -> Res<f64>;
    /// Copy `ranges` (element offset, count) of output buffer B`out` and read them back.
    async fn sample(&self, out: usize, dt: Dt, ranges: &[(u64, u64)]) -> Res<Vec<f32>>;
    /// An empty submission, awaited: its round trip in seconds.
    async fn round_trip(&self) -> Res<f64>;
    /// Record one pass of `n` one-workgroup dispatches of `kern`, never submitted.
    fn record(&self, kern: &Self::Kern, n: u32);
    /// Submit one command buffer of one dispatch of `kern`, not awaited.
    fn submit_one(&self, kern: &Self::Kern);
    /// Wait for everything submitted.
    async fn done(&self) -> Res<()>;
    /// Seconds on a monotonic clock.
    fn now(&self) -> f64;
    /// Let the page run (a task boundary); nothing natively.
    async fn yield_now(&self);
    /// `Err` once the device is lost or the run cancelled.
    fn check(&self) -> Res<()>;
    /// Uncaptured GPU errors so far; [`Driver::error_since`] the `n`-th.
    fn errors_len(&self) -> usize;
    fn error_since(&self, n: usize) -> Option<String>;
    /// (fraction done, what is running)
    fn progress(&self, f: f64, label: &str);
    /// A test knob: this variant's WGSL made invalid (the page's
    /// `window.__brrrLabBreakShader`).
    fn break_shader(&self, _kernel: Kernel, _op: Option<Op>, _repeat: u32) -> bool {
        false
    }
}

/// A work buffer: an input (A0, A1) or an output (B0, B1), or the cache sweep's
/// source C (`plan.cache_bytes`, the working sets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Buf {
    A(usize),
    B(usize),
    C,
}

/// The bind groups of every kernel, (input, output) by index: 0 A0→B0, 1 A1→B1,
/// 2 B0→B1, 3 B1→B0 (eager chains ping-pong between the outputs), 4 C→B0 (the
/// read kernel of the cache sweep).
pub const GROUPS: [(Buf, Buf); 5] = [
    (Buf::A(0), Buf::B(0)),
    (Buf::A(1), Buf::B(1)),
    (Buf::B(0), Buf::B(1)),
    (Buf::B(1), Buf::B(0)),
    (Buf::C, Buf::B(0)),
];

/// For each dispatch of a pass (bind-group indices, [`EMPTY`] = none), the bind
/// group to set before it, or `None` to keep the one set.
pub fn binds(dispatches: &[u8]) -> impl Iterator<Item = Option<usize>> + '_ {
    let mut bound = EMPTY;
    dispatches.iter().map(move |&g| {
        (g != bound && g != EMPTY).then(|| {
            bound = g;
            usize::from(g)
        })
    })
}

/// The GPU seconds of timestamp pairs (start, end ticks in turn) at
/// `ns_per_tick`; `Err` if one went backwards.
pub fn spans(ticks: &[u64], ns_per_tick: f64) -> Res<f64> {
    let mut sum = 0.0;
    for p in ticks.chunks_exact(2) {
        let (start, end) = (p[0], p[1]);
        if end < start {
            return Err(Stop::Error("GPU timestamps went backwards".into()));
        }
        sum += (end - start) as f64 * ns_per_tick * 1e-9;
    }
    Ok(sum)
}

/// The procedure's state over one run: the driver, the plan, the timer, the round
/// trip, what earlier variants predict, and the progress.
pub struct Lab<D: Driver> {
    pub driver: D,
    pub plan: Plan,
    pub timer: Timer,
    roundtrip: f64,
    pred: Predictor,
    /// Progress: steps done, steps total.
    step: (f64, f64),
    label: String,
}

impl<D: Driver> Lab<D> {
    pub fn new(driver: D, plan: Plan, timer: Timer) -> Self {
        Lab {
            driver,
            plan,
            timer,
            roundtrip: 0.0,
            pred: Predictor::default(),
            step: (0.0, 1.0),
            label: "measuring the submit round trip".into(),
        }
    }

    fn progress(&self, within: f64) {
        let (done, total) = self.step;
        let f = ((done + within.clamp(0.0, 1.0)) / total.max(1.0)).clamp(0.0, 1.0);
        self.driver.progress(f, &self.label);
    }

    fn step_done(&mut self) {
        self.step.0 += 1.0;
        self.progress(0.0);
    }

    /// Upload the input pattern in `dt` to A0 and A1, yielding every 16 MiB.
    pub async fn fill(&self, dt: Dt) -> Res<()> {
        for input in 0..2 {
            self.fill_buf(Buf::A(input), dt, self.plan.bytes).await?;
        }
        Ok(())
    }

    /// Upload the input pattern in `dt` to the first `size` bytes of `buf`.
    async fn fill_buf(&self, buf: Buf, dt: Dt, size: u64) -> Res<()> {
        let d = &self.driver;
        let bytes = reference::pattern_bytes(dt, size / dt.bytes());
        let mut off = 0u64;
        while off < size {
            let len = (size - off).min(bytes.len() as u64) as usize;
            d.upload(buf, off, &bytes[..len])?;
            off += len as u64;
            if off % (16 << 20) < len as u64 {
                d.yield_now().await;
                d.check()?;
            }
        }
        // an empty submission carries the writes; wait for them
        d.round_trip().await?;
        Ok(())
    }

    /// Run the dispatches `seq` of one kernel, cut into submissions of at most
    /// `per_submit`; returns the GPU seconds.
    pub async fn execute(
        &self,
        kern: &D::Kern,
        seq: &[u8],
        grid: (u32, u32),
        per_submit: u32,
    ) -> Res<f64> {
        let d = &self.driver;
        let mut total = 0.0;
        let mut slot = 0u32;
        let chunks: Vec<&[u8]> = seq.chunks(per_submit.max(1) as usize).collect();
        let n = chunks.len();
        for (c, chunk) in chunks.into_iter().enumerate() {
            d.check()?;
            let stamped = self.timer == Timer::Timestamps;
            let elapsed = d.pass(kern, chunk, grid, stamped.then_some(slot)).await?;
            slot += 1;
            if stamped {
                if slot == QUERY_PAIRS || c + 1 == n {
                    total += d.timestamps(slot).await?;
                    slot = 0;
                }
            } else {
                // The round trip is a median; on a busy machine one submission can
                // come back faster than it. Never credit it with more than half of
                // what was measured.
                let elapsed = elapsed.max(0.0);
                total += (elapsed - self.roundtrip).max(0.5 * elapsed);
            }
            d.yield_now().await;
        }
        d.check()?;
        Ok(total)
    }

    /// Median of 5 empty submit → done round trips (kept for the wall clock).
    pub async fn measure_roundtrip(&mut self) -> Res<Vec<f64>> {
        let mut v = Vec::new();
        for _ in 0..5 {
            self.driver.check()?;
            v.push(self.driver.round_trip().await?);
            self.driver.yield_now().await;
        }
        self.roundtrip = median(&v).unwrap_or(0.0);
        Ok(v)
    }

    /// Verify run 0's output against the CPU chain on a sample.
    pub async fn verify(
        &self,
        kern: &D::Kern,
        m: &Measurement,
        grid: (u32, u32),
        per_submit: u32,
    ) -> Res<Check> {
        let d = &self.driver;
        if m.kernel == Kernel::Read {
            return self.verify_read(kern, m, grid).await;
        }
        let seq = plan::dispatch_sequence(m.kernel, m.repeat, 0, 1);
        self.execute(kern, &seq, grid, per_submit).await?;
        let out = match m.kernel {
            Kernel::Eager => ((m.repeat.max(1) - 1) % 2) as usize,
            _ => 0,
        };
        let ranges = plan::sample_ranges(m.elements);
        let got = d.sample(out, m.dt, &ranges).await?;
        let idx: Vec<u64> = ranges.iter().flat_map(|&(s, l)| s..s + l).collect();
        // the CPU chain, in slices, yielding so the page stays responsive
        let mut v = Verdict::default();
        let slice = (65536 / m.repeat.max(1) as usize).clamp(64, 8192);
        let mut t = d.now();
        for (i, g) in idx.chunks(slice).zip(got.chunks(slice)) {
            v.add(m.op, m.dt, m.repeat, i, g);
            if d.now() - t > 0.008 {
                d.yield_now().await;
                d.check()?;
                t = d.now();
            }
        }
        Ok(v.into_check(Tolerance::for_variant(m.op, m.dt, m.repeat)))
    }

    /// Verify one run of the read kernel: its stored sums against the CPU's walk
    /// ([`reference::read_sum`]) on a sample of the output.
    async fn verify_read(&self, kern: &D::Kern, m: &Measurement, grid: (u32, u32)) -> Res<Check> {
        let d = &self.driver;
        let (threads, reads) = self.plan.read_shape(m.elements, m.repeat);
        self.execute(kern, &[READ_GROUP], grid, 1).await?;
        let ranges = plan::sample_ranges(4 * threads);
        let got = d.sample(0, Dt::F32, &ranges).await?;
        let tol = reference::read_tolerance(reads);
        let mut v = Verdict::default();
        let mut t = d.now();
        let idx = ranges.iter().flat_map(|&(s, l)| s..s + l);
        for (e, &g) in idx.zip(&got) {
            let want = reference::read_sum(e, m.elements / 4, threads, reads, self.plan.wg);
            v.push(e, want as f32, g, tol);
            if e % 256 == 0 && d.now() - t > 0.008 {
                d.yield_now().await;
                d.check()?;
                t = d.now();
            }
        }
        Ok(v.into_check(tol))
    }

    /// Time `runs` runs per trial; returns seconds per run.
    async fn trial(
        &self,
        kern: &D::Kern,
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
    pub async fn measure(
        &mut self,
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
        let predicted = self.pred.predict(kernel, op, dt, repeat);
        let elements = self.plan.elements_for(dt, predicted, dispatches);
        // eager runs `repeat` kernels of one op each; fused one kernel of `repeat` ops
        let ops = if kernel == Kernel::Eager { 1 } else { repeat };
        let code = wgsl::elementwise(dt, op, ops, self.plan.wg);
        self.run_variant(
            new_measurement(kernel, op, dt, repeat, elements),
            code,
            dispatches,
        )
        .await
    }

    /// Measure the read kernel over a working set of `ws` bytes (the cache sweep),
    /// with [`Plan::read_passes`] passes per run.
    pub async fn measure_read(&mut self, ws: u64) -> Res<Measurement> {
        let passes = self.plan.read_passes(ws);
        let m = new_measurement(Kernel::Read, None, Dt::F32, passes, ws / 4);
        let (threads, reads) = self.plan.read_shape(m.elements, passes);
        let code = wgsl::read(self.plan.wg, threads, reads);
        self.run_variant(m, code, 1).await
    }

    /// The grid of a variant: one invocation per vec4, or the read kernel's.
    fn grid_of(&self, m: &Measurement) -> (u32, u32) {
        match m.kernel {
            Kernel::Read => self
                .plan
                .grid(4 * self.plan.read_shape(m.elements, m.repeat).0),
            _ => self.plan.grid(m.elements),
        }
    }

    /// Compile, verify, calibrate, time and re-measure one variant (see the
    /// module docs).
    async fn run_variant(
        &mut self,
        mut m: Measurement,
        mut code: String,
        dispatches: u32,
    ) -> Res<Measurement> {
        let (kernel, op, dt, repeat) = (m.kernel, m.op, m.dt, m.repeat);
        let predict = |lab: &Self| lab.pred.predict(kernel, op, dt, repeat);
        let errors_before = self.driver.errors_len();
        if self.driver.break_shader(kernel, op, repeat) {
            code.push_str("\nnot WGSL");
        }
        let kern = match self.driver.compile(&code, true).await {
            Ok(k) => k,
            Err(e) => {
                self.driver.check()?; // a lost device is not this variant's fault
                m.check = Check::Failed { detail: e };
                return Ok(m);
            }
        };
        self.driver.uniforms(m.elements)?;
        let mut grid = self.grid_of(&m);
        let per_submit = self
            .plan
            .dispatches_per_submit(predict(self) * m.elements as f64);
        m.check = self.verify(&kern, &m, grid, per_submit).await?;
        self.progress(0.2);
        if let Some(e) = self.driver.error_since(errors_before) {
            m.check = Check::Failed { detail: e };
        }
        if !m.check.passed() {
            return Ok(m);
        }
        // calibrate (and warm up): grow the runs per trial until a trial is long
        // enough to time well
        let mut runs = 1u32;
        let mut per_run = loop {
            let per_submit = self
                .plan
                .dispatches_per_submit(predict(self) * m.elements as f64);
            let t = self.trial(&kern, &m, grid, runs, per_submit).await?;
            // a working set is never shrunk: it is what the cache sweep measures
            let shrinkable = match kernel {
                Kernel::Read => self.plan.min_elements,
                _ => m.elements,
            };
            match self.plan.calibrate(dt, t, runs, shrinkable, dispatches) {
                // a dispatch far over budget (a slow GPU): shrink before timing
                Calibration::Shrink(n) => {
                    m.elements = n;
                    self.driver.uniforms(n)?;
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
        // quietest set; one still that wide is marked noisy (`Measurement::noisy`)
        let base = self.label.clone();
        while m.noisy() && m.remeasured < self.plan.remeasure {
            m.remeasured += 1;
            self.label = format!(
                "{base}, measuring again: trials spread {}",
                super::table::spread_text(&m.times)
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
        self.label = base;
        m.settle(self.driver.error_since(errors_before));
        self.pred.learn(&m);
        Ok(m)
    }

    /// GPU time per empty dispatch, CPU time to record one, and cost per submit.
    pub async fn overheads(&self, o: &mut Overheads) -> Res<()> {
        let d = &self.driver;
        let kern = d
            .compile(&wgsl::empty(), false)
            .await
            .map_err(Stop::Error)?;
        let grid = (1, 1);
        // calibrate dispatches per trial
        let mut k = 64u32;
        loop {
            let t = self
                .execute(&kern, &vec![EMPTY; k as usize], grid, 8192)
                .await?;
            if t >= self.plan.chunk_target_s / 2.0 || k >= 8192 {
                break;
            }
            k = (k * 4).min(8192);
        }
        self.progress(0.3);
        for _ in 0..self.plan.trials {
            let t = self
                .execute(&kern, &vec![EMPTY; k as usize], grid, 8192)
                .await?;
            o.dispatch.push(t / f64::from(k));
            // recording alone, timed over enough dispatches for a coarse clock
            // (performance.now(): 100 µs in most browsers); never submitted
            let (t0, mut n) = (d.now(), 0u32);
            while d.now() - t0 < 0.01 && n < 1 << 20 {
                d.record(&kern, 1024);
                n += 1024;
            }
            o.encode.push((d.now() - t0) / f64::from(n));
            d.yield_now().await;
        }
        self.progress(0.6);
        // submits: many one-dispatch command buffers in a row, then one wait
        let submits = 100;
        for _ in 0..self.plan.trials {
            d.check()?;
            let t0 = d.now();
            for _ in 0..submits {
                d.submit_one(&kern);
            }
            // the CPU time to issue them is a floor: the round-trip median can
            // exceed one noisy wait and would leave nothing
            let issued = d.now() - t0;
            d.done().await?;
            let t = (d.now() - t0 - self.roundtrip).max(issued).max(0.0);
            o.submit.push(t / f64::from(submits));
            d.yield_now().await;
        }
        Ok(())
    }

    /// The whole sweep: the round trip, then per dtype the copy kernel (probed at
    /// the smallest size first, to predict the full size), the overheads (f32), and
    /// `plan::sweep`'s variants; `update` after every measurement.
    pub async fn sweep(
        &mut self,
        dts: &[Dt],
        run: &mut LabRun,
        update: &dyn Fn(&LabRun),
    ) -> Res<()> {
        let sweep = plan::sweep();
        let cache = self.plan.cache_sizes();
        // steps: setup, copy (per dtype), overheads, the sweep per dtype, the cache
        // sweep's working sets
        self.step = (
            0.0,
            2.0 + dts.len() as f64 * (1.0 + sweep.len() as f64) + cache.len() as f64,
        );
        self.label = "measuring the submit round trip".into();
        self.progress(0.0);
        run.overheads.roundtrip = self.measure_roundtrip().await?;
        self.step_done();
        for &dt in dts {
            self.fill(dt).await?;
            self.label = format!("copy bandwidth ({})", dt.id());
            self.progress(0.0);
            // probe at the smallest size to predict the full-size copy
            self.pred.forget_copy(dt);
            let full = self.plan.clone();
            self.plan = Plan {
                bytes: full.min_elements.min(full.elements(dt)) * dt.bytes(),
                remeasure: 0, // only a prediction: never measured again
                ..full.clone()
            };
            let probe = self.measure(Kernel::Copy, None, dt, 0).await;
            self.plan = full;
            let probe = probe?;
            self.pred.learn(&probe);
            let m = self.measure(Kernel::Copy, None, dt, 0).await?;
            run.measurements.push(m);
            update(run);
            self.step_done();
            if dt == Dt::F32 {
                self.label = "dispatch and submit overhead".into();
                self.progress(0.0);
                self.overheads(&mut run.overheads).await?;
                update(run);
                self.step_done();
            }
            for &(kernel, op, r) in &sweep {
                self.label = format!("{} {} ×{} ({})", kernel.id(), op.id(), r, dt.id());
                self.progress(0.0);
                let m = self.measure(kernel, Some(op), dt, r).await?;
                run.measurements.push(m);
                update(run);
                self.step_done();
            }
        }
        self.cache_sweep(&cache, run, update).await
    }

    /// The cache sweep: the read kernel over each working set of `sizes` (bytes,
    /// ascending), after filling the source C with the input pattern.
    pub async fn cache_sweep(
        &mut self,
        sizes: &[u64],
        run: &mut LabRun,
        update: &dyn Fn(&LabRun),
    ) -> Res<()> {
        let Some(&top) = sizes.last() else {
            return Ok(());
        };
        self.label = "cache sweep: filling the working set".into();
        self.progress(0.0);
        self.fill_buf(Buf::C, Dt::F32, top).await?;
        for &ws in sizes {
            self.label = format!("cache sweep: read {}", plan::size_text(ws as f64));
            self.progress(0.0);
            let m = self.measure_read(ws).await?;
            run.measurements.push(m);
            update(run);
            self.step_done();
        }
        Ok(())
    }
}

/// A measurement not yet run.
fn new_measurement(
    kernel: Kernel,
    op: Option<Op>,
    dt: Dt,
    repeat: u32,
    elements: u64,
) -> Measurement {
    Measurement {
        kernel,
        op,
        dt,
        repeat,
        elements,
        times: Vec::new(),
        check: Check::Failed {
            detail: "not run".into(),
        },
        remeasured: 0,
    }
}

/// The work buffers did not fit (out of memory): halve them, keeping whole
/// workgroups of vec4s, with a note; `Err` below [`plan::MIN_BYTES`].
pub fn halve(plan: &mut Plan, notes: &mut Vec<String>) -> Result<(), String> {
    let half = plan.bytes / 2 / (16 * u64::from(plan.wg)) * (16 * u64::from(plan.wg));
    if (half as f64) < plan::MIN_BYTES {
        return Err("the GPU is out of memory even for small buffers".into());
    }
    plan.bytes = half;
    notes.push(format!(
        "Out of GPU memory at the planned size; using {} per buffer.",
        plan::size_text(half as f64)
    ));
    Ok(())
}

/// The cache sweep's source did not fit (out of memory): halve its largest
/// working set, with a note; below [`plan::CACHE_MIN`] there is no cache sweep
/// (`cache_bytes` = 0).
pub fn halve_cache(plan: &mut Plan, notes: &mut Vec<String>) {
    let half = plan.cache_bytes / 2 / 4096 * 4096;
    if half < plan::CACHE_MIN {
        plan.cache_bytes = 0;
        notes.push("Out of GPU memory for the cache sweep's working sets: no cache sweep.".into());
        return;
    }
    plan.cache_bytes = half;
    notes.push(format!(
        "Out of GPU memory for the cache sweep's largest working set; it stops at {}.",
        plan::size_text(half as f64)
    ));
}

/// A run's record before its first measurement: partial until it ends (`reason`
/// says why if it never does), timed with timestamp queries where the adapter has
/// them and `wall_clock` was not asked for.
pub fn begin(
    info: &AdapterInfo,
    plan: &Plan,
    small: bool,
    wall_clock: bool,
    date: String,
    reason: &str,
) -> LabRun {
    LabRun {
        outcome: Outcome::Partial,
        reason: reason.into(),
        date,
        adapter: info.clone(),
        timer: if info.timestamps && !wall_clock {
            Timer::Timestamps
        } else {
            Timer::WallClock
        },
        small,
        elements: plan.elements(Dt::F32),
        notes: plan.notes.clone(),
        overheads: Overheads::default(),
        measurements: Vec::new(),
    }
}

/// The dtypes a run sweeps: f32, and f16 where the adapter has `shader-f16`.
pub fn dtypes(adapter: &AdapterInfo) -> Vec<Dt> {
    if adapter.f16 {
        vec![Dt::F32, Dt::F16]
    } else {
        vec![Dt::F32]
    }
}

/// How a run ended, in its record: the outcome and the reason in words;
/// `nothing` says what a run that measured nothing leaves behind.
pub fn settle(run: &mut LabRun, result: Res<()>, nothing: &str) {
    let kept = if run.measurements.is_empty() {
        nothing
    } else {
        "the results so far are kept, marked partial"
    };
    match result {
        Ok(()) => {
            run.outcome = Outcome::Complete;
            run.reason.clear();
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
}
