//! brrr: GPU performance from first principles.
//!
//! - [`model`]: the pure functional core (no web imports), tested natively.
//! - [`state`]: app state and the URL codec (a public, stable contract).
//! - `ui`: the Leptos shell (wasm32 only).

pub mod model;
pub mod state;

#[cfg(target_arch = "wasm32")]
pub mod ui;
