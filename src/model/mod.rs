//! The functional core: pure Rust, no web-sys / leptos / DOM. Everything the page
//! shows is computed here and tested natively.

pub mod achievable;
pub mod bert;
pub mod dit;
pub mod double_batch;
pub mod explorer;
pub mod fusion;
pub mod gemm;
pub mod generations;
pub mod hardware;
pub mod limit;
pub mod llm;
pub mod measured;
pub mod microbench;
pub mod mygpu;
pub mod ops;
pub mod order;
pub mod overhead;
pub mod parallel;
pub mod reference;
pub mod remedies;
pub mod roofline;
pub mod serve;
pub mod setting;
pub mod shapes;
pub mod timeline;
pub mod units;
pub mod verdict;
pub mod workload;

pub use explorer::{analyse, GroupResult, Report};
pub use generations::Line;
pub use hardware::{Dtype, Preset};
pub use limit::Limit;
pub use roofline::Bound;
pub use setting::Setting;
pub use timeline::{Regime, Shares, Timeline};
pub use workload::{KernelGroup, Level, Machine, Shape, Unit, Workload};

#[cfg(test)]
mod essay_tests;

/// Test fixture: the A100 40GB preset in fp32, the essay's setting.
#[cfg(test)]
pub(crate) fn a100_fp32() -> Machine {
    let mut s = crate::state::State::default();
    s.select_dtype(Dtype::Fp32);
    s.machine()
}
