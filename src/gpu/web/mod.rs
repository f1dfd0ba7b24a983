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
//! 6. Trials spread more than ±10 % around their median (`NOISY_SPREAD`) are
//!    taken again, up to `Plan::remeasure` more sets; the quietest set is kept,
//!    and one still that wide is marked noisy (page and exports).
//!
//! # Files, by concern
//! - `glue`: the clock, yielding to the page, error scopes (promises, errors as
//!   text and test knobs are `crate::js`, shared with the page's shell);
//! - `device`: adapter, limits, device and the [`device::Session`] that tears it down;
//! - `buffers`: the work buffers (halved on out-of-memory), uploads, read-backs;
//! - `queries`: [`queries::Queries`], the timestamp queries and their read-back;
//! - `measure`: the [`measure::Rig`] of a run; one variant's compile → verify →
//!   calibrate → time, and overheads;
//! - `run`: the whole run (the sweep of `plan::sweep`), progress, outcome.
//!
//! The procedure is the same as the native driver's (`gpu::native`, `brrr-lab`); both
//! use the pure modules for everything but the GPU calls.

mod buffers;
mod device;
mod glue;
mod measure;
mod queries;
mod run;

pub use device::probe;
pub use glue::{now, yield_now};
pub use run::{run, Hooks};

/// Why a run stopped early.
#[derive(Debug)]
pub enum Stop {
    Cancelled,
    /// The device was lost (driver reset, watchdog, `destroy()`); the message says why.
    Lost(String),
    Error(String),
}

type Res<T> = Result<T, Stop>;
