//! The lab's WebGPU side (wasm32 only): adapter and device, buffers, pipelines,
//! dispatch, timing, read-back and verification. Every JS or GPU failure becomes a
//! message; nothing here panics.
//!
//! How a variant is measured, and the sweep, are `gpu::procedure`'s, written once
//! for this driver and the native one (`gpu::native`, `brrr-lab`); this module
//! holds only what differs in the page.
//!
//! # Files, by concern
//! - `glue`: the clock, yielding to the page, error scopes (promises, errors as
//!   text and test knobs are `crate::js`, shared with the page's shell);
//! - `device`: adapter, limits, device and the [`device::Session`] that tears it down;
//! - `buffers`: the work buffers (halved on out-of-memory), uploads, read-backs;
//! - `queries`: [`queries::Queries`], the timestamp queries and their read-back;
//! - `driver`: the [`driver::Rig`] of a run, the page's `procedure::Driver`
//!   (compile, fill, one pass, a sample read back, round trip, progress,
//!   cancelled);
//! - `run`: the whole run: device, buffers, queries, the procedure's sweep, the
//!   outcome (a loss reported as such, given a few tasks to arrive).

mod buffers;
mod device;
mod driver;
mod glue;
mod queries;
mod run;

pub use crate::gpu::procedure::{Res, Stop};
use crate::gpu::results::LabRun;
pub use device::probe;
pub use glue::{now, yield_now};
pub use run::run;

/// What the run reports back to the page while it works.
pub struct Hooks<'a> {
    pub cancelled: &'a dyn Fn() -> bool,
    /// (fraction done, what is running)
    pub progress: &'a dyn Fn(f64, &str),
    /// The run so far (after every measurement).
    pub update: &'a dyn Fn(&LabRun),
}
