//! Widget `tensor-cores`: the matmul ceilings (tensor cores) against the general
//! units, for the selected preset, scaled by the peak slider. The same two roofs
//! are drawn on the roofline explorer.

use crate::model::achievable::{self, Roof};
use crate::model::setting::preset_flops;
use crate::model::Dtype;
use crate::state::data::State;
use crate::state::params::params;
use crate::state::spec::{NativeOnly, Spec};

params! { in tensor_cores; }

/// One bar: what it is, its FLOP/s, its CSS class.
pub type Bar = (String, f64, &'static str);

/// The bars for the current preset, scaled like the explorer (by the peak
/// slider, and on achievable roofs by each unit's measured or estimated
/// fraction).
pub fn bars(s: &State) -> Vec<Bar> {
    let t = &s.setting;
    let scale = t.flops / preset_flops(t.hw, t.dtype);
    let f = match t.roof {
        Roof::Datasheet => None,
        Roof::Achievable => Some(achievable::fractions(t.hw)),
    };
    let mm = |d: Dtype| f.map_or(1.0, |f| f.matmul(d));
    let pw = f.map_or(1.0, |f| f.pointwise);
    let mut rows: Vec<Bar> = Dtype::ALL
        .into_iter()
        .filter_map(|d| {
            let p = t.hw.matmul_peak(d)?;
            let what = if d == Dtype::Fp32 {
                "matmul, fp32 (no TF32)"
            } else {
                "matmul, tensor cores"
            };
            Some((format!("{} {what}", d.id()), p * scale * mm(d), "compute"))
        })
        .collect();
    rows.push((
        "general units, fp32 FMA".into(),
        t.hw.fp32_vector * scale * pw,
        "vector",
    ));
    rows.push((
        "pointwise op (plain multiply)".into(),
        t.hw.pointwise_peak() * scale * pw,
        "vector",
    ));
    rows
}

/// The takeaway's figures: the best tensor-core rate over the fp32 FMA rate,
/// the matmul ceiling over the pointwise one in the current dtype, the GPU's
/// name, the dtype, and whether the GPU is the lab's measured one.
pub type Ratio = (f64, f64, String, &'static str, bool);

pub fn ratio(s: &State) -> Ratio {
    let m = s.machine();
    let hw = s.setting.hw;
    let best = Dtype::ALL
        .into_iter()
        .filter_map(|d| hw.matmul_peak(d))
        .fold(0.0, f64::max);
    (
        best / hw.fp32_vector,
        m.matmul_flops / m.pointwise_flops,
        s.hw_name(),
        s.setting.dtype.id(),
        hw.is_measured() && hw.base().is_none(),
    )
}

pub const SPEC: Spec = Spec {
    id: "tensor-cores",
    title: "Tensor cores vs everything else",
    // 452 px at 720 px wide by default, its GPU select included
    embed_height: 475,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| ratio(s).1)),
    on_gpu: None,
    reads: None,
};
