//! Streaming parse of Kineto / `torch.profiler` Chrome-trace JSON
//! (`{"traceEvents": [...], "deviceProperties": [...], "distributedInfo": {...}}`).
//!
//! The document is never built: serde_json's `Deserializer` drives visitors over
//! the top-level object and over `traceEvents` one event at a time, and each event
//! is reduced at once to what the analysis needs ([`Trace`]). Names and categories
//! are interned, so a trace of any size costs memory in proportion to its GPU
//! events and launch calls, not to its bytes.
//!
//! Defensive by design: any JSON value is accepted where an event or a field is
//! expected (a number where a string was due, `ts` as an integer, a float or a
//! numeric string, an event that is not an object, missing `args`), and the few
//! ways a file can be unusable are [`TraceError`]s, never panics.
//!
//! What is kept mirrors HTA 0.5.0's parser (`hta/common/trace_parser.py`, JSON
//! backend), so [`mod@super::breakdown`] can reproduce its numbers:
//! - events without `dur` or `cat` (flows, instants, metadata) and `cat == "Trace"`
//!   are dropped (`_compress_df`);
//! - `stream` is `args.stream` converted as Python's `int()` would (an integer, a
//!   float truncated, a decimal string; anything else, e.g. `"0x0"`, is -1);
//!   `correlation` is `args.correlation`, -1 when absent;
//! - if any event's `ts` is a float (or missing), HTA rounds every event to whole
//!   microseconds (`round_down_time_stamps`); [`Trace::float_ts`] records that.

use super::shapes::OpShape;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;
use std::io::{self, BufReader, Read};

/// Why a file could not be analysed. Every message is one line.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceError {
    /// Zero bytes, or only white space.
    Empty,
    /// Not JSON: the parser's message with its line and column.
    NotJson {
        line: usize,
        column: usize,
        message: String,
    },
    /// The JSON stops before the document ends (a cut-off download or copy).
    Truncated { bytes: u64 },
    /// JSON, but not a trace (e.g. the top level is a number or a string).
    NotATrace(String),
    /// A JSON object without a `traceEvents` array.
    NoTraceEvents,
    /// A trace whose events include no GPU activity (a CPU-only profile).
    NoGpuEvents,
    /// The progress callback asked to stop.
    Cancelled,
    /// Reading failed (including a bad gzip stream).
    Io(String),
    /// The file's name ends in `.gz` but it does not start as gzip data does,
    /// and it is not a trace as it stands either (the parse error).
    NotGzip(String),
    /// Gzip data that would not decompress (corrupt or cut short).
    BadGzip,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Empty => write!(f, "the file is empty"),
            TraceError::NotJson { line, column, message } => {
                write!(f, "not JSON (line {line}, column {column}): {message}")
            }
            TraceError::Truncated { bytes } => {
                write!(f, "the JSON is truncated: it ends after {bytes} bytes, mid-document")
            }
            TraceError::NotATrace(why) => write!(f, "not a Chrome/Kineto trace: {why}"),
            TraceError::NoTraceEvents => {
                write!(f, "not a Chrome/Kineto trace: the object has no \"traceEvents\" array")
            }
            TraceError::NoGpuEvents => write!(
                f,
                "no GPU events (kernels, memcpy, memset): a CPU-only profile has no GPU timeline to break down"
            ),
            TraceError::Cancelled => write!(f, "cancelled"),
            TraceError::Io(e) => write!(f, "read error: {e}"),
            TraceError::NotGzip(e) => write!(
                f,
                "this file ends in .gz but is not gzip data (it does not start with gzip's two magic bytes), and read as it stands: {e}"
            ),
            TraceError::BadGzip => write!(
                f,
                "this file is gzip data that would not decompress: it is corrupt or cut short (the file was read here; nothing was fetched)"
            ),
        }
    }
}

impl std::error::Error for TraceError {}

/// One GPU-side event as HTA sees it: an event (with `dur` and `cat`) whose
/// converted `stream` is not -1.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuEvent {
    /// Start and duration as written, µs (HTA's rounding is applied in analysis).
    pub ts: f64,
    pub dur: f64,
    /// Interned name and category ([`Trace::names`]).
    pub name: u32,
    pub cat: u32,
    pub stream: i64,
    pub correlation: i64,
    pub external_id: i64,
    /// `args.device`, else the event's integer `pid`, else -1.
    pub device: i64,
    /// HTA's `GPUKernelFilter`: `stream >= 0 && correlation >= 0`, or the name is
    /// `Event Sync` / `Context Sync`. Only these are subject to the ProfilerStep
    /// rule's correlation match; the others are filtered like CPU events.
    pub hta_gpu: bool,
    /// The kernel's launch grid (`args.grid`: CTAs along x, y, z; zeros where
    /// the trace has none), which [`super::launch`] classes a kernel linked to
    /// no op by.
    pub grid: [u32; 3],
}

impl GpuEvent {
    /// (start, end) as written, µs: brrr's own per-step figures use these (HTA's
    /// whole-µs rounding, [`super::breakdown::hta_times`], would take up to a µs
    /// off every kernel).
    pub fn span(&self) -> (f64, f64) {
        (self.ts, self.ts + self.dur.max(0.0))
    }
}

/// What the CPU side says about one correlation id.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuCorrelation {
    /// Earliest `ts` (as written) of a CPU-side event with this correlation
    /// (HTA's ProfilerStep rule keeps a kernel if such an event precedes the last
    /// step).
    pub min_ts: f64,
    /// The launch call (`cuda_runtime` / `cuda_driver` category): start and
    /// duration as written, µs.
    pub launch: Option<(f64, f64)>,
    /// The launch call's thread (`tid`; -1 if not an integer).
    pub launch_tid: i64,
    /// The launch call's interned name (meaningful with `launch`).
    pub launch_name: u32,
}

/// An aten op whose cost its shapes give ([`super::shapes::cost`]): where it
/// ran on the CPU and its cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapedOp {
    /// Interned op name ([`Trace::names`]).
    pub name: u32,
    pub kind: super::shapes::OpKind,
    /// The first tensor input's dtype id ([`super::shapes::dtype_id`]).
    pub dtype: Option<&'static str>,
    pub external_id: i64,
    pub tid: i64,
    /// Start and end as written, µs.
    pub ts: f64,
    pub end: f64,
    pub flops: f64,
    pub bytes: f64,
}

/// A GPU from `deviceProperties`.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    pub id: i64,
    pub name: String,
    /// `totalGlobalMem`, bytes, when given.
    pub memory: Option<f64>,
}

/// What the analysis needs from one trace file (one rank).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// `distributedInfo.rank`.
    pub rank: Option<i64>,
    pub devices: Vec<DeviceInfo>,
    /// Interned strings: every kept event's name and category.
    pub names: Vec<String>,
    pub gpu: Vec<GpuEvent>,
    /// CPU-side events by correlation id (HTA's `CPUOperatorFilter` side).
    pub cpu: HashMap<i64, CpuCorrelation>,
    /// Distinct names/categories that contain `ProfilerStep` (HTA counts symbols).
    pub step_symbols: usize,
    /// Latest `ts` (as written) of a CPU-side event named `…ProfilerStep…`.
    pub last_step_ts: Option<f64>,
    /// Some event's `ts` is a float or missing: HTA rounds all times to whole µs.
    pub float_ts: bool,
    /// Every element of `traceEvents`.
    pub events: u64,
    /// Bytes read from the input.
    pub bytes: u64,
    /// Aten ops with shapes whose FLOPs/bytes [`super::shapes::cost`] knows
    /// (computed while parsing: the shapes themselves are not kept), sorted by
    /// (tid, ts).
    pub ops: Vec<ShapedOp>,
    /// Host waits on the GPU, as (start, end) on the trace's clock: runtime or
    /// driver calls named `…Synchronize` (cudaDeviceSynchronize,
    /// cudaStreamSynchronize, cudaEventSynchronize, hipDeviceSynchronize, …),
    /// sorted by end. Work launched after one cannot be fused with work before it.
    pub host_syncs: Vec<(f64, f64)>,
    /// `ProfilerStep#N` annotations, CPU (`user_annotation`) and GPU
    /// (`gpu_user_annotation`), in file order ([`StepMark`]).
    pub step_marks: Vec<StepMark>,
    /// Graph launches (`cudaGraphLaunch`, `hipGraphLaunch`): (start, end) of each
    /// call, as written. Kernels launched by one were replayed from a CUDA graph.
    pub graph_launches: Vec<(f64, f64)>,
    /// The run went through `torch.compile`: a `Torch-Compiled Region` or
    /// `CompiledFxGraph` annotation, or a kernel Inductor generated (`triton_…`).
    pub compiled: bool,
    /// Some aten op recorded `Input Dims` (`record_shapes=True`).
    pub shapes_recorded: bool,
    /// The CPU events the profiler recorded one by one (aten ops and runtime
    /// or driver calls), sorted by start: what [`super::profiler`] estimates
    /// the profiler's own cost from.
    pub cpu_spans: Vec<CpuSpan>,
}

/// One recorded CPU event: an aten op or a runtime/driver call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuSpan {
    pub tid: i64,
    /// Start and end as written, µs.
    pub ts: f64,
    pub end: f64,
    /// An aten op (`aten::…`), not a runtime or driver call.
    pub aten: bool,
}

/// One `ProfilerStep#N` annotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepMark {
    /// N.
    pub number: i64,
    /// The GPU-side annotation (`gpu_user_annotation`), else the CPU's.
    pub gpu: bool,
    /// Start and duration as written, µs.
    pub ts: f64,
    pub dur: f64,
}

/// N of a name `ProfilerStep#N`.
pub fn step_number(name: &str) -> Option<i64> {
    name.strip_prefix("ProfilerStep#")?.trim().parse().ok()
}

impl Trace {
    /// The interned string `id` ("" for an unknown id).
    pub fn name(&self, id: u32) -> &str {
        self.names
            .get(id as usize)
            .map(String::as_str)
            .unwrap_or("")
    }
}

/// Progress is reported at most once per this many bytes (and once at the end).
pub const PROGRESS_EVERY: u64 = 1 << 20;

/// Parses a trace from `reader` (any size: it streams). `progress` is called with
/// the bytes read so far, about every [`PROGRESS_EVERY`] bytes and once at the
/// end; returning `false` cancels ([`TraceError::Cancelled`]).
pub fn parse<R: Read>(
    reader: R,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Trace, TraceError> {
    let cancelled = Cell::new(false);
    let count = Cell::new(0u64);
    let content = Cell::new(false);
    let counting = Counting {
        inner: reader,
        count: &count,
        content: &content,
        next_report: PROGRESS_EVERY,
        progress,
        cancelled: &cancelled,
    };
    let mut de = serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 16, counting));
    let mut b = Builder::default();
    let result = TopSeed { b: &mut b }
        .deserialize(&mut de)
        .and_then(|found| de.end().map(|()| found));
    drop(de);
    let bytes = count.get();
    match result {
        Err(_) if cancelled.get() => Err(TraceError::Cancelled),
        Err(e) if e.is_eof() && !content.get() => Err(TraceError::Empty),
        Err(e) => Err(classify(e, bytes)),
        Ok(false) => Err(TraceError::NoTraceEvents),
        Ok(true) => {
            let mut t = b.finish();
            t.bytes = bytes;
            Ok(t)
        }
    }
}

fn classify(e: serde_json::Error, bytes: u64) -> TraceError {
    use serde_json::error::Category;
    match e.classify() {
        Category::Eof => TraceError::Truncated { bytes },
        Category::Io => TraceError::Io(one_line(&e.to_string())),
        Category::Syntax => TraceError::NotJson {
            line: e.line(),
            column: e.column(),
            message: one_line(&syntax_message(&e)),
        },
        Category::Data => TraceError::NotATrace(one_line(&syntax_message(&e))),
    }
}

/// serde_json's message without its " at line L column C" tail.
fn syntax_message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

struct Counting<'a, R> {
    inner: R,
    count: &'a Cell<u64>,
    /// Whether a byte other than JSON white space has been read.
    content: &'a Cell<bool>,
    next_report: u64,
    progress: &'a mut dyn FnMut(u64) -> bool,
    cancelled: &'a Cell<bool>,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let total = self.count.get() + n as u64;
        self.count.set(total);
        if !self.content.get()
            && buf
                .get(..n)
                .unwrap_or_default()
                .iter()
                .any(|c| !matches!(c, b' ' | b'\n' | b'\r' | b'\t'))
        {
            self.content.set(true);
        }
        if total >= self.next_report || n == 0 {
            self.next_report = total + PROGRESS_EVERY;
            if !(self.progress)(total) {
                self.cancelled.set(true);
                return Err(io::Error::other("cancelled"));
            }
        }
        Ok(n)
    }
}

// ---------------------------------------------------------------------------
// What each event is reduced to while parsing.

#[derive(Default)]
struct Interner {
    map: HashMap<String, u32>,
    names: Vec<String>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.map.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s.to_owned());
        self.map.insert(s.to_owned(), i);
        i
    }
}

/// Per-interned-string facts, computed once per distinct string.
#[derive(Clone, Copy, Default)]
struct Facts {
    step: bool,
    sync: bool,
    host_sync: bool,
    launch_cat: bool,
    trace_cat: bool,
    shaped: bool,
    graph_launch: bool,
    compiled: bool,
    gpu_annotation: bool,
    aten: bool,
}

#[derive(Default)]
struct Builder {
    strings: Interner,
    facts: Vec<Facts>,
    /// Strings (names or categories of kept events) that contain ProfilerStep.
    step_ids: HashSet<u32>,
    gpu: Vec<GpuEvent>,
    cpu: HashMap<i64, CpuCorrelation>,
    last_step_ts: Option<f64>,
    float_ts: bool,
    events: u64,
    rank: Option<i64>,
    devices: Vec<DeviceInfo>,
    ops: Vec<ShapedOp>,
    host_syncs: Vec<(f64, f64)>,
    step_marks: Vec<StepMark>,
    graph_launches: Vec<(f64, f64)>,
    compiled: bool,
    shapes_recorded: bool,
    cpu_spans: Vec<CpuSpan>,
}

impl Builder {
    fn intern(&mut self, s: &str) -> u32 {
        let id = self.strings.id(s);
        if id as usize == self.facts.len() {
            self.facts.push(Facts {
                step: s.contains("ProfilerStep"),
                sync: s == "Event Sync" || s == "Context Sync",
                host_sync: s.contains("Synchronize"),
                launch_cat: s == "cuda_runtime"
                    || s == "cuda_driver"
                    || s.contains("runtime")
                    || s.contains("driver"),
                trace_cat: s == "Trace",
                shaped: super::shapes::op_kind(s).is_some(),
                graph_launch: s.contains("GraphLaunch"),
                compiled: s.starts_with("Torch-Compiled Region")
                    || s.contains("CompiledFxGraph")
                    || s.starts_with("triton_"),
                gpu_annotation: s == "gpu_user_annotation",
                aten: s.starts_with("aten::"),
            });
        }
        id
    }

    fn facts(&self, id: u32) -> Facts {
        self.facts.get(id as usize).copied().unwrap_or_default()
    }

    fn push(&mut self, e: RawEvent) {
        self.events += 1;
        if !matches!(e.ts, Some(Scalar::Int(_))) {
            // a float, a missing or a non-numeric ts makes pandas' ts column float64
            self.float_ts = true;
        }
        let (Some(cat), Some(dur)) = (e.cat, e.dur.as_ref().and_then(Scalar::as_f64)) else {
            return;
        };
        let Some(ts) = e.ts.as_ref().and_then(Scalar::as_f64) else {
            return;
        };
        if !ts.is_finite() || !dur.is_finite() {
            return;
        }
        let name = e.name.unwrap_or_else(|| self.intern(""));
        let (cf, nf) = (self.facts(cat), self.facts(name));
        if cf.trace_cat {
            return;
        }
        for (id, f) in [(cat, cf), (name, nf)] {
            if f.step {
                self.step_ids.insert(id);
            }
        }
        if nf.step {
            if let Some(number) = step_number(
                self.strings
                    .names
                    .get(name as usize)
                    .map_or("", String::as_str),
            ) {
                self.step_marks.push(StepMark {
                    number,
                    gpu: cf.gpu_annotation,
                    ts,
                    dur,
                });
            }
        }
        self.compiled |= nf.compiled;
        let a = e.args.unwrap_or_default();
        let stream = a.stream.as_ref().map_or(-1, Scalar::python_int);
        let correlation = a.correlation.as_ref().map_or(-1, Scalar::as_id);
        let hta_gpu = (stream >= 0 && correlation >= 0) || nf.sync;
        if stream != -1 {
            let device = a
                .device
                .as_ref()
                .map(Scalar::as_id)
                .filter(|d| *d >= 0)
                .or(e.pid)
                .unwrap_or(-1);
            self.gpu.push(GpuEvent {
                ts,
                dur,
                name,
                cat,
                stream,
                correlation,
                external_id: a.external_id.as_ref().map_or(-1, Scalar::as_id),
                device,
                hta_gpu,
                grid: a.grid.unwrap_or_default(),
            });
        }
        if hta_gpu {
            return;
        }
        // the CPU side (HTA's CPUOperatorFilter)
        if nf.step {
            self.last_step_ts = Some(self.last_step_ts.map_or(ts, |m: f64| m.max(ts)));
        }
        if cf.launch_cat && (nf.host_sync || nf.graph_launch) {
            let call = (ts, ts + dur.max(0.0));
            if nf.host_sync {
                self.host_syncs.push(call);
            } else {
                self.graph_launches.push(call);
            }
        }
        let entry = self.cpu.entry(correlation).or_insert(CpuCorrelation {
            min_ts: ts,
            launch: None,
            launch_tid: -1,
            launch_name: name,
        });
        entry.min_ts = entry.min_ts.min(ts);
        if cf.launch_cat && correlation >= 0 && entry.launch.is_none() {
            entry.launch = Some((ts, dur));
            entry.launch_tid = e.tid.unwrap_or(-1);
            entry.launch_name = name;
        }
        self.shapes_recorded |= a.dims.is_some();
        if nf.aten || cf.launch_cat {
            self.cpu_spans.push(CpuSpan {
                tid: e.tid.unwrap_or(-1),
                ts,
                end: ts + dur.max(0.0),
                aten: nf.aten && !cf.launch_cat,
            });
        }
        if nf.shaped {
            self.push_op(name, e.tid.unwrap_or(-1), ts, dur, a);
        }
    }

    /// An aten op with shapes: kept with its cost where [`super::shapes::cost`]
    /// knows it.
    fn push_op(&mut self, name: u32, tid: i64, ts: f64, dur: f64, a: Args) {
        let (Some(dims), Some(ext)) = (a.dims, a.external_id.as_ref().map(Scalar::as_id)) else {
            return;
        };
        let op = OpShape {
            name: self
                .strings
                .names
                .get(name as usize)
                .cloned()
                .unwrap_or_default(),
            dims,
            types: a.types.unwrap_or_default(),
            concrete: a.concrete.unwrap_or_default(),
        };
        if let Some(c) = super::shapes::cost(&op) {
            self.ops.push(ShapedOp {
                name,
                kind: c.kind,
                dtype: c.dtype,
                external_id: ext,
                tid,
                ts,
                end: ts + dur,
                flops: c.flops,
                bytes: c.bytes,
            });
        }
    }

    fn finish(self) -> Trace {
        Trace {
            rank: self.rank,
            devices: self.devices,
            names: self.strings.names,
            gpu: self.gpu,
            cpu: self.cpu,
            step_symbols: self.step_ids.len(),
            last_step_ts: self.last_step_ts,
            float_ts: self.float_ts,
            events: self.events,
            bytes: 0,
            ops: {
                let mut ops = self.ops;
                ops.sort_by(|a, b| a.tid.cmp(&b.tid).then(a.ts.total_cmp(&b.ts)));
                ops
            },
            host_syncs: {
                let mut v = self.host_syncs;
                v.sort_by(|a, b| a.1.total_cmp(&b.1));
                v
            },
            step_marks: self.step_marks,
            graph_launches: self.graph_launches,
            compiled: self.compiled,
            shapes_recorded: self.shapes_recorded,
            cpu_spans: {
                let mut v = self.cpu_spans;
                v.sort_by(|a, b| a.ts.total_cmp(&b.ts));
                v
            },
        }
    }
}

/// A JSON scalar read loosely.
#[derive(Clone, Debug, PartialEq)]
enum Scalar {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    /// null, or an array/object where a scalar was expected.
    Other,
}

impl Scalar {
    fn as_f64(&self) -> Option<f64> {
        match self {
            Scalar::Int(i) => Some(*i as f64),
            Scalar::Float(f) => Some(*f),
            Scalar::Str(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
            _ => None,
        }
    }

    /// Python's `int(x)`, with -1 where it raises (HTA's `normalize_gpu_stream_numbers`).
    fn python_int(&self) -> i64 {
        match self {
            Scalar::Int(i) => *i,
            Scalar::Float(f) if f.is_finite() => f.trunc() as i64,
            Scalar::Str(s) => {
                let t: String = s.trim().chars().filter(|c| *c != '_').collect();
                t.parse::<i64>().unwrap_or(-1)
            }
            Scalar::Bool(b) => i64::from(*b),
            _ => -1,
        }
    }

    /// An id (correlation, External id, device): an integer or an integral
    /// number or numeric string, else -1.
    fn as_id(&self) -> i64 {
        match self.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => f as i64,
            _ => -1,
        }
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
        Ok(Scalar::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
        Ok(i64::try_from(v).map_or(Scalar::Float(v as f64), Scalar::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
        Ok(Scalar::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar::Str(v.to_owned()))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_unit<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

impl<'de> de::Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

/// A string interned without an allocation when already known; a number is
/// interned as its text; null / arrays / objects give `None`.
struct InternSeed<'a> {
    b: &'a mut Builder,
}

impl<'de> DeserializeSeed<'de> for InternSeed<'_> {
    type Value = Option<u32>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<u32>, D::Error> {
        match d.deserialize_any(ScalarOrStr { b: self.b })? {
            Some(id) => Ok(Some(id)),
            None => Ok(None),
        }
    }
}

struct ScalarOrStr<'a> {
    b: &'a mut Builder,
}

impl<'de> Visitor<'de> for ScalarOrStr<'_> {
    type Value = Option<u32>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E>(self, v: &str) -> Result<Option<u32>, E> {
        Ok(Some(self.b.intern(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Option<u32>, E> {
        Ok(Some(self.b.intern(&v.to_string())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Option<u32>, E> {
        Ok(Some(self.b.intern(&v.to_string())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Option<u32>, E> {
        Ok(Some(self.b.intern(&v.to_string())))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Option<u32>, E> {
        Ok(Some(self.b.intern(if v { "True" } else { "False" })))
    }
    fn visit_unit<E>(self) -> Result<Option<u32>, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<u32>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<u32>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

#[derive(Default)]
struct RawEvent {
    cat: Option<u32>,
    name: Option<u32>,
    ts: Option<Scalar>,
    dur: Option<Scalar>,
    pid: Option<i64>,
    tid: Option<i64>,
    args: Option<Args>,
}

#[derive(Default)]
struct Args {
    stream: Option<Scalar>,
    correlation: Option<Scalar>,
    external_id: Option<Scalar>,
    device: Option<Scalar>,
    grid: Option<[u32; 3]>,
    dims: Option<Vec<Vec<i64>>>,
    types: Option<Vec<String>>,
    concrete: Option<Vec<String>>,
}

/// Keys are matched against the few that matter without allocating.
enum Key {
    Cat,
    Name,
    Ts,
    Dur,
    Pid,
    Tid,
    Args,
    Stream,
    Correlation,
    ExternalId,
    Device,
    Grid,
    InputDims,
    InputType,
    ConcreteInputs,
    TraceEvents,
    DeviceProperties,
    DistributedInfo,
    Other,
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, v: &str) -> Result<Key, E> {
        Ok(match v {
            "cat" => Key::Cat,
            "name" => Key::Name,
            "ts" => Key::Ts,
            "dur" => Key::Dur,
            "pid" => Key::Pid,
            "tid" => Key::Tid,
            "args" => Key::Args,
            "stream" => Key::Stream,
            "correlation" => Key::Correlation,
            "External id" => Key::ExternalId,
            "device" => Key::Device,
            "grid" => Key::Grid,
            "Input Dims" => Key::InputDims,
            "Input type" => Key::InputType,
            "Concrete Inputs" => Key::ConcreteInputs,
            "traceEvents" => Key::TraceEvents,
            "deviceProperties" => Key::DeviceProperties,
            "distributedInfo" => Key::DistributedInfo,
            _ => Key::Other,
        })
    }
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        d.deserialize_identifier(KeyVisitor)
    }
}

/// The top level: `{"traceEvents": [...], ...}` (or a bare array of events, the
/// Chrome trace format's other form). Returns whether events were found.
struct TopSeed<'a> {
    b: &'a mut Builder,
}

impl<'de> DeserializeSeed<'de> for TopSeed<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object with \"traceEvents\"")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        EventsSeed { b: self.b }.visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut found = false;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::TraceEvents => found |= map.next_value_seed(EventsSeed { b: &mut *self.b })?,
                Key::DeviceProperties => {
                    let v: serde_json::Value = map.next_value()?;
                    self.b.devices = devices(&v);
                }
                Key::DistributedInfo => {
                    let v: serde_json::Value = map.next_value()?;
                    self.b.rank = v.get("rank").and_then(value_int);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}

fn value_int(v: &serde_json::Value) -> Option<i64> {
    match v {
        serde_json::Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn devices(v: &serde_json::Value) -> Vec<DeviceInfo> {
    let Some(list) = v.as_array() else {
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .filter_map(|(i, d)| {
            let name = d.get("name")?.as_str()?.to_string();
            let id = d.get("id").and_then(value_int).unwrap_or(i as i64);
            let memory = d.get("totalGlobalMem").and_then(serde_json::Value::as_f64);
            Some(DeviceInfo { id, name, memory })
        })
        .collect()
}

/// `traceEvents`: an array (null counts as present and empty).
struct EventsSeed<'a> {
    b: &'a mut Builder,
}

impl<'de> DeserializeSeed<'de> for EventsSeed<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EventsSeed<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("\"traceEvents\" as an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while let Some(ev) = seq.next_element_seed(EventSeed { b: &mut *self.b })? {
            if let Some(ev) = ev {
                self.b.push(ev);
            } else {
                self.b.events += 1;
            }
        }
        Ok(true)
    }
    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
}

/// One event: an object, or anything else (skipped, `None`).
struct EventSeed<'a> {
    b: &'a mut Builder,
}

impl<'de> DeserializeSeed<'de> for EventSeed<'_> {
    type Value = Option<RawEvent>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<RawEvent>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EventSeed<'_> {
    type Value = Option<RawEvent>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an event object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<RawEvent>, A::Error> {
        let mut e = RawEvent::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Cat => e.cat = map.next_value_seed(InternSeed { b: &mut *self.b })?,
                Key::Name => e.name = map.next_value_seed(InternSeed { b: &mut *self.b })?,
                Key::Ts => e.ts = Some(map.next_value::<Scalar>()?).filter(|s| *s != Scalar::Other),
                Key::Dur => e.dur = Some(map.next_value::<Scalar>()?),
                Key::Pid => {
                    e.pid = map
                        .next_value::<Scalar>()?
                        .as_f64()
                        .filter(|f| f.fract() == 0.0)
                        .map(|f| f as i64)
                }
                Key::Tid => e.tid = Some(map.next_value::<Scalar>()?.as_id()).filter(|t| *t != -1),
                Key::Args => e.args = map.next_value_seed(ArgsSeed)?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(e))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<RawEvent>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Option<RawEvent>, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Option<RawEvent>, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Option<RawEvent>, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Option<RawEvent>, E> {
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Option<RawEvent>, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Option<RawEvent>, E> {
        Ok(None)
    }
}

/// `args`: an object (anything else gives `None`, i.e. every default).
struct ArgsSeed;

impl<'de> DeserializeSeed<'de> for ArgsSeed {
    type Value = Option<Args>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Args>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ArgsSeed {
    type Value = Option<Args>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("args")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Args>, A::Error> {
        let mut a = Args::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Stream => a.stream = Some(map.next_value()?),
                Key::Correlation => a.correlation = Some(map.next_value()?),
                Key::ExternalId => a.external_id = Some(map.next_value()?),
                Key::Device => a.device = Some(map.next_value()?),
                Key::Grid => a.grid = grid(&map.next_value::<serde_json::Value>()?),
                Key::InputDims => a.dims = input_dims(&map.next_value::<serde_json::Value>()?),
                Key::InputType => a.types = input_types(&map.next_value::<serde_json::Value>()?),
                Key::ConcreteInputs => {
                    a.concrete = input_types(&map.next_value::<serde_json::Value>()?)
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(a))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Args>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Option<Args>, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Option<Args>, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Option<Args>, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Option<Args>, E> {
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Option<Args>, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Option<Args>, E> {
        Ok(None)
    }
}

/// `grid`: `[x, y, z]`, three non-negative integers that fit a u32 (`None`
/// otherwise: a malformed grid is no grid).
fn grid(v: &serde_json::Value) -> Option<[u32; 3]> {
    let list = v.as_array().filter(|l| l.len() == 3)?;
    let mut g = [0u32; 3];
    for (slot, x) in g.iter_mut().zip(list) {
        *slot = u32::try_from(x.as_u64()?).ok()?;
    }
    Some(g)
}

/// `Input Dims`: `[[m, k], [k, n], [], ...]`; an input that is not a tensor (a
/// scalar, a list of tensors) gives an empty entry. `None` if it is not an array.
fn input_dims(v: &serde_json::Value) -> Option<Vec<Vec<i64>>> {
    let list = v.as_array()?;
    Some(
        list.iter()
            .map(|d| {
                d.as_array()
                    .map(|dims| dims.iter().filter_map(serde_json::Value::as_i64).collect())
                    .unwrap_or_default()
            })
            .collect(),
    )
}

fn input_types(v: &serde_json::Value) -> Option<Vec<String>> {
    let list = v.as_array()?;
    Some(
        list.iter()
            .map(|t| t.as_str().unwrap_or("").to_string())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::shapes::OpKind;

    fn p(s: &str) -> Result<Trace, TraceError> {
        parse(s.as_bytes(), &mut |_| true)
    }

    #[test]
    fn kernel_grids() {
        let t = p(r#"{"traceEvents": [
            {"ph":"X","cat":"kernel","name":"a","ts":1,"dur":1,"args":{"stream":7,"correlation":1,"grid":[4,24,1],"block":[384,1,1]}},
            {"ph":"X","cat":"kernel","name":"b","ts":2,"dur":1,"args":{"stream":7,"correlation":2}},
            {"ph":"X","cat":"kernel","name":"c","ts":3,"dur":1,"args":{"stream":7,"correlation":3,"grid":[1,-2,1]}},
            {"ph":"X","cat":"kernel","name":"d","ts":4,"dur":1,"args":{"stream":7,"correlation":4,"grid":"big"}}
        ]}"#)
        .unwrap();
        let grids: Vec<[u32; 3]> = t.gpu.iter().map(|e| e.grid).collect();
        assert_eq!(grids, vec![[4, 24, 1], [0; 3], [0; 3], [0; 3]]);
    }

    #[test]
    fn keeps_gpu_events_and_launches() {
        let t = p(r#"{"traceEvents": [
            {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7,"correlation":3,"device":0,"External id":9}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":8,"dur":3,"args":{"correlation":3}},
            {"ph":"s","cat":"ac2g","name":"ac2g","id":3,"ts":8},
            {"ph":"X","cat":"Trace","name":"PyTorch Profiler","ts":0,"dur":100}
        ], "deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB","totalGlobalMem":85100000000}], "distributedInfo":{"rank":3}}"#)
        .unwrap();
        assert_eq!(t.gpu.len(), 1);
        let k = &t.gpu[0];
        assert_eq!(
            (
                k.ts,
                k.dur,
                k.stream,
                k.correlation,
                k.device,
                k.external_id
            ),
            (10.0, 5.0, 7, 3, 0, 9)
        );
        assert!(k.hta_gpu);
        assert_eq!(t.name(k.name), "k");
        assert_eq!(t.cpu[&3].launch, Some((8.0, 3.0)));
        assert_eq!(t.rank, Some(3));
        assert_eq!(t.devices[0].name, "NVIDIA A100-SXM4-80GB");
        assert_eq!(t.events, 4);
        assert!(!t.float_ts);
    }

    #[test]
    fn loose_values() {
        let t = p(r#"{"traceEvents": [
            {"cat":"kernel","name":"a","ts":"10.5","dur":1.5,"args":{"stream":"7","correlation":"4"}},
            {"cat":"cuda_runtime","name":"hipMemcpy","ts":1,"dur":1,"args":{"stream":"0x0","correlation":5}},
            {"cat":"kernel","name":"noargs","ts":1,"dur":1,"args":[1,2]},
            {"cat":"kernel","name":"nodur","ts":1},
            {"name":"nocat","ts":1,"dur":1,"args":{"stream":1}},
            3, "x", null, [1], {"cat": 5, "name": {"a":1}, "ts": 2.5, "dur": 1, "args": {"stream": 2.9, "correlation": 1}}
        ]}"#)
        .unwrap();
        assert_eq!(t.gpu.len(), 2);
        assert_eq!(
            (t.gpu[0].stream, t.gpu[0].correlation, t.gpu[0].ts),
            (7, 4, 10.5)
        );
        assert_eq!((t.gpu[1].stream, t.name(t.gpu[1].cat)), (2, "5"));
        assert!(t.float_ts);
        assert_eq!(t.events, 10);
    }

    #[test]
    fn errors_are_classified() {
        assert_eq!(p(""), Err(TraceError::Empty));
        assert_eq!(p("  \n "), Err(TraceError::Empty));
        assert!(matches!(
            p("hello"),
            Err(TraceError::NotJson { line: 1, .. })
        ));
        assert!(matches!(
            p(r#"{"traceEvents": [{"ts": 1"#),
            Err(TraceError::Truncated { .. })
        ));
        assert_eq!(p(r#"{"schemaVersion": 1}"#), Err(TraceError::NoTraceEvents));
        assert!(matches!(p("42"), Err(TraceError::NotATrace(_))));
        assert!(matches!(
            p(r#"{"traceEvents": 5}"#),
            Err(TraceError::NotATrace(_))
        ));
        assert!(matches!(
            p(r#"{"traceEvents": []} x"#),
            Err(TraceError::NotJson { .. })
        ));
        for e in [
            TraceError::Empty,
            TraceError::Truncated { bytes: 3 },
            TraceError::NoGpuEvents,
        ] {
            assert!(!e.to_string().contains('\n'));
        }
    }

    #[test]
    fn deep_nesting_never_overflows_the_stack() {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let deep = format!("{}1{}", open.repeat(100_000), close.repeat(100_000));
            for doc in [
                deep.clone(),
                format!(r#"{{"traceEvents": [{deep}]}}"#),
                format!(r#"{{"traceEvents": [{{"cat":"kernel","args":{deep}}}]}}"#),
                format!(r#"{{"deviceProperties": {deep}, "traceEvents": []}}"#),
            ] {
                // an ignored value is skipped without recursion (Ok); elsewhere
                // serde_json's recursion limit gives an error; never an overflow
                if let Err(e) = p(&doc) {
                    assert!(!e.to_string().contains('\n'));
                }
            }
        }
    }

    #[test]
    fn progress_and_cancel() {
        let body = format!(
            r#"{{"traceEvents": [{}]}}"#,
            vec![
                r#"{"cat":"kernel","name":"k","ts":1,"dur":1,"args":{"stream":7,"correlation":1}}"#;
                40_000
            ]
            .join(",")
        );
        let mut seen = Vec::new();
        let t = parse(body.as_bytes(), &mut |b| {
            seen.push(b);
            true
        })
        .unwrap();
        assert_eq!(t.gpu.len(), 40_000);
        assert_eq!(*seen.last().unwrap(), body.len() as u64);
        assert!(seen.len() >= 3, "{seen:?}");
        assert!(seen.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(
            parse(body.as_bytes(), &mut |b| b < 1_500_000),
            Err(TraceError::Cancelled)
        );
    }

    #[test]
    fn shapes_of_ops() {
        let t = p(r#"{"traceEvents": [
            {"cat":"cpu_op","name":"aten::mm","ts":1,"dur":1,"args":{"External id":7,"Input Dims":[[64,128],[128,32]],"Input type":["float","float"]}},
            {"cat":"cpu_op","name":"aten::add","ts":2,"dur":1,"args":{"External id":8,"Input Dims":[[64],[64],[]],"Input type":["c10::BFloat16","c10::BFloat16","Scalar"],"Concrete Inputs":["","","1"]}},
            {"cat":"cpu_op","name":"aten::conv2d","ts":3,"dur":1,"args":{"External id":9,"Input Dims":[[1,1,4,4],[1,1,3,3],[],[],[],[],[]],"Input type":["float","float","","ScalarList","ScalarList","ScalarList","Scalar"],"Concrete Inputs":["","","","[1, 1]","[0, 0]","[1, 1]","1"]}},
            {"cat":"cpu_op","name":"aten::embedding","ts":4,"dur":1,"args":{"External id":10,"Input Dims":[[64],[64]],"Input type":["float","long int"]}}
        ]}"#)
        .unwrap();
        assert_eq!(t.ops.len(), 3);
        let f = 2.0 * 64.0 * 128.0 * 32.0;
        let b = 4.0 * (64.0 * 128.0 + 128.0 * 32.0 + 64.0 * 32.0);
        let mm = &t.ops[0];
        assert_eq!((mm.external_id, mm.flops, mm.bytes), (7, f, b));
        assert_eq!(
            (t.name(mm.name), mm.kind, mm.dtype),
            ("aten::mm", OpKind::Matmul, Some("fp32"))
        );
        let add = &t.ops[1];
        assert_eq!(
            (add.kind, add.dtype, add.flops, add.bytes),
            (OpKind::Pointwise, Some("bf16"), 64.0, 3.0 * 128.0)
        );
        // Concrete Inputs reach the conv: 4×4 with a 3×3 kernel, no padding → 2×2
        let conv = &t.ops[2];
        assert_eq!((conv.kind, conv.flops), (OpKind::Conv, 2.0 * 4.0 * 9.0));
    }
}
