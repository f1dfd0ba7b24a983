//! Widget `remedies`: the essay's conclusion table, each remedy priced on the
//! explorer's setting (`model::remedies::evaluate`). No controls of its own.

use crate::state::params::params;
use crate::state::spec::{NativeOnly, Spec};

params! { in remedies; }

pub const SPEC: Spec = Spec {
    id: "remedies",
    title: "Regime → remedies",
    embed_height: 890,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| {
        crate::model::remedies::evaluate(&s.setting).len() as f64
    })),
    on_gpu: None,
    reads: None,
};
