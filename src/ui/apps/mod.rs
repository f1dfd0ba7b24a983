//! The three separately built apps: each is its own Leptos app in its own .wasm
//! (`src/bin/brrr-lab-ui.rs`, `src/bin/brrr-trace-ui.rs`, `src/bin/brrr-more-ui.rs`
//! for the serve and shapes widgets), loaded on demand by its widget's stand-in in
//! the page (`ui/widgets/lab.rs`, `ui/widgets/trace.rs`, `ui/widgets/more.rs`),
//! never by `start`; the page's .wasm links none of them.

pub mod lab;
pub mod more;
pub mod trace;
