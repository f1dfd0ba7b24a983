//! The controls every widget builds with, each bound to the one shared state:
//! the preset select ([`HwSelect`], a widget's [`GpuPicker`]), the log-scale
//! slider with its typed number box ([`LogSlider`], for a `Field`), the checkbox
//! ([`Toggle`], a `FlagField`) and the select ([`Select`], a `ChoiceField`).

use super::ctx::Ctx;
use crate::model::hardware;
use crate::state::fields::Field;
use crate::state::params::{Choice, ChoiceField, FlagField};
use crate::state::State;
use leptos::prelude::*;

/// The hardware preset select: option values are the preset ids (the explorer's
/// `#hw`, and a compact copy in each widget that depends on the GPU), all bound to
/// the one shared state, so moving one moves them all.
#[component]
pub fn HwSelect(ctx: Ctx, id: &'static str) -> impl IntoView {
    let state = ctx.state;
    let preset = ctx.hw;
    let hw = Memo::new(move |_| preset.with(|p| p.id));
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

/// [`HwSelect`] with its label, for a widget's own controls; `range`: the
/// widget's headline across a measured GPU's spread ([`MyGpuLine`]).
#[component]
pub fn GpuPicker(
    ctx: Ctx,
    id: &'static str,
    #[prop(optional)] range: Option<fn(&State) -> Option<String>>,
) -> impl IntoView {
    view! {
        <div class="row">
            <label for=id>"GPU"</label>
            <HwSelect ctx=ctx id=id/>
        </div>
        <MyGpuLine ctx=ctx range=range/>
    }
}

/// On the lab's measured GPU: each figure labelled measured or datasheet
/// (`State::mygpu_line`) and, where the widget gives one, its headline across
/// the measured spread (`range`, computed in `state/`). Nothing on a datasheet
/// preset, and then it reads only the GPU, so a slider wakes nothing here.
#[component]
pub fn MyGpuLine(ctx: Ctx, range: Option<fn(&State) -> Option<String>>) -> impl IntoView {
    let measured = Memo::new(move |_| ctx.hw.with(|p| p.is_measured()));
    let line = Memo::new(move |_| {
        measured
            .get()
            .then(|| ctx.view.with(State::mygpu_line))
            .flatten()
    });
    let span = Memo::new(move |_| match range {
        Some(f) if measured.get() => ctx.view.with(f),
        _ => None,
    });
    move || {
        line.get().map(|l| {
            view! {
                <p class="note mygpu">{l}" "<span class="mygpu-range">{move || span.get()}</span></p>
            }
        })
    }
}

/// A log-scale slider with a typed number box. The box keeps what the user typed
/// while they type; a valid value applies at once, an invalid one shows an inline
/// error and leaves the last good value in place. `off`: while it holds a
/// reason, the control moves nothing in this state; slider and box are
/// disabled and the reason shows under them (aria-describedby).
#[component]
pub fn LogSlider(
    ctx: Ctx,
    field: Field,
    #[prop(optional, into)] off: Option<Signal<Option<String>>>,
) -> impl IntoView {
    let state = ctx.state;
    let off = off.unwrap_or_else(|| Signal::derive(|| None));
    // a memo: the boxes and the class change only when disabled-ness does, not
    // on every change of the state `off` reads
    let off_now = Memo::new(move |_| off.with(Option::is_some));
    let disabled = move || off_now.get();
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
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if let Some(v) = key_step(&ev, field, value.get_untracked()) {
            if v != value.get_untracked() {
                state.update(|s| (field.set)(s, v));
            }
            text.set(field.format_box(v));
            error.set(None);
        }
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
    let why_id = format!("{}-why", field.id);
    let described = {
        let (e, w) = (error_id.clone(), why_id.clone());
        move || {
            if disabled() {
                format!("{e} {w}")
            } else {
                e.clone()
            }
        }
    };
    let described_box = described.clone();
    view! {
        <div class="field" class:invalid=move || error.with(Option::is_some) class:off=disabled>
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
                    aria-describedby=described
                    prop:disabled=disabled
                    on:input=on_slider
                    on:keydown=on_key
                />
                <input
                    type="text"
                    inputmode="decimal"
                    id=box_id
                    class="num"
                    aria-label=format!("{} ({})", field.label, if field.box_unit.is_empty() { "count" } else { field.box_unit })
                    aria-describedby=described_box
                    aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                    prop:disabled=disabled
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
            <p id=why_id class="field-why" hidden=move || !disabled()>
                {move || off.get().unwrap_or_default()}
            </p>
        </div>
    }
}

/// The value an arrow key moves a [`LogSlider`] to (the default prevented), or
/// `None` for any other key: arrow keys step by a factor (×2 for counts, 1-2-5
/// for continuous values), Page Up/Down by a larger one; the browser's own step
/// would move ~1 % of the log range.
fn key_step(ev: &leptos::ev::KeyboardEvent, field: Field, now: f64) -> Option<f64> {
    let (up, big) = match ev.key().as_str() {
        "ArrowUp" | "ArrowRight" => (true, false),
        "ArrowDown" | "ArrowLeft" => (false, false),
        "PageUp" => (true, true),
        "PageDown" => (false, true),
        _ => return None,
    };
    ev.prevent_default();
    Some(field.key_step(now, up, big))
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
/// variants, with their URL ids as values and their labels as text. An option
/// the GPU cannot run by the one dtype rule (`Choice::needs`, `Preset::check`)
/// is greyed out, and a line under the select says why.
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
    let hw = ctx.hw;
    let refused = move |v: T| v.needs().and_then(|d| hw.with(|p| p.check(d).err()));
    // the reason for the options greyed out, once (they share it: one GPU)
    let why = Memo::new(move |_| T::ALL.iter().find_map(|&v| refused(v)));
    let note_id = format!("{}-why", field.id);
    view! {
        <div class="row">
            <label for=field.id>{field.label}</label>
            <select id=field.id on:change=on_change
                aria-describedby=move || why.with(Option::is_some).then(|| note_id.clone())>
                {T::ALL
                    .iter()
                    .map(|&v| {
                        view! {
                            <option value=v.id() selected=move || cur.get() == v
                                disabled=move || refused(v).is_some()>{v.label()}</option>
                        }
                    })
                    .collect_view()}
            </select>
            {move || why.get().map(|w| view! {
                <p class="field-why" id=format!("{}-why", field.id)>{format!("{w}: not offered.")}</p>
            })}
        </div>
    }
}
