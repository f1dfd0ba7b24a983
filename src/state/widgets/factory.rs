//! Widget `factory`: the essay's factory analogy, animated from the explorer's
//! report (`crate::factory::Storyboard`). No controls of its own.

use super::super::params::params;
use super::{NativeOnly, Spec};

params! { in factory; }

pub const SPEC: Spec = Spec {
    id: "factory",
    title: "Factory, warehouse, trucks",
    embed_height: 720,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(None),
    on_gpu: None,
};
