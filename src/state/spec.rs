//! What a widget declares ([`Spec`]: its id, title, keys, model and what its
//! model reads) and how its inputs are cut from the state ([`inputs`]). Each
//! widget's file (`state::widgets::NAME`) stands on this; the registry of them
//! all (`state::registry`) stands above them.

use crate::model::Preset;
use crate::state::data::State;
use crate::state::fields::Field;
use crate::state::params::WParam;
use crate::state::widgets::Widgets;

/// A widget's model for a state, reduced to one figure it shows.
pub type Model = fn(&State) -> f64;

/// One widget, as pure data.
pub struct Spec {
    /// Stable: the section's anchor (`#id`), `?embed=id`, `data-slot`,
    /// `data-widget` and the tests' hook.
    pub id: &'static str,
    pub title: &'static str,
    /// The copied iframe snippet's height in CSS pixels: the embed's content
    /// height at 720 px wide in its default state, measured in Chromium, plus
    /// about 5 % (tests/e2e/embed.test.mjs fails when a widget outgrows it). An
    /// embed also posts its real height to the host page.
    pub embed_height: u32,
    /// Hold the widget's view of the state while it is off-screen
    /// (`ui::shell::frame::gate`). Off for the explorer and the diagnosis card:
    /// their readouts are the page's primary contract and must always be current.
    pub gate: bool,
    /// Where the page shows it: `None`, its own `data-slot` in index.html;
    /// `Some(id)`, inside widget `id`'s view (the diagnosis card sits in the
    /// explorer), its embed alone.
    pub inside: Option<&'static str>,
    /// Its own URL keys, in URL order (`params!` in its file); empty where it
    /// reads only the explorer's.
    pub params: &'static [WParam],
    /// Its numeric controls' fields (tests fuzz every one).
    pub sliders: NativeOnly<fn() -> Vec<Field>>,
    /// Its model for a state, reduced to one figure it shows (a step's seconds,
    /// a count): the registry walk runs it at every value of every parameter and
    /// it must be finite and above zero. `None` where the widget has no model of
    /// its own in this crate's page (fixed data, a measurement, a trace file).
    pub model: NativeOnly<Option<Model>>,
    /// What its own controls do when the explorer's GPU changes from the preset
    /// given (a link typed for the old GPU's own link goes, `common::LinkKeys`).
    pub on_gpu: Option<fn(&mut State, &'static Preset)>,
    /// What its model reads of the state ([`Reads`]): its memos are keyed on
    /// that, so a control it does not read moves nothing in it (a slider
    /// recomputes only the widgets that read it). `None`: the whole state.
    pub reads: Option<Reads>,
}

/// What a widget's model reads of the state ([`Spec::reads`]), with how to
/// tell its whole view at two states apart, so that a native test checks
/// every widget that declares it
/// (`registry::tests::a_widget_reads_only_its_inputs`: its view on
/// `inputs(s)` is its view on `s`).
#[derive(Clone, Copy)]
pub struct Reads {
    /// The state cut to what its model reads ([`inputs`]).
    pub inputs: fn(&State) -> State,
    /// Whether its whole view (all its `view` adapters return) is the same at
    /// two states.
    pub same_view: NativeOnly<fn(&State, &State) -> bool>,
}

/// A widget's inputs ([`Reads::inputs`]): the state with every other widget's
/// controls at their defaults (`own` copies its own) and, where `step` is
/// false, the explorer's step (its workload shape) at the default too; the
/// explorer's GPU, dtype, peaks and roofs always stay.
pub fn inputs(s: &State, step: bool, own: fn(&Widgets, &mut Widgets)) -> State {
    let mut widgets = Widgets::default();
    own(&s.widgets, &mut widgets);
    let mut setting = s.setting;
    if !step {
        setting.shape = STEP_UNREAD;
    }
    State {
        setting,
        gpu_name: s.gpu_name.clone(),
        widgets,
        roof_set: s.roof_set,
        spread: s.spread,
    }
}

/// What the help panel's hints read ([`crate::state::hints::hints`]): the
/// explorer's setting, every widget's own controls at their defaults
/// (`tests::the_hints_read_only_the_explorer`).
pub fn hints_inputs(s: &State) -> State {
    inputs(s, true, |_, _| {})
}

/// The explorer's step a widget's inputs hold where it reads none.
const STEP_UNREAD: crate::model::workload::Shape = crate::model::workload::Shape {
    workload: crate::model::workload::Workload::Mlp,
    batch: 1,
    hidden: 1,
    ops: 1,
    fused: false,
};

/// A part of a [`Spec`] only native code reads (the registry walk, the fuzz
/// tests): native builds keep it, the page's .wasm, which never calls it, drops
/// it with the code it names (`NativeOnly::new` there discards its value).
#[derive(Clone, Copy)]
pub struct NativeOnly<T: Copy> {
    #[cfg(not(target_arch = "wasm32"))]
    value: T,
    kind: std::marker::PhantomData<T>,
}

impl<T: Copy> NativeOnly<T> {
    #[allow(unused_variables)]
    pub const fn new(value: T) -> Self {
        NativeOnly {
            #[cfg(not(target_arch = "wasm32"))]
            value,
            kind: std::marker::PhantomData,
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn get(self) -> T {
        self.value
    }
}
