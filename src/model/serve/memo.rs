//! The serving model's memo ([`Memo`]): answers remembered. The widget runs the
//! model ~25 times for one state (the concurrency sweep, where decode turns
//! compute-bound, the remedies); a slider that moves only the concurrency
//! repeats all but a few of them, so [`super::run`] and [`super::run_plain`]
//! keep their recent answers, keyed on everything they read (the run, the
//! setting, whether the decode step's limit is decided). Runs that differ share
//! steps (past the knee, a remedy that changes only the engine's time):
//! [`super::step::wall`] keeps its recent step times too, keyed on everything it
//! reads.
//!
//! The keys are exact: [`RunKey`] and [`StepKey`] hold every field of their
//! inputs (a struct is taken apart field by field with no `..`, so a field
//! added to one fails to compile here until the key holds it), each float by
//! its bits and the preset by its address (a `&'static Preset` is never
//! changed, so one address is one set of numbers); their `Eq` and `Hash` are
//! derived. Two inputs share an answer only when they are the same input
//! (`tests::different_inputs_never_share_an_answer`), and a remembered answer
//! is the one the model gives (`tests::remembered_runs_are_the_models`). At
//! most [`KEEP`] of each kind are kept.

use super::{Serve, ServeRun};
use crate::model::achievable::Roof;
use crate::model::hardware::{Dtype, Preset};
use crate::model::llm::spec::{DraftModel, SpecKind, SpecRun};
use crate::model::llm::{KvDtype, LlmConfig, LlmRun, Phase, WeightDtype};
use crate::model::parallel::{Link, Parallel};
use crate::model::setting::Setting;
use crate::model::workload::Shape;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::hash::Hash;

/// Answers kept of each kind, at most: a sweep and its remedies for a few
/// states.
pub const KEEP: usize = 128;

/// A [`Setting`], exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SettingKey {
    /// The preset's address.
    hw: usize,
    dtype: Dtype,
    flops: u64,
    bw: u64,
    overhead: u64,
    roof: Roof,
    shape: Shape,
    /// The measured L2 roof's bandwidth and working set, by their bits.
    l2_measured: Option<(u64, u64)>,
}

impl SettingKey {
    pub fn of(s: &Setting) -> SettingKey {
        let Setting {
            hw,
            dtype,
            flops,
            bw,
            overhead,
            roof,
            shape,
            l2_measured,
        } = *s;
        SettingKey {
            hw: std::ptr::from_ref::<Preset>(hw) as usize,
            dtype,
            flops: flops.to_bits(),
            bw: bw.to_bits(),
            overhead: overhead.to_bits(),
            roof,
            shape,
            l2_measured: l2_measured.map(|l| (l.bw.to_bits(), l.fits.to_bits())),
        }
    }
}

/// A [`Link`], exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct LinkKey {
    id: &'static str,
    name: &'static str,
    bw: u64,
    hop: u64,
    base: u64,
    source: &'static str,
}

/// An [`LlmRun`], exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LlmKey {
    config: LlmConfig,
    phase: Phase,
    batch: u32,
    context: u32,
    wdtype: WeightDtype,
    kvdtype: KvDtype,
    graphs: bool,
    flash: bool,
    tp: u32,
    pp: u32,
    dep: u32,
    link: LinkKey,
    overlap: bool,
    rank_tokens: u32,
}

impl LlmKey {
    pub fn of(r: &LlmRun) -> LlmKey {
        let LlmRun {
            config,
            phase,
            batch,
            context,
            wdtype,
            kvdtype,
            graphs,
            flash,
            par,
        } = *r;
        let Parallel {
            tp,
            pp,
            dep,
            link,
            overlap,
            rank_tokens,
        } = par;
        let Link {
            id,
            name,
            bw,
            hop,
            base,
            source,
        } = link;
        LlmKey {
            config,
            phase,
            batch,
            context,
            wdtype,
            kvdtype,
            graphs,
            flash,
            tp,
            pp,
            dep,
            link: LinkKey {
                id,
                name,
                bw: bw.to_bits(),
                hop: hop.to_bits(),
                base: base.to_bits(),
                source,
            },
            overlap,
            rank_tokens,
        }
    }
}

/// A [`ServeRun`] on a [`Setting`], and whether the decode step's limit is
/// decided: everything [`super::run`] and [`super::run_plain`] read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RunKey {
    llm: LlmKey,
    isl: u32,
    osl: u32,
    concurrency: u32,
    chunk: u32,
    max_seqs: u32,
    engine_s: u64,
    /// The speculation: drafter, drafts, acceptance (bits), draft model.
    spec: (SpecKind, u32, u64, DraftModel),
    setting: SettingKey,
    decide: bool,
}

impl RunKey {
    pub fn of(r: &ServeRun, setting: &Setting, decide: bool) -> RunKey {
        let ServeRun {
            llm,
            isl,
            osl,
            concurrency,
            chunk,
            max_seqs,
            engine_s,
            spec,
        } = *r;
        let SpecRun {
            kind,
            k,
            accept,
            draft,
        } = spec;
        RunKey {
            spec: (kind, k, accept.to_bits(), draft),
            llm: LlmKey::of(&llm),
            isl,
            osl,
            concurrency,
            chunk,
            max_seqs,
            engine_s: engine_s.to_bits(),
            setting: SettingKey::of(setting),
            decide,
        }
    }
}

/// Everything [`super::step::wall`] reads: the run, the decode sequences and
/// their context, the prompt tokens (bits), the prompt length and the setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StepKey {
    run: LlmKey,
    decode: u32,
    context: u32,
    prompt: u64,
    isl: u32,
    setting: SettingKey,
}

impl StepKey {
    pub fn of(
        run: &LlmRun,
        decode: u32,
        context: u32,
        prompt: f64,
        isl: u32,
        setting: &Setting,
    ) -> StepKey {
        StepKey {
            run: LlmKey::of(run),
            decode,
            context,
            prompt: prompt.to_bits(),
            isl,
            setting: SettingKey::of(setting),
        }
    }
}

/// The last answers of one function: the newer half and the older one; when the
/// newer is half of [`KEEP`], the older is dropped and the newer takes its
/// place.
struct Recent<K, V> {
    newer: FxHashMap<K, V>,
    older: FxHashMap<K, V>,
}

impl<K: Eq + Hash, V: Copy> Recent<K, V> {
    fn new() -> Self {
        Recent {
            newer: FxHashMap::default(),
            older: FxHashMap::default(),
        }
    }
    fn get(&self, key: &K) -> Option<V> {
        self.newer.get(key).or_else(|| self.older.get(key)).copied()
    }
    fn put(&mut self, key: K, v: V) {
        if self.newer.len() >= KEEP / 2 {
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.insert(key, v);
    }
    fn len(&self) -> usize {
        self.newer.len() + self.older.len()
    }
    fn clear(&mut self) {
        self.newer.clear();
        self.older.clear();
    }
}

/// The serving model's memo: the recent runs and step times of this thread.
pub struct Memo {
    runs: Recent<RunKey, Option<Serve>>,
    steps: Recent<StepKey, f64>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo {
        runs: Recent::new(),
        steps: Recent::new(),
    });
}

/// `f()`, remembered in the table `table` picks under `key`. The memo is not
/// borrowed while `f` runs (a run asks for step times).
fn remember<K: Eq + Hash, V: Copy>(
    table: fn(&mut Memo) -> &mut Recent<K, V>,
    key: K,
    f: impl FnOnce() -> V,
) -> V {
    if let Some(v) = MEMO.with_borrow_mut(|m| table(m).get(&key)) {
        return v;
    }
    let v = f();
    MEMO.with_borrow_mut(|m| table(m).put(key, v));
    v
}

/// `run()`'s answer, remembered under `key`.
pub fn remembered(key: RunKey, run: impl FnOnce() -> Option<Serve>) -> Option<Serve> {
    remember(|m| &mut m.runs, key, run)
}

/// A step's wall time `wall()`, remembered under `key`.
pub fn step_wall(key: StepKey, wall: impl FnOnce() -> f64) -> f64 {
    remember(|m| &mut m.steps, key, wall)
}

/// Forgets every answer (tests compare a cold run with a warm one).
pub fn forget() {
    MEMO.with_borrow_mut(|m| {
        m.runs.clear();
        m.steps.clear();
    });
}

/// Runs kept now.
pub fn len() -> usize {
    MEMO.with_borrow(|m| m.runs.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware::preset;

    fn setting() -> Setting {
        let hw = preset("h100-sxm").unwrap();
        Setting::on(hw, Dtype::Bf16, Roof::Achievable)
    }

    /// serve's own test run (`serve::tests::base`) at 64 in flight with a 2 ms engine.
    fn serve_run() -> ServeRun {
        ServeRun {
            engine_s: 2e-3,
            ..crate::model::serve::tests::base(64)
        }
    }

    /// The float one bit away from `x`.
    fn next(x: f64) -> f64 {
        f64::from_bits(x.to_bits() ^ 1)
    }

    /// Inputs that differ in one field, one float by its lowest bit, or zero by
    /// its sign, get keys of their own, and the memo answers each with its own
    /// run, whichever came first.
    #[test]
    fn different_inputs_never_share_an_answer() {
        let (r, s) = (serve_run(), setting());
        let base = RunKey::of(&r, &s, true);
        assert_eq!(base, RunKey::of(&r, &s, true));
        let mut other_hw = s;
        other_hw.hw = preset("h200").unwrap();
        let mut link = r;
        link.llm.par.link.hop = next(link.llm.par.link.hop);
        let moved = [
            RunKey::of(&r, &s, false),
            RunKey::of(
                &ServeRun {
                    engine_s: next(r.engine_s),
                    ..r
                },
                &s,
                true,
            ),
            RunKey::of(&ServeRun { chunk: 512, ..r }, &s, true),
            RunKey::of(&link, &s, true),
            RunKey::of(
                &r,
                &Setting {
                    flops: next(s.flops),
                    ..s
                },
                true,
            ),
            RunKey::of(
                &r,
                &Setting {
                    overhead: -0.0,
                    ..s
                },
                true,
            ),
            RunKey::of(&r, &other_hw, true),
        ];
        for (i, k) in moved.iter().enumerate() {
            assert_ne!(*k, base, "{i}");
        }
        let step = StepKey::of(&r.llm, 8, 2000, 0.0, 1000, &s);
        assert_ne!(step, StepKey::of(&r.llm, 8, 2000, -0.0, 1000, &s));
        assert_ne!(step, StepKey::of(&r.llm, 8, 2001, 0.0, 1000, &s));
        // answers: each input its own, in either order
        let slow = ServeRun {
            engine_s: 40e-3,
            ..r
        };
        let afresh: Vec<_> = [r, slow]
            .iter()
            .map(|x| {
                forget();
                crate::model::serve::run(x, &s)
            })
            .collect();
        assert_ne!(afresh[0], afresh[1]);
        for order in [[0, 1], [1, 0]] {
            forget();
            for i in order {
                assert_eq!(crate::model::serve::run(&[r, slow][i], &s), afresh[i]);
            }
            for i in order {
                assert_eq!(crate::model::serve::run(&[r, slow][i], &s), afresh[i]);
            }
        }
    }

    /// At most [`KEEP`] answers, and the newest always among them.
    #[test]
    fn the_memo_stays_bounded() {
        let mut t: Recent<u32, u32> = Recent::new();
        for i in 0..1000 {
            t.put(i, i * 2);
            assert!(t.len() <= KEEP);
            assert_eq!(t.get(&i), Some(i * 2));
        }
        assert_eq!(t.get(&0), None);
    }
}
