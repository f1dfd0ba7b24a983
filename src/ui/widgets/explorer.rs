//! The roofline explorer, the essay's first widget.

use super::{diagnosis, readouts, roofline};
use crate::model::achievable::{self, Roof};
use crate::model::{units, Dtype, Workload};
use crate::state::widgets::explorer;
use crate::ui::kit::controls::{HwSelect, LogSlider};
use crate::ui::kit::later::{self, Later};
use crate::ui::kit::{drag, Ctx};
use leptos::prelude::*;

/// The roofline explorer: controls, chart, diagnosis, key numbers (the last two
/// wait for a dragged slider to rest, [`drag::still`]). Its frame and
/// one-line answer are built with the first screen; the chart, the controls (two
/// groups), the diagnosis and the readouts each in a task after it, in that order
/// ([`later::Later`]): one long task split in six. (Every part calls much of its
/// code for the first time, and V8 compiles each wasm function on its first
/// call, on the main thread: about half of each part's task at start.)
/// Three panels placed by CSS grid areas: controls beside the chart and the
/// breakdown on wide screens; on narrow ones the chart comes first and stays
/// pinned to the top of the viewport while the controls scroll under it, so a
/// slider and the chart it moves are on screen together. The chart's panel
/// opens on the one-line answer, so the batch slider (the workload's controls
/// come first), the chart and the answer are in view together on arrival.
#[component]
pub fn Explorer(ctx: Ctx) -> impl IntoView {
    // made first, so the chart is the first part the queue builds
    let chart = view! { <Later name="explorer-chart"><roofline::Roofline ctx=ctx/></Later> };
    // the breakdown and the key numbers follow a dragged slider once it rests;
    // the one-line answer and the chart follow every input
    let details = Ctx {
        view: drag::still(ctx.view),
        report: drag::still(ctx.report),
        ..ctx
    };
    view! {
        <div class="explorer">
            <section class="panel controls" aria-label="Hardware and workload">
                <Controls ctx=ctx/>
            </section>
            <section class="panel figure explorer-chart" aria-label="Roofline">
                // the one-line answer, above the chart (pinned with it on phones)
                <p class="explorer-headline">{move || ctx.report.with(|r| crate::model::limit::headline_at(&r.limit, r.wall_time_s, r.levels))}</p>
                {chart}
            </section>
            <section class="panel figure explorer-details" aria-label="Time breakdown">
                <later::Later name="explorer-diagnosis"><div id="diagnosis"><diagnosis::Diagnosis ctx=details/></div></later::Later>
                <later::Later name="explorer-readouts"><readouts::Readouts ctx=details/></later::Later>
            </section>
        </div>
    }
}

/// The two groups, workload (the batch slider, the page's first lesson) then
/// hardware, each built in a task of its own after the explorer's chart
/// ([`Later`]).
#[component]
pub fn Controls(ctx: Ctx) -> impl IntoView {
    view! {
        <Later name="explorer-workload"><WorkloadControls ctx=ctx/></Later>
        <Later name="explorer-hardware"><HardwareControls ctx=ctx/></Later>
    }
}

/// The roofs select's choices: each widget its own (no `roof` key), or one for
/// every widget (`State::choose_roof`).
const ROOFS: [(&str, Option<Roof>, &str); 3] = [
    ("own", None, "datasheet in the essay, achievable beyond it"),
    (
        "datasheet",
        Some(Roof::Datasheet),
        "datasheet peaks, every widget",
    ),
    (
        "achievable",
        Some(Roof::Achievable),
        "achievable, every widget",
    ),
];

#[component]
fn HardwareControls(ctx: Ctx) -> impl IntoView {
    let state = ctx.state;
    // the preset itself, not its id: a measured GPU's id is the same whatever
    // datasheet it matched, and that datasheet brings its dtypes
    let hw = Memo::new(move |_| state.with(|s| s.setting.hw));
    let dtype = Memo::new(move |_| state.with(|s| s.setting.dtype));
    let roof = Memo::new(move |_| state.with(|s| s.setting.roof));
    let choice = Memo::new(move |_| state.with(|s| s.roof_choice()));

    let on_dtype = move |ev| {
        if let Some(d) = Dtype::from_id(&event_target_value(&ev)) {
            state.update(|s| s.select_dtype(d));
        }
    };
    let source = Memo::new(move |_| state.with(|s| s.setting.hw.source));

    view! {
        <h4 class="panel-title">"Hardware"</h4>
        <div class="row">
            <label for="hw">"Preset"</label>
            <HwSelect ctx=ctx id="hw"/>
            <button id="reset" class="small" title="Restore every control to its default"
                on:click=move |_| state.set(crate::state::State::default())>"Reset"</button>
        </div>
        <p class="source" title="Source of the numbers">{move || source.get()}</p>
        <crate::ui::kit::controls::MyGpuLine ctx=ctx range=Some(crate::state::widgets::explorer::range)/>
        <div class="row">
            <label for="roof">"Roofs"</label>
            <select id="roof" on:change=move |ev| {
                let v = event_target_value(&ev);
                if let Some(c) = ROOFS.iter().find(|c| c.0 == v) {
                    state.update(|s| s.choose_roof(c.1));
                }
            } prop:value=move || ROOFS.iter().find(|c| c.1 == choice.get()).map_or("own", |c| c.0)>
                {ROOFS.into_iter().map(|(id, r, label)| view! {
                    <option value=id selected=move || choice.get() == r>{label}</option>
                }).collect_view()}
            </select>
        </div>
        {move || (roof.get() == Roof::Achievable).then(|| view! {
            <p class="source" id="roof-source" title="Achievable fractions">
                {move || state.with(|s| {
                    let f = achievable::fractions(s.setting.hw);
                    format!(
                        "Achievable: bandwidth {}, matmul {} ({}), pointwise {} of the datasheet; {}",
                        units::percent(f.bw),
                        units::percent(f.matmul(s.setting.dtype)),
                        s.setting.dtype.id(),
                        units::percent(f.pointwise),
                        f.source
                    )
                })}
            </p>
        })}
        <div class="row">
            <label for="dtype">"Dtype"</label>
            <select id="dtype" on:change=on_dtype prop:value=move || dtype.get().id()>
                {move || {
                    hw.get()
                        .dtypes()
                        .map(|d| {
                            view! {
                                <option value=d.id() selected=move || dtype.get() == d>
                                    {d.label()}
                                </option>
                            }
                        })
                        .collect_view()
                }}
            </select>
        </div>
        <LogSlider ctx=ctx field=explorer::FLOPS/>
        <LogSlider ctx=ctx field=explorer::BW/>
        <LogSlider ctx=ctx field=explorer::OVERHEAD/>
    }
}

#[component]
fn WorkloadControls(ctx: Ctx) -> impl IntoView {
    let state = ctx.state;
    let workload = Memo::new(move |_| state.with(|s| s.setting.shape.workload));
    let fused = Memo::new(move |_| state.with(|s| s.setting.shape.fused));
    let on_workload = move |ev| {
        if let Some(w) = Workload::from_id(&event_target_value(&ev)) {
            state.update(|s| s.setting.shape.workload = w);
        }
    };
    view! {
        <h4 class="panel-title">"Workload"</h4>
        <div class="row">
            <label for="workload">"Step"</label>
            <select id="workload" on:change=on_workload prop:value=move || workload.get().id()>
                {Workload::ALL
                    .into_iter()
                    .map(|w| {
                        view! {
                            <option value=w.id() selected=move || workload.get() == w>
                                {w.label()}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </div>
        <LogSlider ctx=ctx field=explorer::BATCH/>
        <LogSlider ctx=ctx field=explorer::HIDDEN/>
        <LogSlider ctx=ctx field=explorer::OPS/>
        <div class="row toggle">
            <input
                type="checkbox"
                id="fused"
                prop:checked=move || fused.get()
                on:change=move |ev| {
                    let on = event_target_checked(&ev);
                    state.update(|s| s.setting.shape.fused = on);
                }
            />
            <label for="fused">
                "Fuse the pointwise chain "
                <span class="hint">
                    {move || {
                        if fused.get() {
                            "(one kernel: read once, write once)"
                        } else {
                            "(eager: one kernel per op, each reads and writes memory)"
                        }
                    }}
                </span>
            </label>
        </div>
    }
}
