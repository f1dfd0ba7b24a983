//! Widget `generations`: GPU generations by year, FLOP/s against bandwidth
//! (`model::generations`), one line of GPUs or both.

use crate::model::generations::{self, Line};
use crate::state::params::{choice_enum, params};
use crate::state::spec::{NativeOnly, Spec};

choice_enum! {
    /// Which line of GPUs the chart shows.
    pub enum GenLine {
        Both = "both" "both lines",
        Datacenter = "datacenter" "datacenter (HBM)",
        Consumer = "consumer" "consumer (GDDR)",
    }
}

impl GenLine {
    /// The model's line, or `None` for both.
    pub fn filter(self) -> Option<Line> {
        match self {
            GenLine::Both => None,
            GenLine::Datacenter => Some(Line::Datacenter),
            GenLine::Consumer => Some(Line::Consumer),
        }
    }
}

params! {
    in generations;
    line: Choice<GenLine> = GenLine::Both, "gen_line", "Show";
}

pub const SPEC: Spec = Spec {
    id: "generations",
    title: "Compute grows faster than bandwidth",
    embed_height: 1300,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    // the GPUs the chart draws
    model: NativeOnly::new(Some(|s| {
        generations::rows(s.widgets.generations.line.filter()).len() as f64
    })),
    on_gpu: None,
    reads: None,
};
