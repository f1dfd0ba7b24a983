//! Widget `hardware`: every preset with its datasheet numbers and source; choosing a
//! row selects that preset everywhere.

use crate::model::{hardware, units, Dtype};
use crate::ui::kit::Ctx;
use leptos::prelude::*;

/// What the ridge belongs to: the dtype and the units that run its matmuls.
fn ridge_dtype(p: &hardware::Preset, d: Dtype) -> &'static str {
    match (d, p.vendor) {
        (Dtype::Fp32, _) => "fp32",
        (Dtype::Tf32, _) => "tf32 tensor",
        (Dtype::Bf16, "AMD") => "bf16 matrix",
        (Dtype::Bf16, _) => "bf16/fp16 tensor",
        (Dtype::Fp8, _) => "fp8 tensor",
    }
}

fn peak(p: &hardware::Preset, d: Dtype) -> String {
    p.matmul_peak(d)
        .map(|v| units::si(v, ""))
        .unwrap_or_else(|| "–".into())
}

#[component]
pub fn HardwareTable(ctx: Ctx) -> impl IntoView {
    let current = Memo::new(move |_| ctx.view.with(|s| s.setting.hw.id));
    view! {
        <p>"Choose a row to load it into every widget."</p>
        <p class="sr-only" aria-live="polite">
            {move || {
                let id = current.get();
                let name = hardware::preset(id).map(|p| p.name).unwrap_or(id);
                format!("Selected: {name}.")
            }}
        </p>
        <div class="table-scroll" tabindex="0" role="region" aria-label="Hardware presets, scrollable">
            <table class="hw-table">
                <caption>
                    "Dense peaks (no sparsity) in FLOP/s. Bandwidth and memory in GB = 10⁹ bytes, as the "
                    "datasheets give them. Ridge point: where the memory roof meets the matmul ceiling "
                    "(peak ÷ bandwidth) for the dtype named with it, the one the preset opens with."
                </caption>
                <thead>
                    <tr>
                        <th scope="col">"GPU"</th><th scope="col">"year"</th>
                        <th scope="col">"fp32"</th><th scope="col">"tf32"</th><th scope="col">"bf16/fp16"</th>
                        <th scope="col">"fp8"</th><th scope="col">"bandwidth"</th><th scope="col">"memory"</th>
                        <th scope="col">"link between GPUs"</th><th scope="col">"ridge point"</th><th scope="col">"source"</th>
                    </tr>
                </thead>
                <tbody>
                    {hardware::PRESETS
                        .iter()
                        .map(|p| {
                            let (dtype, ridge) = p.ridge();
                            view! {
                                <tr class:current=move || current.get() == p.id data-preset=p.id>
                                    <th scope="row">
                                        <button
                                            class="link"
                                            aria-pressed=move || (current.get() == p.id).to_string()
                                            on:click=move |_| ctx.state.update(|s| s.select_preset(p))
                                        >
                                            {p.name}
                                        </button>
                                    </th>
                                    <td>{p.year}</td>
                                    <td>{units::si(p.fp32_vector, "")}</td>
                                    <td>{peak(p, Dtype::Tf32)}</td>
                                    <td>{peak(p, Dtype::Bf16)}</td>
                                    <td>{peak(p, Dtype::Fp8)}</td>
                                    <td data-col="bandwidth">{format!("{} GB/s", units::gb(p.mem_bw))}</td>
                                    <td data-col="memory">{format!("{} GB", units::gb(p.mem_bytes))}</td>
                                    <td data-col="link" title=crate::model::parallel::default_link(p.id).map_or("", |l| l.source)>
                                        {crate::model::parallel::default_link(p.id).map_or("none".to_string(), |l| format!("{}, {} GB/s", l.name, units::gb(l.bw)))}
                                    </td>
                                    <td data-col="ridge" data-dtype=dtype.id()>
                                        {format!("{} FLOP/B ({})", units::sig3(ridge), ridge_dtype(p, dtype))}
                                    </td>
                                    <td class="source">{p.source}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}
