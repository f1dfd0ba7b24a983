//! The WebGPU measurement lab: measure this machine's bandwidth, pointwise FLOP/s
//! and dispatch overhead, and draw them as a roofline.
//!
//! Pure, native-tested modules (no web imports):
//! - [`wgsl`]: the WGSL kernels, generated in Rust (one template per family);
//! - [`reference`]: the input pattern, the same chains on the CPU, f16 rounding,
//!   and the verification tolerances next to the WGSL precision rules;
//! - [`results`]: what a run produces, with statistics and derived figures;
//! - [`analysis`]: copy bandwidth, compute ceiling, crossover, fusion speedups;
//! - [`plan`]: buffer sizes from the adapter's limits, budgets, chunking;
//! - [`json`]: the tiny JSON codec; [`export`]: a run as JSON or CSV and back
//!   (exact round trips; CSV quoting and reading are `crate::csv`);
//! - [`apply`]: turning a run into the explorer's slider values;
//! - [`datasheet`]: which preset the adapter looks like, and the measured figures
//!   as percentages of its datasheet;
//! - [`table`]: the results as words and numbers (the page renders them as DOM
//!   text nodes; nothing is parsed as HTML), and the lab widget's `Status`.
//!
//! - [`procedure`]: the lab's procedure itself (round trip, measure one variant,
//!   overheads, the sweep), written once as async code over its `Driver` trait.
//!
//! Two drivers implement that trait: `web` (wasm32 only, the page: WebGPU through
//! web-sys) and `native` (not wasm32, `brrr-lab`: the `wgpu` crate's Vulkan, Metal
//! and DX12 backends, the procedure under `pollster::block_on`).

pub mod analysis;
pub mod apply;
pub mod cliff;
pub mod datasheet;
pub mod export;
pub use crate::json;
pub mod plan;
pub mod procedure;
pub mod reference;
pub mod results;
pub mod table;
pub mod wgsl;

#[cfg(not(target_arch = "wasm32"))]
pub mod native;
#[cfg(target_arch = "wasm32")]
pub mod web;
