//! The two separately built apps: each is its own Leptos app in its own .wasm
//! (`src/bin/brrr-lab-ui.rs`, `src/bin/brrr-trace-ui.rs`), loaded on demand by
//! its widget's stand-in in the page (`ui/widgets/lab.rs`, `ui/widgets/trace.rs`),
//! never by `start`; the page's .wasm links neither.

pub mod lab;
pub mod trace;
