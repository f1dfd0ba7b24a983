//! Steady states remembered. The widget runs the model ~25 times for one state
//! (the concurrency sweep, where decode turns compute-bound, the remedies); a
//! slider that moves only the concurrency repeats all but a few of them, so
//! [`super::run`] and [`super::run_plain`] keep their recent answers, keyed on
//! everything they read (the run, the setting, whether the decode step's limit
//! is decided). A remembered answer is the one the model gives
//! (`tests::remembered_runs_are_the_models`); at most [`KEEP`] are kept.

use super::{Serve, ServeRun};
use crate::model::setting::Setting;
use std::cell::RefCell;

/// Answers kept: a sweep and its remedies for a few states.
pub const KEEP: usize = 128;

type Entry = (ServeRun, Setting, bool, Option<Serve>);

thread_local! {
    static RUNS: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// `run(r, setting)`'s answer, remembered under `(r, setting, decide)`.
pub fn remembered(
    r: &ServeRun,
    setting: &Setting,
    decide: bool,
    run: impl FnOnce() -> Option<Serve>,
) -> Option<Serve> {
    let hit = RUNS.with_borrow(|runs| {
        runs.iter()
            .rev()
            .find(|(kr, ks, kd, _)| kd == &decide && kr == r && ks == setting)
            .map(|e| e.3)
    });
    if let Some(answer) = hit {
        return answer;
    }
    let answer = run();
    RUNS.with_borrow_mut(|runs| {
        if runs.len() >= KEEP {
            runs.drain(..KEEP / 2);
        }
        runs.push((*r, *setting, decide, answer));
    });
    answer
}

/// Forgets every answer (tests compare a cold run with a warm one).
pub fn forget() {
    RUNS.with_borrow_mut(Vec::clear);
}

/// Answers kept now.
pub fn len() -> usize {
    RUNS.with_borrow(Vec::len)
}
