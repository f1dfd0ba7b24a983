//! Widget `hardware`: every preset's datasheet numbers with their sources
//! (`model::hardware::PRESETS`); a row selects the preset. No controls of its
//! own.

use crate::state::params::params;
use crate::state::spec::{NativeOnly, Spec};

params! { in hardware; }

pub const SPEC: Spec = Spec {
    id: "hardware",
    title: "Hardware presets",
    embed_height: 1340,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(None),
    on_gpu: None,
    reads: None,
};
