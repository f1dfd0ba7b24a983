//! Widget `tensor-cores`: the matmul ceilings (tensor cores) against the general
//! units, for the selected preset, scaled by the peak slider. The same two roofs are
//! drawn on the roofline explorer.

use super::Ctx;
use crate::model::achievable::{self, Roof};
use crate::model::{units, Dtype};
use crate::state::preset_flops;
use leptos::prelude::*;

#[component]
pub fn TensorCores(ctx: Ctx) -> impl IntoView {
    // (label, FLOP/s, class) rows for the current preset, scaled like the explorer.
    let rows = Memo::new(move |_| {
        ctx.view.with(|s| {
            let scale = s.flops / preset_flops(s.hw, s.dtype);
            // achievable roofs scale each unit by its measured (or estimated) fraction
            let f = match s.roof {
                Roof::Datasheet => None,
                Roof::Achievable => Some(achievable::fractions(s.hw)),
            };
            let mm = |d: Dtype| f.map_or(1.0, |f| f.matmul(d));
            let pw = f.map_or(1.0, |f| f.pointwise);
            let mut rows: Vec<(String, f64, &'static str)> = Dtype::ALL
                .into_iter()
                .filter_map(|d| {
                    let p = s.hw.matmul_peak(d)?;
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
                s.hw.fp32_vector * scale * pw,
                "vector",
            ));
            rows.push((
                "pointwise op (plain multiply)".into(),
                s.hw.pointwise_peak() * scale * pw,
                "vector",
            ));
            rows
        })
    });
    let ratio = Memo::new(move |_| {
        ctx.view.with(|s| {
            let m = s.machine();
            let best = Dtype::ALL
                .into_iter()
                .filter_map(|d| s.hw.matmul_peak(d))
                .fold(0.0, f64::max);
            (
                best / s.hw.fp32_vector,
                m.matmul_flops / m.pointwise_flops,
                s.hw_name(),
                s.dtype.id(),
                s.hw.is_measured(),
            )
        })
    });
    let max = move || rows.with(|r| r.iter().map(|x| x.1).fold(1.0, f64::max));
    view! {
        <super::controls::GpuPicker ctx=ctx id="tc-hw"/>
        <p>
            "Matrix multiplies run on dedicated tensor (matrix) cores; everything else runs on the general "
            "units, and a plain multiply is not a fused multiply-add, so it gets half their advertised rate."
        </p>
        <ul class="bars" aria-label=move || {
            let (best, cur, name, dt, _) = ratio.get();
            format!("{name}: tensor cores reach {}× the fp32 FMA rate; in {dt} a matmul can run {}× faster per FLOP than a pointwise op.",
                units::sig3(best), units::sig3(cur))
        }>
            {move || {
                let m = max();
                rows.get()
                    .into_iter()
                    .map(|(label, v, class)| {
                        // log-scaled bar, 4 decades below the top
                        let w = ((v / m).log10() / 4.0 + 1.0).clamp(0.02, 1.0) * 100.0;
                        view! {
                            <li>
                                <span class="bar-label">{label}</span>
                                <span class=format!("bar {class}") style=format!("width:{w:.1}%")></span>
                                <span class="bar-value">{units::si(v, "FLOP/s")}</span>
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ul>
        <p class="takeaway" aria-live="polite">
            {move || {
                let (best, cur, name, dt, measured) = ratio.get();
                if measured {
                    return format!(
                        "{name} was measured by the lab, which times fp32 kernels only, so brrr does not \
                         know its tensor-core rates and shows only its fp32 units (a matmul here runs at \
                         the fp32 FMA rate, {}× a pointwise op's). Pick its datasheet preset to see the \
                         tensor cores.",
                        units::sig3(cur)
                    );
                }
                format!(
                    "On the {name}, tensor cores give {}× the general units' FMA rate. In {dt}, a FLOP in a \
                     pointwise op costs {}× more time than a FLOP in a matmul, so the 0.2 % of FLOPs outside \
                     matmuls can take a large share of the time.",
                    units::sig3(best),
                    units::sig3(cur)
                )
            }}
        </p>
    }
}
