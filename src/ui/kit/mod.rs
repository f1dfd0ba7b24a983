//! THE KIT, the bottom layer of `ui/`: what every widget, chart and shell part
//! uses, importing nothing of `ui/` above it: the context ([`Ctx`]), deferred
//! work ([`later`]), a module loaded on demand ([`on_demand`]), downloads and
//! storage, the controls ([`controls`]) and the readout ([`readout`]).

pub mod controls;
pub mod ctx;
pub mod download;
pub mod later;
pub mod on_demand;
pub mod readout;
pub mod storage;

pub use ctx::Ctx;
