//! Widget `diagnosis`: which regime the explorer's step is in, from the
//! explorer's report (`State::report`): the three shares, the halvings and
//! what would and would not help. No controls or model of its own.

use crate::state::params::params;
use crate::state::spec::{NativeOnly, Spec};

params! { in diagnosis; }

pub const SPEC: Spec = Spec {
    id: "diagnosis",
    title: "Which regime am I in?",
    // 616 px at 720 px wide by default (the halvings and the contrast sentence)
    embed_height: 640,
    gate: false,
    inside: Some("roofline-explorer"),
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(None),
    on_gpu: None,
    reads: None,
};
