//! brrr: GPU performance from first principles.
//!
//! - [`model`]: the pure functional core (no web imports), tested natively.
//! - [`state`]: app state and the URL codec (a public, stable contract).
//! - [`colour`]: WCAG contrast and the legible text colour the charts draw with.
//! - [`csv`]: CSV written and read in one place (charts' and lab's exports).
//! - [`json`]: a tiny JSON value, parser and writer (the lab's export, the
//!   stored measurements the model's tests and widgets read).
//! - [`factory`]: the factory analogy's storyboard (what the animated picture
//!   shows at each instant), tested natively.
//! - [`geom`]: chart geometry (lines cut to the axes, label placement), tested
//!   natively.
//! - [`trace`]: the PyTorch-profiler trace analyser (streaming parse, HTA's
//!   temporal breakdown, regime by counterfactuals), tested natively.
//! - [`gpu`]: the WebGPU lab: pure kernels, reference, results (native-tested);
//!   `gpu::web` talks to the GPU (wasm32 only).
//! - `js`: the JS glue `ui` and `gpu::web` share (wasm32 only).
//! - `ui`: the Leptos shell (wasm32 only).

pub mod colour;
pub mod csv;
pub mod factory;
pub mod geom;
pub mod gpu;
pub mod json;
pub mod model;
pub mod state;
pub mod trace;

#[cfg(target_arch = "wasm32")]
pub mod js;
#[cfg(target_arch = "wasm32")]
pub mod ui;
