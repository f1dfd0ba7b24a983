//! Answers remembered. The widget runs the model ~25 times for one state (the
//! concurrency sweep, where decode turns compute-bound, the remedies); a slider
//! that moves only the concurrency repeats all but a few of them, so
//! [`super::run`] and [`super::run_plain`] keep their recent answers, keyed on
//! everything they read (the run, the setting, whether the decode step's limit
//! is decided). Runs that differ share steps (past the knee, a remedy that
//! changes only the engine's time): [`super::step::wall`] keeps its recent step
//! times too, keyed on everything it reads. A remembered answer is the one the
//! model gives (`tests::remembered_runs_are_the_models`); at most [`KEEP`] of
//! each are kept.

use super::{Serve, ServeRun};
use crate::model::llm::LlmRun;
use crate::model::setting::Setting;
use std::cell::RefCell;

/// Answers kept of each kind: a sweep and its remedies for a few states.
pub const KEEP: usize = 128;

/// The last answers of one function, newest last.
struct Recent<K, V>(Vec<(K, V)>);

impl<K: PartialEq, V: Copy> Recent<K, V> {
    const fn new() -> Self {
        Recent(Vec::new())
    }
    fn get(&self, key: &K) -> Option<V> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|e| e.1)
    }
    fn put(&mut self, key: K, v: V) {
        if self.0.len() >= KEEP {
            self.0.drain(..KEEP / 2);
        }
        self.0.push((key, v));
    }
}

/// A step's key: the run, the decode sequences and their context, the prompt
/// tokens (bits), the prompt length and the setting.
type StepKey = (LlmRun, u32, u32, u64, u32, Setting);

thread_local! {
    static RUNS: RefCell<Recent<(ServeRun, Setting, bool), Option<Serve>>> =
        const { RefCell::new(Recent::new()) };
    static STEPS: RefCell<Recent<StepKey, f64>> = const { RefCell::new(Recent::new()) };
}

/// `f()`, remembered in `table` under `key`.
fn remember<K: PartialEq, V: Copy>(
    table: &'static std::thread::LocalKey<RefCell<Recent<K, V>>>,
    key: K,
    f: impl FnOnce() -> V,
) -> V {
    if let Some(v) = table.with_borrow(|t| t.get(&key)) {
        return v;
    }
    let v = f();
    table.with_borrow_mut(|t| t.put(key, v));
    v
}

/// `run(r, setting)`'s answer, remembered under `(r, setting, decide)`.
pub fn remembered(
    r: &ServeRun,
    setting: &Setting,
    decide: bool,
    run: impl FnOnce() -> Option<Serve>,
) -> Option<Serve> {
    remember(&RUNS, (*r, *setting, decide), run)
}

/// A step's wall time `wall()`, remembered under everything it reads.
pub fn step_wall(key: StepKey, wall: impl FnOnce() -> f64) -> f64 {
    remember(&STEPS, key, wall)
}

/// Forgets every answer (tests compare a cold run with a warm one).
pub fn forget() {
    RUNS.with_borrow_mut(|t| t.0.clear());
    STEPS.with_borrow_mut(|t| t.0.clear());
}

/// Runs kept now.
pub fn len() -> usize {
    RUNS.with_borrow(|t| t.0.len())
}
