//! The trace worker's JSON row on the page. The schema is written once, in
//! `trace::report::Row` (serde): the worker posts it as JSON and this app reads
//! it back into the same type with serde_json (this app has its own .wasm, so
//! the page's first load still never links serde_json). What the page shows
//! of a row beyond its fields: readout values and texts.

use crate::model::units;
pub use crate::trace::report::{LaneRow, Row, TimelineRow};
pub use crate::trace::words::pc;

/// One rank as the worker reported it.
pub type Rank = Row;

/// The worker's `json` text as a row; `None` if it is not one.
pub fn decode(text: &str) -> Option<Rank> {
    crate::trace::report::decode(text)
}

/// A readout's raw value: the number as Rust prints it (shortest round trip,
/// so it equals the CLI's JSON), "" when absent.
pub fn raw(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map_or_else(String::new, |v| v.to_string())
}

/// Seconds in engineering notation; "—" when absent.
pub fn secs(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map_or_else(|| "—".into(), |v| units::si(v, "s"))
}
