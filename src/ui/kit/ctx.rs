//! The context every component reads: the shared state, its held view, the
//! report, the theme and the knobs, with the reactive-read rule.

use crate::model::hardware::Preset;
use crate::model::Report;
use crate::state::page::Knobs;
use crate::state::State;
use leptos::prelude::*;

/// Shared, reactive app state. `Copy`, so components take it by value.
///
/// How a widget reads it (ARCHITECTURE.md, "Reactive reads"):
/// - what it only draws: `view` / `report` (held while the widget is off-screen);
/// - what it publishes as a readout (`data-metric`, a live contract read at any
///   time): [`Ctx::live`], computed from its inputs (`inputs`) whenever they
///   change, on screen or off;
/// - a value it both publishes and draws: computed once with [`Ctx::live`] and
///   drawn through [`Ctx::held`], never computed a second time from `view`;
/// - `state` itself: written by controls, read untracked by actions.
#[derive(Clone, Copy)]
pub struct Ctx {
    /// The shared state: write here (every control does).
    pub state: RwSignal<State>,
    /// What this widget's model reads of `state` (its spec's
    /// `reads`, `state::spec::inputs`; the whole state outside a widget):
    /// [`Ctx::live`] values are computed from it, so a control the widget does
    /// not read recomputes nothing of it.
    pub inputs: Signal<State>,
    /// The state to read for display. Inside a widget frame it holds still while the
    /// widget is off-screen (see `shell::frame::gate`), so a slider move only
    /// recomputes and re-renders what a user can see; elsewhere it follows `state`
    /// exactly.
    pub view: Memo<State>,
    /// Whether the widget is on (or near) the screen; always true outside a gated
    /// frame. `view`, `report` and [`Ctx::held`] values follow it.
    pub on_screen: Signal<bool>,
    /// The model's answer for `state`; recomputed once per change.
    pub report: Memo<Report>,
    /// The explorer's GPU, one memo for the app: the preset selects and the
    /// options a GPU cannot run (every select's) read it rather than the whole
    /// state, so a slider wakes none of them.
    pub hw: Memo<&'static Preset>,
    /// Dark theme on (charts pick their palette from it).
    pub dark: RwSignal<bool>,
    /// The URL's test knobs (`state::page::Knobs`).
    pub knobs: Knobs,
}

impl Ctx {
    /// The root context of an app (the page's, and each separately built one in
    /// `ui/apps/`), which draws what its own `state` holds, always on screen;
    /// widget frames narrow it (`reading`, `shell::frame::gate`).
    pub fn of_app(state: RwSignal<State>, dark: RwSignal<bool>, knobs: Knobs) -> Ctx {
        Ctx {
            state,
            inputs: state.into(),
            view: Memo::new(move |_| state.get()),
            on_screen: Signal::derive(|| true),
            report: report_of(state),
            hw: hw_of(state),
            dark,
            knobs,
        }
    }

    /// A value of the live path: computed from [`Ctx::inputs`] whenever they
    /// change, whether the widget is on screen or not. For readouts (`data-metric`) and
    /// anything else a reader may ask for at any time.
    pub fn live<T>(self, f: impl Fn(&State) -> T + Send + Sync + 'static) -> Memo<T>
    where
        T: PartialEq + Send + Sync + 'static,
    {
        let inputs = self.inputs;
        Memo::new(move |_| inputs.with(&f))
    }

    /// This context inside widget `reads`'s frame: its [`Ctx::inputs`] keyed
    /// on what it reads (`None`: the whole state).
    pub fn reading(self, reads: Option<fn(&State) -> State>) -> Ctx {
        let state = self.state;
        let inputs = match reads {
            Some(f) => Memo::new(move |_| state.with(f)).into(),
            None => state.into(),
        };
        Ctx { inputs, ..self }
    }

    /// A widget's one model call, on the live path like [`Ctx::live`]: `f`'s
    /// flag says whether to compute what is only drawn too (sweeps, sentences,
    /// tables): true while the widget is on (or near) the screen, false
    /// off-screen, where [`Ctx::held`] keeps drawing the last whole value, so a
    /// slider moved elsewhere pays only for the readouts. A widget mounted off
    /// the screen (most of the page, built while it loads) computes its
    /// readouts alone until it is first reported on screen (the
    /// page's start pays for no sweep nobody sees).
    pub fn live_drawn<T>(self, f: impl Fn(&State, bool) -> T + Send + Sync + 'static) -> Memo<T>
    where
        T: PartialEq + Send + Sync + 'static,
    {
        let (inputs, on) = (self.inputs, self.on_screen);
        Memo::new(move |_| {
            // read first, so the memo follows the widget on and off the screen
            let drawn = on.get();
            inputs.with(|s| f(s, drawn))
        })
    }

    /// What the widget draws of a live value: follows it while the widget is on
    /// screen, holds its last value while off-screen (like `view`), without
    /// computing it again.
    pub fn held<T>(self, live: Memo<T>) -> Memo<T>
    where
        T: Clone + PartialEq + Send + Sync + 'static,
    {
        let on = self.on_screen;
        Memo::new(move |prev: Option<&T>| match prev {
            Some(p) if !on.get() => p.clone(),
            _ => live.get(),
        })
    }
}

/// The explorer's GPU in `state` ([`Ctx::hw`]).
fn hw_of(state: RwSignal<State>) -> Memo<&'static Preset> {
    Memo::new(move |_| state.with(|s| s.setting.hw))
}

/// The explorer's report for `state`, recomputed only when the explorer's
/// setting changes (no other control moves it).
pub fn report_of(state: RwSignal<State>) -> Memo<Report> {
    let setting = Memo::new(move |_| state.with(|s| s.setting));
    Memo::new(move |_| setting.with(State::report_of))
}

/// Whether the page is one widget embedded in another page (`?embed=ID`:
/// `<html class="embed">`, set before the first paint): a widget folds its
/// secondary tables behind disclosures there, as the host page gives it a
/// column, not a page.
pub fn in_embed() -> bool {
    document()
        .document_element()
        .is_some_and(|e| e.class_list().contains("embed"))
}
