//! The lab's procedure (`gpu::procedure`) driven natively by a fake GPU: scripted
//! timings, noisy trials, a Cancel, a lost device, shader and GPU errors, wrong
//! results. No GPU is needed; the fake keeps the work buffers' contents (which
//! input, how many ops applied) so a verification reading the wrong buffer fails,
//! and its clock advances with the simulated work so the timers are exact.

use brrr::gpu::cliff;
use brrr::gpu::plan::{self, Limits, Plan, EMPTY};
use brrr::gpu::procedure::{self, Buf, Driver, Lab, Res, Stop};
use brrr::gpu::reference;
use brrr::gpu::results::*;
use std::cell::{Cell, RefCell};

/// GPU seconds per element of a copy dispatch (and of any dispatch doing fewer
/// ops than a copy costs).
const COPY_S: f64 = 1e-8;
/// GPU seconds per element per op of a fused chain.
const OP_S: f64 = 2e-11;
/// GPU seconds of an empty dispatch.
const EMPTY_S: f64 = 2e-7;
/// Submit → done of an empty submission.
const ROUND_TRIP_S: f64 = 5e-5;
/// CPU seconds to record one dispatch, and to submit one command buffer.
const RECORD_S: f64 = 5e-9;
const SUBMIT_S: f64 = 1e-6;
/// The read kernel's bandwidth (bytes/s) on working sets up to [`CACHE_AT`] (the
/// fake's cache), and beyond it.
const CACHE_BW: f64 = 4e11;
const MEM_BW: f64 = 1e11;
const CACHE_AT: u64 = 1 << 20;

/// How trials spread on the fake GPU.
#[derive(Clone, Copy, PartialEq)]
enum Noise {
    /// Every other pass 30 % slower, however often the lab measures again.
    Always,
    /// As `Always` until the lab says it measures again (a load that went away).
    UntilMeasuredAgain,
}

/// What happens during a run; every trigger names a progress label prefix (the
/// variant the lab says it is measuring), e.g. `"fused cos ×8 (f32)"`.
#[derive(Default)]
struct Script {
    timestamps: bool,
    noisy: Option<(&'static str, Noise)>,
    /// This variant's dispatches take this many times longer than predicted.
    slow: Option<(&'static str, f64)>,
    /// The user presses Cancel when the lab announces this label.
    cancel_at: Option<&'static str>,
    /// The device is lost when the lab announces this label.
    lose_at: Option<&'static str>,
    /// The device is lost once this variant's n-th pass is done.
    lose_after: Option<(&'static str, usize)>,
    /// Compiling this variant fails because the device went away.
    lose_on_compile: Option<&'static str>,
    /// This variant's sample comes back wrong at one element.
    wrong_at: Option<&'static str>,
    /// This variant's n-th pass (0 = the verification) raises a GPU error.
    error_at: Option<(&'static str, usize)>,
    /// The test knob breaks this variant's WGSL.
    break_at: Option<&'static str>,
}

/// What an output buffer holds: which op, how many times applied to the input.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Content {
    op: Option<Op>,
    ops: u32,
    /// The read kernel's sums: (working set in vec4s, invocations, reads each).
    read: Option<(u64, u64, u32)>,
}

#[derive(Clone, Debug)]
struct Kern {
    /// `None`: the empty kernel of the overheads.
    variant: Option<(Kernel, Option<Op>, u32)>,
    label: String,
    /// The read kernel's (invocations, reads each), from its WGSL.
    read: Option<(u64, u32)>,
}

/// The number in `code` between `before` and the next `u`.
fn number_after(code: &str, before: &str) -> Option<u64> {
    let rest = &code[code.find(before)? + before.len()..];
    rest[..rest.find('u')?].parse().ok()
}

#[derive(Clone, Debug)]
struct Pass {
    label: String,
    dispatches: usize,
    gpu_s: f64,
}

struct Fake {
    script: Script,
    clock: Cell<f64>,
    elements: Cell<u64>,
    /// The variant `break_shader` was last asked about: the next compile's.
    next: Cell<Option<(Kernel, Option<Op>, u32)>>,
    label: RefCell<String>,
    progress: RefCell<Vec<(f64, String)>>,
    stamped: Cell<f64>,
    passes: RefCell<Vec<Pass>>,
    out: RefCell<[Option<Content>; 2]>,
    stop: RefCell<Option<Result<(), String>>>,
    errors: RefCell<Vec<String>>,
}

fn matches(label: &str, at: Option<&str>) -> bool {
    at.is_some_and(|a| label.starts_with(a))
}

impl Fake {
    fn new(script: Script) -> Fake {
        Fake {
            script,
            clock: Cell::new(0.0),
            elements: Cell::new(0),
            next: Cell::new(None),
            label: RefCell::new(String::new()),
            progress: RefCell::new(Vec::new()),
            stamped: Cell::new(0.0),
            passes: RefCell::new(Vec::new()),
            out: RefCell::new([None, None]),
            stop: RefCell::new(None),
            errors: RefCell::new(Vec::new()),
        }
    }

    fn advance(&self, s: f64) {
        self.clock.set(self.clock.get() + s);
    }

    /// GPU seconds of one dispatch of `k` on `elements` elements.
    fn dispatch_s(&self, k: &Kern, elements: u64) -> f64 {
        let Some((kernel, op, repeat)) = k.variant else {
            return EMPTY_S;
        };
        if kernel == Kernel::Read {
            // `repeat` passes over the working set, at the scripted cliff
            let ws = 4 * elements;
            let bw = if ws <= CACHE_AT { CACHE_BW } else { MEM_BW };
            return ws as f64 * f64::from(repeat) / bw;
        }
        let ops = match (kernel, op) {
            (Kernel::Fused, Some(_)) => repeat,
            _ => 1,
        };
        let slow = match self.script.slow {
            Some((at, f)) if k.label.starts_with(at) => f,
            _ => 1.0,
        };
        elements as f64 * COPY_S.max(OP_S * f64::from(ops)) * slow
    }

    /// The noise factor of a pass of `k` that is this label's `n`-th.
    fn noise(&self, k: &Kern, n: usize) -> f64 {
        match self.script.noisy {
            Some((at, how)) if k.label.starts_with(at) => {
                let again = self.label.borrow().contains("measuring again");
                if how == Noise::UntilMeasuredAgain && again {
                    1.0
                } else if n % 2 == 1 {
                    1.3
                } else {
                    1.0
                }
            }
            _ => 1.0,
        }
    }

    /// Apply one dispatch of bind group `g` to the output buffers' contents.
    fn write(&self, k: &Kern, g: u8) {
        let Some((kernel, op, repeat)) = k.variant else {
            return;
        };
        let ops = match kernel {
            Kernel::Copy | Kernel::Read => 0,
            Kernel::Fused => repeat,
            Kernel::Eager => 1,
        };
        let mut out = self.out.borrow_mut();
        if let (Kernel::Read, Some((threads, reads))) = (kernel, k.read) {
            out[0] = Some(Content {
                op: None,
                ops: 0,
                read: Some((self.elements.get() / 4, threads, reads)),
            });
            return;
        }
        let (to, before) = match g {
            0 => (0, 0),
            1 => (1, 0),
            2 => (1, out[0].map_or(0, |c| c.ops)),
            _ => (0, out[1].map_or(0, |c| c.ops)),
        };
        out[to] = Some(Content {
            op,
            ops: before + ops,
            read: None,
        });
    }

    fn labels(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for (_, l) in self.progress.borrow().iter() {
            if v.last() != Some(l) {
                v.push(l.clone());
            }
        }
        v
    }

    fn passes_of(&self, label: &str) -> Vec<Pass> {
        self.passes
            .borrow()
            .iter()
            .filter(|p| p.label.starts_with(label))
            .cloned()
            .collect()
    }
}

impl Driver for Fake {
    type Kern = Kern;

    async fn compile(&self, code: &str, bind: bool) -> Result<Kern, String> {
        let label = self.label.borrow().clone();
        if matches(&label, self.script.lose_on_compile) {
            *self.stop.borrow_mut() = Some(Err("the driver was reset".into()));
            return Err("the GPU promise was rejected".into());
        }
        if code.ends_with("not WGSL") {
            return Err("shader error: expected a declaration".into());
        }
        let read = number_after(code, "if (i >= ")
            .zip(number_after(code, "k < "))
            .map(|(t, r)| (t, r as u32));
        Ok(Kern {
            variant: if bind { self.next.get() } else { None },
            label,
            read,
        })
    }

    fn uniforms(&self, elements: u64) -> Res<()> {
        self.elements.set(elements);
        Ok(())
    }

    fn upload(&self, _buf: Buf, _offset: u64, _bytes: &[u8]) -> Res<()> {
        Ok(())
    }

    async fn pass(
        &self,
        kern: &Kern,
        dispatches: &[u8],
        _grid: (u32, u32),
        slot: Option<u32>,
    ) -> Res<f64> {
        let n = self.passes_of(&kern.label).len();
        let mut gpu = 0.0;
        for &g in dispatches {
            gpu += self.dispatch_s(kern, self.elements.get());
            if g != EMPTY {
                self.write(kern, g);
            }
        }
        gpu *= self.noise(kern, n);
        if matches(&kern.label, self.script.error_at.map(|e| e.0))
            && self.script.error_at.map(|e| e.1) == Some(n)
        {
            self.errors
                .borrow_mut()
                .push("GPU error: out-of-bounds access (fake)".into());
        }
        if matches(&kern.label, self.script.lose_after.map(|e| e.0))
            && self.script.lose_after.map(|e| e.1) == Some(n)
        {
            *self.stop.borrow_mut() = Some(Err("the driver was reset".into()));
        }
        if slot.is_some() {
            self.stamped.set(self.stamped.get() + gpu);
        }
        self.passes.borrow_mut().push(Pass {
            label: kern.label.clone(),
            dispatches: dispatches.len(),
            gpu_s: gpu,
        });
        let wall = gpu + ROUND_TRIP_S;
        self.advance(wall);
        Ok(wall)
    }

    async fn timestamps(&self, _pairs: u32) -> Res<f64> {
        Ok(self.stamped.replace(0.0))
    }

    async fn sample(&self, out: usize, dt: Dt, ranges: &[(u64, u64)]) -> Res<Vec<f32>> {
        let content = self.out.borrow()[out];
        let wrong = matches(&self.label.borrow(), self.script.wrong_at);
        let mut v = Vec::new();
        for &(start, len) in ranges {
            for i in start..start + len {
                let x = reference::input_dt(i, dt);
                let got = match content {
                    None => f32::NAN,
                    Some(Content {
                        read: Some((n, t, r)),
                        ..
                    }) => reference::read_sum(i, n, t, r, 256) as f32,
                    Some(Content { op: None, .. }) => x,
                    Some(Content {
                        op: Some(op), ops, ..
                    }) => reference::reference(op, dt, x, ops),
                };
                v.push(if wrong && i == 3 { got + 1.0 } else { got });
            }
        }
        Ok(v)
    }

    async fn round_trip(&self) -> Res<f64> {
        self.advance(ROUND_TRIP_S);
        Ok(ROUND_TRIP_S)
    }

    fn record(&self, _kern: &Kern, n: u32) {
        self.advance(RECORD_S * f64::from(n));
    }

    fn submit_one(&self, _kern: &Kern) {
        self.advance(SUBMIT_S);
    }

    async fn done(&self) -> Res<()> {
        self.advance(ROUND_TRIP_S);
        Ok(())
    }

    fn now(&self) -> f64 {
        self.clock.get()
    }

    async fn yield_now(&self) {}

    fn check(&self) -> Res<()> {
        match &*self.stop.borrow() {
            None => Ok(()),
            Some(Ok(())) => Err(Stop::Cancelled),
            Some(Err(m)) => Err(Stop::Lost(m.clone())),
        }
    }

    fn errors_len(&self) -> usize {
        self.errors.borrow().len()
    }

    fn error_since(&self, n: usize) -> Option<String> {
        self.errors.borrow().get(n).cloned()
    }

    fn progress(&self, f: f64, label: &str) {
        *self.label.borrow_mut() = label.to_string();
        self.progress.borrow_mut().push((f, label.to_string()));
        if self.stop.borrow().is_none() {
            if matches(label, self.script.cancel_at) {
                *self.stop.borrow_mut() = Some(Ok(()));
            } else if matches(label, self.script.lose_at) {
                *self.stop.borrow_mut() = Some(Err("the driver was reset".into()));
            }
        }
    }

    fn break_shader(&self, kernel: Kernel, op: Option<Op>, repeat: u32) -> bool {
        self.next.set(Some((kernel, op, repeat)));
        matches(&self.label.borrow(), self.script.break_at)
    }
}

const LIMITS: Limits = Limits {
    max_storage_binding: 1024.0 * 1024.0,
    max_buffer: 1024.0 * 1024.0,
    max_workgroups_per_dim: 65535,
    max_invocations: 256,
    max_workgroup_size_x: 256,
};

/// The small plan on `elements` f32 elements (the sample is then the whole
/// buffer, and the CPU's check of it quick).
fn plan_of(elements: u64) -> Plan {
    let mut p = plan::plan(&LIMITS, true).unwrap_or_else(|e| panic!("{e}"));
    p.bytes = 4 * elements;
    p.min_elements = 1024;
    // no cache sweep unless a test asks for one
    p.cache_bytes = 0;
    p
}

fn plan() -> Plan {
    plan_of(2048)
}

fn adapter(timestamps: bool) -> AdapterInfo {
    AdapterInfo {
        vendor: "fake".into(),
        timestamps,
        max_storage_binding: LIMITS.max_storage_binding,
        max_buffer: LIMITS.max_buffer,
        max_workgroups_per_dim: LIMITS.max_workgroups_per_dim,
        max_invocations: LIMITS.max_invocations,
        ..AdapterInfo::default()
    }
}

/// A whole run on the fake, as both drivers run it: begin, sweep (f32), settle.
/// Returns the lab (its driver's logs), the run and how many measurements each
/// `update` saw.
fn run(script: Script) -> (Lab<Fake>, LabRun, Vec<usize>) {
    let info = adapter(script.timestamps);
    let p = plan();
    let mut run = procedure::begin(&info, &p, true, false, "today".into(), "running");
    let mut lab = Lab::new(Fake::new(script), p, run.timer);
    let seen = RefCell::new(Vec::new());
    let result = pollster::block_on(lab.sweep(&[Dt::F32], &mut run, &|r| {
        seen.borrow_mut().push(r.measurements.len())
    }));
    procedure::settle(&mut run, result, "nothing was measured");
    (lab, run, seen.into_inner())
}

/// Measure one variant on a lab whose copy is already known (as in a sweep).
fn measure_one(
    script: Script,
    p: Plan,
    kernel: Kernel,
    op: Op,
    repeat: u32,
) -> (Lab<Fake>, Res<Measurement>) {
    let timer = if script.timestamps {
        Timer::Timestamps
    } else {
        Timer::WallClock
    };
    let mut lab = Lab::new(Fake::new(script), p, timer);
    let m = pollster::block_on(async {
        lab.measure_roundtrip().await?;
        lab.fill(Dt::F32).await?;
        let label = format!("{} {} ×{} (f32)", kernel.id(), op.id(), repeat);
        lab.driver.progress(0.0, &label);
        lab.measure(kernel, Some(op), Dt::F32, repeat).await
    });
    (lab, m)
}

/// The fake's time per run of a measured variant.
fn expected(m: &Measurement, slow: f64) -> f64 {
    let ops = if m.kernel == Kernel::Fused {
        m.repeat
    } else {
        1
    };
    f64::from(m.kernels()) * m.elements as f64 * COPY_S.max(OP_S * f64::from(ops)) * slow
}

fn close(a: f64, b: f64) -> bool {
    (a / b - 1.0).abs() < 1e-9
}

fn label_of(m: &Measurement) -> String {
    match m.op {
        None => format!("copy bandwidth ({})", m.dt.id()),
        Some(op) => format!(
            "{} {} ×{} ({})",
            m.kernel.id(),
            op.id(),
            m.repeat,
            m.dt.id()
        ),
    }
}

#[test]
fn a_whole_run_measures_every_variant_at_its_scripted_time() {
    for timestamps in [true, false] {
        let (lab, run, seen) = run(Script {
            timestamps,
            ..Script::default()
        });
        let timer = if timestamps {
            Timer::Timestamps
        } else {
            Timer::WallClock
        };
        assert_eq!(run.timer, timer);
        assert_eq!(run.outcome, Outcome::Complete, "{}", run.reason);
        assert_eq!(run.reason, "");
        let sweep = plan::sweep();
        assert_eq!(run.measurements.len(), 1 + sweep.len());
        // saved after every measurement, and after the overheads
        let mut want: Vec<usize> = (1..=run.measurements.len()).collect();
        want.insert(1, 1);
        assert_eq!(seen, want);
        let (copy, rest) = run.measurements.split_first().unwrap();
        assert_eq!((copy.kernel, copy.op), (Kernel::Copy, None));
        for (m, &(kernel, op, repeat)) in rest.iter().zip(&sweep) {
            assert_eq!((m.kernel, m.op, m.repeat), (kernel, Some(op), repeat));
        }
        for m in &run.measurements {
            assert!(m.check.passed(), "{m:?}");
            assert!(m.usable());
            assert_eq!(m.times.len(), 3, "{m:?}");
            assert_eq!(m.remeasured, 0);
            // the timer: GPU seconds per run (the wall clock's round trip taken off)
            for &t in &m.times {
                assert!(
                    close(t, expected(m, 1.0)),
                    "{} {t} {}",
                    label_of(m),
                    expected(m, 1.0)
                );
            }
        }
        // the fixed costs, exact on the fake's clock
        let o = &run.overheads;
        assert_eq!(o.roundtrip, vec![ROUND_TRIP_S; 5]);
        assert_eq!(o.dispatch.len(), 3);
        assert!(o.dispatch.iter().all(|&d| close(d, EMPTY_S)), "{o:?}");
        assert!(o.encode.iter().all(|&e| close(e, RECORD_S)), "{o:?}");
        assert!(o.submit.iter().all(|&s| close(s, SUBMIT_S)), "{o:?}");
        // the progress: every step named in order, ending at 1
        let labels = lab.driver.labels();
        assert_eq!(labels[0], "measuring the submit round trip");
        assert_eq!(labels[1], "copy bandwidth (f32)");
        assert_eq!(labels[2], "dispatch and submit overhead");
        let variants: Vec<String> = rest.iter().map(label_of).collect();
        assert_eq!(labels[3..], variants[..]);
        let progress = lab.driver.progress.borrow();
        assert!(progress.iter().all(|(f, _)| (0.0..=1.0).contains(f)));
        assert_eq!(progress.last().map(|p| p.0), Some(1.0));
    }
}

#[test]
fn calibration_grows_a_trial_until_it_is_long_enough_to_time() {
    let p = plan();
    let (lab, m) = measure_one(
        Script {
            timestamps: true,
            ..Script::default()
        },
        p.clone(),
        Kernel::Fused,
        Op::Mul,
        1,
    );
    let m = m.unwrap();
    let passes = lab.driver.passes_of("fused mul ×1 (f32)");
    // the verification's one run, then calibration from one run per trial
    assert_eq!(passes[0].dispatches, 1);
    assert_eq!(passes[1].dispatches, 1);
    let timed = &passes[passes.len() - 3..];
    let runs = timed[0].dispatches;
    assert!(timed.iter().all(|t| t.dispatches == runs), "{timed:?}");
    assert!(runs > 1, "{timed:?}");
    // the timed trials last at least half the target, the calibration before them
    // grew through shorter ones
    assert!(
        timed.iter().all(|t| t.gpu_s >= p.chunk_target_s / 2.0),
        "{timed:?}"
    );
    let calibration = &passes[1..passes.len() - 3];
    assert!(calibration.len() >= 2, "{passes:?}");
    assert!(calibration[..calibration.len() - 1]
        .iter()
        .all(|c| c.gpu_s < p.chunk_target_s / 2.0));
    for &t in &m.times {
        assert!(close(t, expected(&m, 1.0)), "{t}");
    }
}

#[test]
fn a_dispatch_far_over_budget_shrinks_before_timing() {
    let p = plan_of(4096);
    // nothing predicted it, and it is 2500× slower than a copy: 0.1 s per dispatch
    // at full size, over twice the longest submission allowed
    let (lab, m) = measure_one(
        Script {
            timestamps: true,
            slow: Some(("fused fma ×4", 2.5e3)),
            ..Script::default()
        },
        p.clone(),
        Kernel::Fused,
        Op::Fma,
        4,
    );
    let m = m.unwrap();
    assert!(m.elements < p.elements(Dt::F32), "{m:?}");
    assert!(m.elements >= p.min_elements, "{m:?}");
    assert!(m.check.passed());
    let timed = lab.driver.passes_of("fused fma ×4");
    let last = &timed[timed.len() - 1];
    assert!(
        last.gpu_s / last.dispatches as f64 <= p.chunk_max_s,
        "{last:?}"
    );
    for &t in &m.times {
        assert!(close(t, expected(&m, 2.5e3)), "{t} {}", expected(&m, 2.5e3));
    }
}

#[test]
fn noisy_trials_are_taken_again_and_the_quiet_set_kept() {
    let (lab, run, _) = run(Script {
        timestamps: true,
        noisy: Some(("fused cos ×8 (f32)", Noise::UntilMeasuredAgain)),
        ..Script::default()
    });
    assert_eq!(run.outcome, Outcome::Complete, "{}", run.reason);
    let m = run
        .measurements
        .iter()
        .find(|m| label_of(m) == "fused cos ×8 (f32)")
        .unwrap();
    assert_eq!(m.remeasured, 1);
    assert!(!m.noisy(), "{:?}", m.times);
    for &t in &m.times {
        assert!(close(t, expected(m, 1.0)), "{t}");
    }
    // no other variant was taken again
    assert!(run
        .measurements
        .iter()
        .all(|o| o.remeasured == 0 || std::ptr::eq(o, m)));
    // the progress said so while it measured again, then named the variant again
    let labels = lab.driver.labels();
    let again = labels
        .iter()
        .position(|l| l.starts_with("fused cos ×8 (f32), measuring again: trials spread ±"))
        .unwrap_or_else(|| panic!("{labels:?}"));
    assert_eq!(
        labels[again - 1..again + 3]
            .iter()
            .map(|l| l.split(',').next().unwrap_or(""))
            .collect::<Vec<_>>(),
        [
            "fused cos ×8 (f32)",
            "fused cos ×8 (f32)",
            "fused cos ×8 (f32)",
            "eager cos ×8 (f32)"
        ]
    );
    assert!(!labels[again + 1].contains("measuring again"));
}

#[test]
fn trials_that_stay_noisy_are_kept_and_marked() {
    let mut p = plan();
    p.remeasure = 2;
    let (lab, m) = measure_one(
        Script {
            timestamps: true,
            noisy: Some(("eager mul ×2", Noise::Always)),
            ..Script::default()
        },
        p,
        Kernel::Eager,
        Op::Mul,
        2,
    );
    let m = m.unwrap();
    // taken again exactly as often as the plan allows, then marked noisy, not failed
    assert_eq!(m.remeasured, 2);
    assert!(m.noisy(), "{:?}", m.times);
    assert!(m.usable());
    assert_eq!(m.times.len(), 3);
    // the progress said so each time
    let agains = lab
        .driver
        .progress
        .borrow()
        .iter()
        .filter(|(_, l)| l.contains("measuring again: trials spread ±"))
        .count();
    assert_eq!(agains, 2);
}

#[test]
fn a_cancel_keeps_what_was_measured_and_says_so() {
    let (lab, run, seen) = run(Script {
        timestamps: true,
        cancel_at: Some("fused mul ×4 (f32)"),
        ..Script::default()
    });
    assert_eq!(run.outcome, Outcome::Cancelled);
    assert_eq!(
        run.reason,
        "Cancelled: the results so far are kept, marked partial."
    );
    // the copy and the four variants before fused mul ×4
    let kept: Vec<String> = run.measurements.iter().map(label_of).collect();
    assert_eq!(
        kept,
        [
            "copy bandwidth (f32)",
            "fused mul ×1 (f32)",
            "eager mul ×1 (f32)",
            "fused mul ×2 (f32)",
            "eager mul ×2 (f32)"
        ]
    );
    assert_eq!(seen.last(), Some(&5));
    // nothing of the cancelled variant ran
    assert!(lab.driver.passes_of("fused mul ×4").is_empty());
}

#[test]
fn a_cancel_before_the_first_measurement_keeps_nothing() {
    let (lab, run, seen) = run(Script {
        cancel_at: Some("measuring the submit round trip"),
        ..Script::default()
    });
    assert_eq!(run.outcome, Outcome::Cancelled);
    assert_eq!(run.reason, "Cancelled: nothing was measured.");
    assert!(run.measurements.is_empty());
    assert!(seen.is_empty());
    assert!(lab.driver.passes.borrow().is_empty());
}

#[test]
fn a_lost_device_ends_the_run_partial_with_its_reason() {
    let (_, run, _) = run(Script {
        timestamps: true,
        lose_at: Some("eager cos ×1 (f32)"),
        ..Script::default()
    });
    assert_eq!(run.outcome, Outcome::Partial);
    assert_eq!(
        run.reason,
        "The GPU device was lost during the run (the driver was reset); the results so far \
         are kept, marked partial."
    );
    // the copy and every mul variant (22), then fused cos ×1
    assert_eq!(run.measurements.len(), 1 + 22 + 1);
    assert_eq!(
        label_of(run.measurements.last().unwrap()),
        "fused cos ×1 (f32)"
    );
    assert!(run.measurements.iter().all(Measurement::usable));
}

#[test]
fn a_compile_that_fails_with_the_device_is_the_loss_not_the_variant() {
    let (_, run, _) = run(Script {
        timestamps: true,
        lose_on_compile: Some("fused mul ×2 (f32)"),
        ..Script::default()
    });
    assert_eq!(run.outcome, Outcome::Partial);
    assert!(run.reason.contains("device was lost"), "{}", run.reason);
    // no failed "fused mul ×2": the variant is not blamed
    let kept: Vec<String> = run.measurements.iter().map(label_of).collect();
    assert_eq!(
        kept,
        [
            "copy bandwidth (f32)",
            "fused mul ×1 (f32)",
            "eager mul ×1 (f32)"
        ]
    );
}

#[test]
fn a_broken_shader_fails_that_variant_only() {
    let (lab, run, _) = run(Script {
        timestamps: true,
        break_at: Some("eager cos ×16 (f32)"),
        ..Script::default()
    });
    assert_eq!(run.outcome, Outcome::Complete, "{}", run.reason);
    let failed: Vec<&Measurement> = run
        .measurements
        .iter()
        .filter(|m| !m.check.passed())
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(label_of(failed[0]), "eager cos ×16 (f32)");
    assert_eq!(
        failed[0].check,
        Check::Failed {
            detail: "shader error: expected a declaration".into()
        }
    );
    assert!(failed[0].times.is_empty());
    assert!(!failed[0].usable());
    assert!(lab.driver.passes_of("eager cos ×16").is_empty());
}

#[test]
fn a_wrong_result_fails_verification_and_is_never_timed() {
    let (lab, m) = measure_one(
        Script {
            timestamps: true,
            wrong_at: Some("fused cos ×32"),
            ..Script::default()
        },
        plan(),
        Kernel::Fused,
        Op::Cos,
        32,
    );
    let m = m.unwrap();
    match &m.check {
        Check::Failed { detail } => assert!(detail.starts_with("element 3: GPU "), "{detail}"),
        c => panic!("{c:?}"),
    }
    assert!(m.times.is_empty());
    // the verification's pass only
    assert_eq!(lab.driver.passes_of("fused cos ×32").len(), 1);
}

#[test]
fn verification_reads_the_buffer_an_eager_chain_ends_in() {
    // odd and even chains end in different output buffers; the fake returns NaN
    // from one never written, so reading the wrong one fails
    for repeat in [1, 2, 3, 8] {
        let (_, m) = measure_one(Script::default(), plan(), Kernel::Eager, Op::Mul, repeat);
        let m = m.unwrap();
        assert!(m.check.passed(), "×{repeat}: {:?}", m.check);
    }
}

#[test]
fn a_gpu_error_fails_the_variant_it_happened_in() {
    // during the verification: not timed
    let (_, m) = measure_one(
        Script {
            timestamps: true,
            error_at: Some(("fused mul ×64", 0)),
            ..Script::default()
        },
        plan(),
        Kernel::Fused,
        Op::Mul,
        64,
    );
    let m = m.unwrap();
    assert_eq!(
        m.check,
        Check::Failed {
            detail: "GPU error: out-of-bounds access (fake)".into()
        }
    );
    assert!(m.times.is_empty());
    // during the trials: timed, then failed by the error
    let (lab, m) = measure_one(
        Script {
            timestamps: true,
            error_at: Some(("fused mul ×64", 4)),
            ..Script::default()
        },
        plan(),
        Kernel::Fused,
        Op::Mul,
        64,
    );
    let m = m.unwrap();
    assert!(lab.driver.passes_of("fused mul ×64").len() > 4);
    assert_eq!(m.times.len(), 3);
    assert!(!m.usable());
    assert_eq!(
        m.check,
        Check::Failed {
            detail: "GPU error: out-of-bounds access (fake)".into()
        }
    );
}

#[test]
fn a_loss_mid_variant_is_an_error_not_a_measurement() {
    let (lab, m) = measure_one(
        Script {
            timestamps: true,
            // after the verification and the calibration's first trial
            lose_after: Some(("fused fma ×16", 1)),
            ..Script::default()
        },
        plan(),
        Kernel::Fused,
        Op::Fma,
        16,
    );
    match m {
        Err(Stop::Lost(why)) => assert_eq!(why, "the driver was reset"),
        other => panic!("{other:?}"),
    }
    // it stopped at the next check: nothing more was submitted
    assert_eq!(lab.driver.passes_of("fused fma ×16").len(), 2);
}

#[test]
fn out_of_memory_halves_the_buffers_down_to_the_minimum() {
    let mut p = plan::plan(&LIMITS, true).unwrap_or_else(|e| panic!("{e}"));
    let mut notes = Vec::new();
    let start = p.bytes;
    procedure::halve(&mut p, &mut notes).unwrap();
    assert_eq!(p.bytes, start / 2);
    assert_eq!(
        notes,
        ["Out of GPU memory at the planned size; using 512 KiB per buffer."]
    );
    procedure::halve(&mut p, &mut notes).unwrap();
    assert_eq!(p.bytes, start / 4);
    assert_eq!(
        procedure::halve(&mut p, &mut notes),
        Err("the GPU is out of memory even for small buffers".into())
    );
    assert_eq!(p.bytes, start / 4, "the last size that fit stays");
}

/// A whole run with a cache sweep up to 8 MiB on the fake, whose read bandwidth
/// falls from [`CACHE_BW`] to [`MEM_BW`] past [`CACHE_AT`].
fn run_with_sweep(script: Script) -> (Lab<Fake>, LabRun) {
    let info = adapter(script.timestamps);
    let mut p = plan();
    p.cache_bytes = 8 << 20;
    let mut run = procedure::begin(&info, &p, true, false, "today".into(), "running");
    let mut lab = Lab::new(Fake::new(script), p, run.timer);
    let result = pollster::block_on(lab.sweep(&[Dt::F32], &mut run, &|_| {}));
    procedure::settle(&mut run, result, "nothing was measured");
    (lab, run)
}

#[test]
fn the_cache_sweep_times_every_working_set_and_finds_the_scripted_cliff() {
    for timestamps in [true, false] {
        let (lab, run) = run_with_sweep(Script {
            timestamps,
            ..Script::default()
        });
        assert_eq!(run.outcome, Outcome::Complete, "{}", run.reason);
        // after the rest of the sweep, in order of size: 64 KiB … 8 MiB
        let reads: Vec<&Measurement> = run
            .measurements
            .iter()
            .skip(1 + plan::sweep().len())
            .collect();
        assert_eq!(reads.len(), 8);
        for (k, m) in reads.iter().enumerate() {
            assert_eq!((m.kernel, m.op, m.dt), (Kernel::Read, None, Dt::F32));
            assert_eq!(m.working_set(), (65536u64 << k) as f64);
            assert!(m.check.passed(), "{m:?}");
            let bw = if m.working_set() <= CACHE_AT as f64 {
                CACHE_BW
            } else {
                MEM_BW
            };
            let want = m.working_set() * f64::from(m.repeat) / bw;
            for &t in &m.times {
                assert!(close(t, want), "{} {t} {want}", label_of(m));
            }
            assert!(close(m.achieved_bw().unwrap_or(0.0), bw), "{m:?}");
        }
        let labels = lab.driver.labels();
        assert!(
            labels.contains(&"cache sweep: read 64 KiB".to_string()),
            "{labels:?}"
        );
        assert!(
            labels.contains(&"cache sweep: read 8 MiB".to_string()),
            "{labels:?}"
        );
        // the finder reads the scripted cliff back
        let c = cliff::find(&cliff::points(&run)).unwrap();
        assert!(close(c.cache_bw, CACHE_BW), "{c:?}");
        assert!(close(c.mem_bw.unwrap_or(0.0), MEM_BW), "{c:?}");
        let at = c.cache_bytes.unwrap_or(0.0);
        assert!(at > CACHE_AT as f64 && at < 2.0 * CACHE_AT as f64, "{at}");
    }
}

#[test]
fn a_working_set_read_back_wrong_fails_and_is_never_timed() {
    let (lab, run) = run_with_sweep(Script {
        wrong_at: Some("cache sweep: read 256 KiB"),
        ..Script::default()
    });
    assert_eq!(run.outcome, Outcome::Complete, "{}", run.reason);
    let m = run
        .measurements
        .iter()
        .find(|m| m.kernel == Kernel::Read && m.working_set() == 262144.0)
        .unwrap();
    assert!(!m.check.passed() && m.times.is_empty(), "{m:?}");
    // only the verification pass ran
    assert_eq!(lab.driver.passes_of("cache sweep: read 256 KiB").len(), 1);
    // the other sizes are measured and plotted
    assert_eq!(cliff::points(&run).len(), 7);
}
