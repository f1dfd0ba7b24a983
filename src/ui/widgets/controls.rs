//! The explorer's controls: hardware, dtype, workload, fusion, and the log-scale
//! sliders with typed number boxes.

use super::Ctx;
use crate::model::achievable::{self, Roof};
use crate::model::{hardware, units, Dtype, Workload};
use crate::state::fields::Field;
use crate::state::params::{Choice, ChoiceField, FlagField};
use crate::state::widgets::explorer;
use crate::ui::shell::later::Later;
use leptos::prelude::*;

/// The two groups, hardware and workload, each built in a task of its own
/// after the explorer's chart ([`Later`]).
#[component]
pub fn Controls(ctx: Ctx) -> impl IntoView {
    view! {
        <Later><HardwareControls ctx=ctx/></Later>
        <Later><WorkloadControls ctx=ctx/></Later>
    }
}

#[component]
fn HardwareControls(ctx: Ctx) -> impl IntoView {
    let state = ctx.state;
    let hw = Memo::new(move |_| state.with(|s| s.setting.hw.id));
    let dtype = Memo::new(move |_| state.with(|s| s.setting.dtype));
    let roof = Memo::new(move |_| state.with(|s| s.setting.roof));

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
        <div class="row">
            <label for="roof">"Roofs"</label>
            <select id="roof" on:change=move |ev| {
                if let Some(r) = Roof::from_id(&event_target_value(&ev)) {
                    state.update(|s| s.setting.roof = r);
                }
            } prop:value=move || roof.get().id()>
                {Roof::ALL.into_iter().map(|r| view! {
                    <option value=r.id() selected=move || roof.get() == r>{r.label()}</option>
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
                    let p = hardware::preset(hw.get()).unwrap_or_else(hardware::default_preset);
                    p.dtypes()
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

/// The hardware preset select: option values are the preset ids (the explorer's
/// `#hw`, and a compact copy in each widget that depends on the GPU), all bound to
/// the one shared state, so moving one moves them all.
#[component]
pub fn HwSelect(ctx: Ctx, id: &'static str) -> impl IntoView {
    let state = ctx.state;
    let hw = Memo::new(move |_| state.with(|s| s.setting.hw.id));
    let on_hw = move |ev| {
        if let Some(p) = hardware::preset(&event_target_value(&ev)) {
            state.update(|s| s.select_preset(p));
        }
    };
    view! {
        <select id=id on:change=on_hw prop:value=move || hw.get()>
            {hardware::PRESETS
                .iter()
                .map(|p| {
                    view! {
                        <option value=p.id selected=move || hw.get() == p.id>
                            {p.name}
                        </option>
                    }
                })
                .collect_view()}
            // the lab's measured GPU, offered only while it is selected (it is only
            // its numbers: "Use my GPU" or a shared link brings it)
            {move || (hw.get() == hardware::MEASURED_ID).then(|| view! {
                <option value=hardware::MEASURED_ID selected=true>{state.with(|s| s.hw_name())}</option>
            })}
        </select>
    }
}

/// [`HwSelect`] with its label, for a widget's own controls.
#[component]
pub fn GpuPicker(ctx: Ctx, id: &'static str) -> impl IntoView {
    view! {
        <div class="row">
            <label for=id>"GPU"</label>
            <HwSelect ctx=ctx id=id/>
        </div>
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

/// A log-scale slider with a typed number box. The box keeps what the user typed
/// while they type; a valid value applies at once, an invalid one shows an inline
/// error and leaves the last good value in place.
#[component]
pub fn LogSlider(ctx: Ctx, field: Field) -> impl IntoView {
    let state = ctx.state;
    let value = Memo::new(move |_| state.with(|s| (field.get)(s)));
    let text = RwSignal::new(field.format_box(value.get_untracked()));
    let error = RwSignal::new(None::<String>);
    let editing = RwSignal::new(false);

    // Follow changes made elsewhere (slider, presets, remedies) unless the user is
    // typing in this box.
    Effect::new(move |_| {
        let v = value.get();
        if !editing.get_untracked() {
            text.set(field.format_box(v));
            error.set(None);
        }
    });

    let on_slider = move |ev| {
        let x: f64 = event_target_value(&ev).parse().unwrap_or(f64::NAN);
        let v = field.from_slider(x);
        state.update(|s| (field.set)(s, v));
        text.set(field.format_box(v));
        error.set(None);
    };
    // arrow keys step by a factor (×2 for counts, 1-2-5 for continuous values),
    // Page Up/Down by a larger one; the browser's own step would move ~1 % of the
    // log range
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let (up, big) = match ev.key().as_str() {
            "ArrowUp" | "ArrowRight" => (true, false),
            "ArrowDown" | "ArrowLeft" => (false, false),
            "PageUp" => (true, true),
            "PageDown" => (false, true),
            _ => return,
        };
        ev.prevent_default();
        let v = field.key_step(value.get_untracked(), up, big);
        if v != value.get_untracked() {
            state.update(|s| (field.set)(s, v));
        }
        text.set(field.format_box(v));
        error.set(None);
    };
    let on_box = move |ev| {
        let raw = event_target_value(&ev);
        match field.parse_box(&raw) {
            Ok(v) => {
                error.set(None);
                if v != value.get_untracked() {
                    state.update(|s| (field.set)(s, v));
                }
            }
            Err(e) => error.set(Some(e)),
        }
        text.set(raw);
    };
    let on_blur = move |_| {
        editing.set(false);
        if error.get_untracked().is_none() {
            text.set(field.format_box(value.get_untracked()));
        }
    };

    let slider_id = format!("{}-slider", field.id);
    let box_id = format!("{}-box", field.id);
    let error_id = format!("{}-error", field.id);
    view! {
        <div class="field" class:invalid=move || error.with(Option::is_some)>
            <label for=slider_id.clone()>{field.label}</label>
            <div class="field-inputs">
                <input
                    type="range"
                    id=slider_id
                    min=field.to_slider(field.min)
                    max=field.to_slider(field.max)
                    step="any"
                    prop:value=move || field.to_slider(value.get()).to_string()
                    aria-valuetext=move || field.value_text(value.get())
                    on:input=on_slider
                    on:keydown=on_key
                />
                <input
                    type="text"
                    inputmode="decimal"
                    id=box_id
                    class="num"
                    aria-label=format!("{} ({})", field.label, if field.box_unit.is_empty() { "count" } else { field.box_unit })
                    aria-describedby=error_id.clone()
                    aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                    prop:value=move || text.get()
                    on:focus=move |_| editing.set(true)
                    on:input=on_box
                    on:blur=on_blur
                />
                <span class="unit">{field.box_unit}</span>
            </div>
            <p id=error_id class="field-error" role="alert">
                {move || error.get().unwrap_or_default()}
            </p>
        </div>
    }
}

/// A checkbox bound to a flag parameter (its declaration gives id and label).
#[component]
pub fn Toggle(ctx: Ctx, flag: FlagField) -> impl IntoView {
    let state = ctx.state;
    let (get, set) = (flag.get, flag.set);
    let on = Memo::new(move |_| state.with(get));
    view! {
        <label class="check" for=flag.id>
            <input
                type="checkbox"
                id=flag.id
                prop:checked=move || on.get()
                on:change=move |ev| {
                    let v = event_target_checked(&ev);
                    state.update(|s| set(s, v));
                }
            />
            {flag.label}
        </label>
    }
}

/// A select bound to a choice parameter: its options are the choice type's
/// variants, with their URL ids as values and their labels as text.
#[component]
pub fn Select<T: Choice>(ctx: Ctx, field: ChoiceField<T>) -> impl IntoView {
    let state = ctx.state;
    let (get, set) = (field.get, field.set);
    let cur = Memo::new(move |_| state.with(get));
    let on_change = move |ev| {
        if let Some(v) = T::from_id(&event_target_value(&ev)) {
            state.update(|s| set(s, v));
        }
    };
    view! {
        <div class="row">
            <label for=field.id>{field.label}</label>
            <select id=field.id on:change=on_change>
                {T::ALL
                    .iter()
                    .map(|&v| {
                        view! { <option value=v.id() selected=move || cur.get() == v>{v.label()}</option> }
                    })
                    .collect_view()}
            </select>
        </div>
    }
}
