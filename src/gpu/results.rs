//! What a lab run produces: plain data, exported and imported as JSON or CSV, with
//! the statistics every figure is derived from (median of trials, spread).

/// Storage and arithmetic precision of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dt {
    F32,
    F16,
}

impl Dt {
    pub const ALL: [Dt; 2] = [Dt::F32, Dt::F16];
    pub fn id(self) -> &'static str {
        match self {
            Dt::F32 => "f32",
            Dt::F16 => "f16",
        }
    }
    pub fn from_id(s: &str) -> Option<Dt> {
        Dt::ALL.into_iter().find(|d| d.id() == s)
    }
    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            Dt::F32 => 4,
            Dt::F16 => 2,
        }
    }
}

/// The pointwise op of a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `x = x * m`, one multiply (the essay's `x = x * 2`, with `m` close to 1 so
    /// a 1024-long chain stays finite).
    Mul,
    /// `x = cos(x)`, counted as one op (it costs many instructions).
    Cos,
    /// `x = fma(x, x, c)`: the compute ceiling. Each op needs the previous one's
    /// result squared, so no compiler can legally merge or drop ops (unlike the
    /// `x · m` chain, which a driver may reassociate into fewer multiplies). Counted
    /// as 2 FLOP per FMA, the datasheets' convention. Fused only (no eager sweep).
    Fma,
}

impl Op {
    pub const ALL: [Op; 3] = [Op::Mul, Op::Cos, Op::Fma];
    pub fn id(self) -> &'static str {
        match self {
            Op::Mul => "mul",
            Op::Cos => "cos",
            Op::Fma => "fma",
        }
    }
    /// FLOP per op: an FMA counts 2 (a multiply and an add), a multiply 1, and a
    /// `cos` 1 (one op, whatever it costs).
    pub fn flop(self) -> f64 {
        match self {
            Op::Fma => 2.0,
            Op::Mul | Op::Cos => 1.0,
        }
    }
    pub fn from_id(s: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.id() == s)
    }
    pub fn label(self) -> &'static str {
        match self {
            Op::Mul => "x = x · m",
            Op::Cos => "x = cos(x)",
            Op::Fma => "x = fma(x, x, c)",
        }
    }
}

/// Kernel family of a measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Read once, write once: the bandwidth probe.
    Copy,
    /// One kernel doing `repeat` ops per element.
    Fused,
    /// `repeat` kernels, each one op, each reading and writing the buffer.
    Eager,
    /// The cache sweep's read-mostly kernel: `repeat` passes over a working set of
    /// `elements` f32 values per run (a sum per invocation is the only write).
    Read,
}

impl Kernel {
    pub const ALL: [Kernel; 4] = [Kernel::Copy, Kernel::Fused, Kernel::Eager, Kernel::Read];
    pub fn id(self) -> &'static str {
        match self {
            Kernel::Copy => "copy",
            Kernel::Fused => "fused",
            Kernel::Eager => "eager",
            Kernel::Read => "read",
        }
    }
    pub fn from_id(s: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.id() == s)
    }
}

/// The verification of a variant against the CPU reference.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// Every sampled element within tolerance; `max_err` in the tolerance's units
    /// (absolute for `cos`, relative for `mul`, exact for `copy`).
    Passed { max_err: f64, samples: u64 },
    /// A sample out of tolerance, or the kernel could not run; never plotted.
    Failed { detail: String },
}

impl Check {
    pub fn passed(&self) -> bool {
        matches!(self, Check::Passed { .. })
    }
}

/// One measured variant.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    pub kernel: Kernel,
    /// `None` for the copy kernel.
    pub op: Option<Op>,
    pub dt: Dt,
    /// Ops per element (0 for copy).
    pub repeat: u32,
    /// Elements processed per run (may be below the plan's size for heavy
    /// variants, to respect the time budgets).
    pub elements: u64,
    /// Seconds per run (one fused kernel, one eager chain, one copy), per trial.
    pub times: Vec<f64>,
    pub check: Check,
    /// How many times the trials were taken again because they spread more than
    /// [`NOISY_SPREAD`] (the quietest set is kept in `times`); 0 for most.
    pub remeasured: u32,
}

/// Trials whose spread ((max − min) / median) exceeds this, i.e. ±10 % around the
/// median, are measured again (bounded, see `Plan::remeasure`) and, if still
/// that wide, marked noisy on the page and in the exports.
pub const NOISY_SPREAD: f64 = 0.2;

/// Trials spread wider than [`NOISY_SPREAD`].
/// A second set of trials replaces the first when its spread is smaller (or the
/// first has none): both drivers re-measure a noisy variant this way.
pub fn quieter(again: &[f64], now: &[f64]) -> bool {
    match (spread(again), spread(now)) {
        (Some(a), Some(b)) => a < b,
        (Some(_), None) => true,
        _ => false,
    }
}

pub fn noisy(times: &[f64]) -> bool {
    spread(times).is_some_and(|s| s > NOISY_SPREAD)
}

impl Measurement {
    /// Bytes moved to and from memory per run: every kernel reads and writes each
    /// element once; the read kernel reads its working set `repeat` times (its
    /// one sum per invocation, under 1/64 of that, is not counted).
    pub fn bytes(&self) -> f64 {
        let data = self.elements as f64 * self.dt.bytes() as f64;
        match self.kernel {
            Kernel::Copy | Kernel::Fused => 2.0 * data,
            Kernel::Eager => 2.0 * data * f64::from(self.repeat.max(1)),
            Kernel::Read => data * f64::from(self.repeat.max(1)),
        }
    }
    /// The working set of a read-kernel measurement in bytes (else the buffer).
    pub fn working_set(&self) -> f64 {
        self.elements as f64 * self.dt.bytes() as f64
    }
    /// Ops per run (one per element per op; 0 for copy and read).
    pub fn ops(&self) -> f64 {
        if self.op.is_none() {
            return 0.0;
        }
        self.elements as f64 * f64::from(self.repeat)
    }
    /// FLOP per run: ops × [`Op::flop`] (an FMA counts 2).
    pub fn flops(&self) -> f64 {
        self.ops() * self.op.map_or(0.0, Op::flop)
    }
    /// Ops per second (multiplies/s, cos/s or FMA/s), from the median time.
    pub fn achieved_ops(&self) -> Option<f64> {
        self.time().map(|t| self.ops() / t)
    }
    /// Kernels launched per run.
    pub fn kernels(&self) -> u32 {
        match self.kernel {
            Kernel::Eager => self.repeat.max(1),
            _ => 1,
        }
    }
    /// Arithmetic intensity, ops per byte.
    pub fn intensity(&self) -> f64 {
        self.flops() / self.bytes()
    }
    /// Median seconds per run.
    pub fn time(&self) -> Option<f64> {
        median(&self.times)
    }
    /// Median seconds per element (comparable across element counts).
    pub fn time_per_element(&self) -> Option<f64> {
        let t = self.time()?;
        (self.elements > 0).then(|| t / self.elements as f64)
    }
    pub fn achieved_bw(&self) -> Option<f64> {
        self.time().map(|t| self.bytes() / t)
    }
    pub fn achieved_flops(&self) -> Option<f64> {
        self.time().map(|t| self.flops() / t)
    }
    /// Its trials spread more than ±10 % around the median (see [`NOISY_SPREAD`]).
    /// The verdict once the trials are in (both drivers): a GPU error raised while
    /// it ran, or a timer that gave no usable span, fails the variant.
    pub fn settle(&mut self, gpu_error: Option<String>) {
        if let Some(detail) = gpu_error {
            self.check = Check::Failed { detail };
        }
        if self.times.iter().any(|t| !(t.is_finite() && *t > 0.0)) {
            self.check = Check::Failed {
                detail: "the timer returned no usable span (kernel shorter than its resolution)"
                    .into(),
            };
        }
    }

    pub fn noisy(&self) -> bool {
        noisy(&self.times)
    }
    /// A result that may be shown as a figure: verified, with usable timings.
    pub fn usable(&self) -> bool {
        self.check.passed() && self.time().is_some_and(|t| t.is_finite() && t > 0.0)
    }
}

/// Fixed costs, each a list of per-trial values in seconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overheads {
    /// GPU time per dispatch of an empty kernel, many recorded in one pass.
    pub dispatch: Vec<f64>,
    /// CPU time to record one dispatch (setPipeline + dispatchWorkgroups).
    pub encode: Vec<f64>,
    /// Wall time per `queue.submit` of a one-dispatch command buffer, many in a row.
    pub submit: Vec<f64>,
    /// Submit → `onSubmittedWorkDone` round trip of an empty command buffer.
    pub roundtrip: Vec<f64>,
}

/// The adapter as the browser describes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AdapterInfo {
    pub vendor: String,
    pub architecture: String,
    pub description: String,
    pub device: String,
    /// A software / fallback adapter (e.g. SwiftShader).
    pub fallback: bool,
    pub timestamps: bool,
    pub f16: bool,
    pub max_storage_binding: f64,
    pub max_buffer: f64,
    pub max_workgroups_per_dim: u32,
    pub max_invocations: u32,
}

impl AdapterInfo {
    /// "vendor architecture (description)", whichever parts the browser exposes.
    pub fn name(&self) -> String {
        let mut s = [self.vendor.as_str(), self.architecture.as_str()]
            .iter()
            .filter(|p| !p.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        let more = if self.description.is_empty() {
            &self.device
        } else {
            &self.description
        };
        if !more.is_empty() {
            if s.is_empty() {
                s = more.clone();
            } else {
                s = format!("{s} ({more})");
            }
        }
        if s.is_empty() {
            "unnamed adapter".into()
        } else {
            s
        }
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Complete,
    /// Stopped early by an error or a lost device; `reason` says why.
    Partial,
    /// Stopped by the user.
    Cancelled,
}

impl Outcome {
    pub const ALL: [Outcome; 3] = [Outcome::Complete, Outcome::Partial, Outcome::Cancelled];
    pub fn id(self) -> &'static str {
        match self {
            Outcome::Complete => "complete",
            Outcome::Partial => "partial",
            Outcome::Cancelled => "cancelled",
        }
    }
    pub fn from_id(s: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.id() == s)
    }
}

/// How kernels were timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// GPU timestamp queries at the start and end of each compute pass.
    Timestamps,
    /// `performance.now()` around `onSubmittedWorkDone`, minus the round trip.
    WallClock,
}

impl Timer {
    pub fn id(self) -> &'static str {
        match self {
            Timer::Timestamps => "timestamps",
            Timer::WallClock => "wallclock",
        }
    }
    pub fn from_id(s: &str) -> Option<Timer> {
        [Timer::Timestamps, Timer::WallClock]
            .into_iter()
            .find(|t| t.id() == s)
    }
}

/// A whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct LabRun {
    pub outcome: Outcome,
    /// Why the run is partial or cancelled; empty when complete.
    pub reason: String,
    /// When the run started (ISO 8601, from the browser).
    pub date: String,
    pub adapter: AdapterInfo,
    pub timer: Timer,
    /// The small test size (`?lab_size=small`).
    pub small: bool,
    /// Elements per buffer in the plan (the largest size any kernel used).
    pub elements: u64,
    pub notes: Vec<String>,
    pub overheads: Overheads,
    pub measurements: Vec<Measurement>,
}

impl LabRun {
    pub fn find(
        &self,
        kernel: Kernel,
        op: Option<Op>,
        dt: Dt,
        repeat: u32,
    ) -> Option<&Measurement> {
        self.measurements
            .iter()
            .find(|m| m.kernel == kernel && m.op == op && m.dt == dt && m.repeat == repeat)
    }
}

/// Insertion sort: our lists have a handful of items, and one tiny generic sort
/// keeps the .wasm smaller than the standard library's.
pub fn sort_small<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && less(&v[j], &v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// Median of finite values; `None` if there are none.
pub fn median(xs: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    sort_small(&mut v, |a, b| a < b);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Spread of the trials: (max − min) / median, e.g. 0.04 = the trials lie within
/// 4 % of the median's size. `None` without a positive median.
pub fn spread(xs: &[f64]) -> Option<f64> {
    let m = median(xs).filter(|m| *m > 0.0)?;
    let fin = xs.iter().copied().filter(|x| x.is_finite());
    let lo = fin.clone().fold(f64::INFINITY, f64::min);
    let hi = fin.fold(f64::NEG_INFINITY, f64::max);
    Some((hi - lo) / m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_spread() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN, 1.0]), Some(1.0));
        assert_eq!(spread(&[1.0, 1.1, 0.9]), Some((1.1 - 0.9) / 1.0));
        assert_eq!(spread(&[0.0, 0.0]), None);
        // ±10 % is the edge: 0.91…1.09 is not noisy, 0.89…1.11 is
        assert!(!noisy(&[0.91, 1.0, 1.09]));
        assert!(noisy(&[0.89, 1.0, 1.11]));
        assert!(!noisy(&[]));
    }

    #[test]
    fn traffic_and_work() {
        let m = Measurement {
            kernel: Kernel::Eager,
            op: Some(Op::Mul),
            dt: Dt::F32,
            repeat: 8,
            elements: 1000,
            times: vec![1e-3, 2e-3, 3e-3],
            check: Check::Passed {
                max_err: 0.0,
                samples: 10,
            },
            remeasured: 0,
        };
        assert_eq!(m.bytes(), 8.0 * 2.0 * 1000.0 * 4.0);
        assert_eq!(m.flops(), 8000.0);
        assert_eq!(m.kernels(), 8);
        assert_eq!(m.intensity(), 1.0 / 8.0);
        assert_eq!(m.time(), Some(2e-3));
        let fused = Measurement {
            kernel: Kernel::Fused,
            ..m.clone()
        };
        assert_eq!(fused.bytes(), 2.0 * 1000.0 * 4.0);
        assert_eq!(fused.intensity(), 1.0);
        assert!(fused.usable());
        let failed = Measurement {
            check: Check::Failed { detail: "x".into() },
            ..m
        };
        assert!(!failed.usable());
    }

    #[test]
    fn adapter_name() {
        let mut a = AdapterInfo::default();
        assert_eq!(a.name(), "unnamed adapter");
        a.vendor = "google".into();
        a.architecture = "swiftshader".into();
        assert_eq!(a.name(), "google swiftshader");
        a.description = "SwiftShader Device".into();
        assert_eq!(a.name(), "google swiftshader (SwiftShader Device)");
    }
}
