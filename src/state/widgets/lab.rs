//! Widget `lab`: the WebGPU lab, its own app loaded on demand
//! (`ui/apps/lab/`, `gpu/`). It keeps its results outside the URL
//! (localStorage); "Use my GPU" sets the explorer's preset to the measured one.

use crate::state::params::params;
use crate::state::spec::{NativeOnly, Spec};

params! { in lab; }

pub const SPEC: Spec = Spec {
    id: "lab",
    title: "Measure my GPU",
    embed_height: 1380,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(None),
    on_gpu: None,
    reads: None,
};
