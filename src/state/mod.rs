//! App state: what the user chose, as plain data. The URL codec in [`url`] is the
//! public, stable contract that turns it into a query string and back.
//!
//! The state is the explorer's [`Setting`] (the model's own type: preset, dtype,
//! roofs, ceilings, overhead and the step's shape), the measured GPU's name, and
//! each widget's own controls ([`Widgets`], one part per widget in
//! `widgets::NAME`). Every widget is declared in the one registry
//! [`widgets::WIDGETS`].
//!
//! Invariant: every `State` that exists is valid (values inside [`limits`], its dtype
//! supported by the preset), so the model never sees a bad number.

pub mod fields;
pub mod hints;
pub mod page;
pub mod params;
pub mod parse;
pub mod url;
pub mod widgets;

use crate::model::achievable::Roof;
use crate::model::{self, hardware, Dtype, Machine, Preset, Report, Setting};
pub use widgets::Widgets;

/// Accepted ranges (defined beside the model's [`Setting`], which the remedies keep
/// inside them).
pub use crate::model::setting::limits;
pub use crate::model::setting::preset_flops;
pub use widgets::explorer::DEFAULT_OVERHEAD_S;

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The explorer's controls, as the model sees them.
    pub setting: Setting,
    /// The adapter's name when the preset is the lab's measured GPU (its key is
    /// `widgets::explorer::GPU`), else empty.
    pub gpu_name: String,
    /// The essay widgets' own controls.
    pub widgets: Widgets,
    /// Whether the reader chose the roofs (a `roof` key, or the roofs select):
    /// then `setting.roof` applies to every widget. Otherwise the essay's
    /// widgets draw the datasheet's idealisation (`setting.roof` is the
    /// datasheet's) and those beyond the essay (llm, dit, serving) open on the
    /// roofs a real run gets ([`State::beyond`]).
    pub roof_set: bool,
}

impl Default for State {
    fn default() -> Self {
        State::for_preset(hardware::default_preset())
    }
}

impl State {
    /// Defaults for a preset: its default dtype, its peaks.
    pub fn for_preset(hw: &'static Preset) -> Self {
        State {
            setting: widgets::explorer::default_setting(hw),
            gpu_name: String::new(),
            widgets: Widgets::default(),
            roof_set: false,
        }
    }

    /// The roofs as the roofs select shows them: `None`, each widget its own
    /// (the essay's on the datasheet, those beyond it achievable); `Some`, the
    /// one the reader chose for every widget.
    pub fn roof_choice(&self) -> Option<Roof> {
        self.roof_set.then_some(self.setting.roof)
    }

    /// Choose the roofs ([`State::roof_choice`]).
    pub fn choose_roof(&mut self, roof: Option<Roof>) {
        self.roof_set = roof.is_some();
        self.setting.roof = roof.unwrap_or(Roof::Datasheet);
    }

    /// Which roofs the widgets beyond the essay run on, in words (each of them
    /// says so).
    pub fn beyond_roof_words(&self) -> &'static str {
        match self.roof_choice() {
            None => "on achievable roofs, what real kernels reach (the essay's widgets keep the datasheet peaks; the explorer's Roofs select picks one for every widget)",
            Some(Roof::Achievable) => "on achievable roofs, as the explorer's Roofs select says",
            Some(Roof::Datasheet) => "on the datasheet peaks, as the explorer's Roofs select says (real kernels reach less)",
        }
    }

    /// The setting the widgets beyond the essay (llm, dit, serving) run on: the
    /// explorer's, on the roof the reader chose, else on the achievable roofs
    /// (what real kernels reach: those widgets' figures are compared with real
    /// runs, which no datasheet peak predicts).
    pub fn beyond(&self) -> Setting {
        Setting {
            roof: if self.roof_set {
                self.setting.roof
            } else {
                Roof::Achievable
            },
            ..self.setting
        }
    }

    /// Switch preset: keep the workload, take the new hardware's numbers; keep the
    /// dtype if the new preset has it.
    pub fn select_preset(&mut self, hw: &'static Preset) {
        self.set_setting(&self.setting.on_preset(hw));
    }

    /// The hardware's name as the page shows it: a preset's, or "Measured: <adapter>".
    pub fn hw_name(&self) -> String {
        if self.setting.hw.is_measured() {
            let name = if self.gpu_name.is_empty() {
                "this browser's GPU"
            } else {
                &self.gpu_name
            };
            format!("Measured: {name}")
        } else {
            self.setting.hw.name.to_string()
        }
    }

    /// Switch dtype (ignored if the preset lacks it); the peak slider jumps to the
    /// preset's value for that dtype.
    pub fn select_dtype(&mut self, dtype: Dtype) {
        self.setting.select_dtype(dtype);
    }

    /// Take the explorer's part from `t` (a remedy's change, another preset); the
    /// widgets' own controls stay, except a link that changes with the GPU
    /// (`widgets::common`). `t` comes from a valid state changed by a remedy, which
    /// keeps values inside [`limits`].
    pub fn set_setting(&mut self, t: &Setting) {
        let before = self.setting.hw;
        self.setting = *t;
        for w in widgets::WIDGETS {
            if let Some(follow) = w.on_gpu {
                follow(self, before);
            }
        }
        // a widget's value the new GPU cannot run (fp8 weights on a GPU without
        // fp8) falls back to its default, as the explorer's dtype does
        for p in widgets::PARAMS {
            if p.check(self, (p.get)(self)).is_err() {
                (p.set)(self, p.default_value());
            }
        }
        if !t.hw.is_measured() {
            self.gpu_name.clear();
        }
    }

    pub fn machine(&self) -> Machine {
        self.setting.machine()
    }

    pub fn report(&self) -> Report {
        State::report_of(&self.setting)
    }

    /// The explorer's report for `setting` (all [`State::report`] reads).
    pub fn report_of(setting: &Setting) -> Report {
        model::analyse(&setting.shape, &setting.machine())
    }
}
