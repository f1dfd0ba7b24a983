//! Widget `hardware`: every preset with its datasheet numbers and source; choosing a
//! row selects that preset everywhere.

use super::Ctx;
use crate::model::{hardware, units, Dtype};
use leptos::prelude::*;

fn peak(p: &hardware::Preset, d: Dtype) -> String {
    p.matmul_peak(d)
        .map(|v| units::si(v, ""))
        .unwrap_or_else(|| "–".into())
}

#[component]
pub fn HardwareTable(ctx: Ctx) -> impl IntoView {
    let current = Memo::new(move |_| ctx.view.with(|s| s.hw.id));
    view! {
        <p>"Dense peaks (no sparsity) in FLOP/s, DRAM bandwidth in bytes/s. Choose a row to load it into every widget."</p>
        <p class="sr-only" aria-live="polite">
            {move || {
                let id = current.get();
                let name = hardware::preset(id).map(|p| p.name).unwrap_or(id);
                format!("Selected: {name}.")
            }}
        </p>
        <div class="table-scroll" tabindex="0" role="region" aria-label="Hardware presets, scrollable">
            <table class="hw-table">
                <thead>
                    <tr>
                        <th scope="col">"GPU"</th><th scope="col">"year"</th>
                        <th scope="col">"fp32"</th><th scope="col">"tf32"</th><th scope="col">"bf16/fp16"</th>
                        <th scope="col">"fp8"</th><th scope="col">"bandwidth"</th><th scope="col">"memory"</th>
                        <th scope="col">"ridge (bf16)"</th><th scope="col">"source"</th>
                    </tr>
                </thead>
                <tbody>
                    {hardware::PRESETS
                        .iter()
                        .map(|p| {
                            let ridge = p.matmul_peak(p.default_dtype()).unwrap_or(p.fp32_matmul) / p.mem_bw;
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
                                    <td>{units::si(p.mem_bw, "B/s")}</td>
                                    <td>{units::si(p.mem_bytes, "B")}</td>
                                    <td>{format!("{} FLOP/B", units::sig3(ridge))}</td>
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
