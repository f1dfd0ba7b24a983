//! THE KIT, the bottom layer of `ui/`: what every widget, chart and shell part
//! uses, importing nothing of `ui/` above it: the context ([`Ctx`]), deferred
//! work ([`later`]), what waits for a dragged slider to rest ([`drag`]), a module loaded on demand ([`on_demand`]), downloads and
//! storage, the controls ([`controls`]) and the readout ([`readout`]).

pub mod controls;
pub mod ctx;
pub mod download;
pub mod drag;
pub mod later;
pub mod on_demand;
pub mod readout;
pub mod storage;

pub use ctx::Ctx;
