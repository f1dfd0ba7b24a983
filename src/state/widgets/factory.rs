//! Widget `factory`: the essay's factory analogy, animated from the explorer's
//! report (`crate::factory::Storyboard`). No controls of its own.

use crate::model::setting::limits;
use crate::model::Setting;
use crate::state::data::State;
use crate::state::params::params;
use crate::state::spec::{NativeOnly, Spec};

params! { in factory; }

/// "Double the factory": the state with twice the peak FLOP/s, within the
/// accepted range (at its top, the same state).
pub fn doubled(s: &State) -> State {
    State {
        setting: doubled_setting(&s.setting),
        ..s.clone()
    }
}

/// The explorer's setting of [`doubled`] (all the factory's preview reads).
pub fn doubled_setting(s: &Setting) -> Setting {
    Setting {
        flops: (s.flops * 2.0).min(limits::FLOPS.1),
        ..*s
    }
}

pub const SPEC: Spec = Spec {
    id: "factory",
    title: "Factory, warehouse, trucks",
    embed_height: 720,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| doubled(s).report().wall_time_s)),
    on_gpu: None,
    reads: None,
};
