//! Widget `tensor-cores`: the matmul ceilings (tensor cores) against the general
//! units, for the selected preset, scaled by the peak slider. The same two roofs are
//! drawn on the roofline explorer.

use crate::model::units;
use crate::state::widgets::tensor_cores as spec;
use crate::ui::kit::Ctx;
use leptos::prelude::*;

#[component]
pub fn TensorCores(ctx: Ctx) -> impl IntoView {
    // (label, FLOP/s, class) rows for the current preset, scaled like the
    // explorer, and the takeaway's ratios (`state::widgets::tensor_cores`)
    let rows = Memo::new(move |_| ctx.view.with(spec::bars));
    let ratio = Memo::new(move |_| ctx.view.with(spec::ratio));
    let max = move || rows.with(|r| r.iter().map(|x| x.1).fold(1.0, f64::max));
    view! {
        <crate::ui::kit::controls::GpuPicker ctx=ctx id="tc-hw"/>
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
