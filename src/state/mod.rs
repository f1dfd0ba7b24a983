//! App state: what the user chose, as plain data ([`State`], in [`data`]). The
//! URL codec in [`url`] is the public, stable contract that turns it into a
//! query string and back.
//!
//! Its modules stand in floors, every import pointing down
//! (`tests/invariants.rs` `state_modules_import_only_downwards`): [`parse`] and
//! [`widgets`] (the widget list, each widget's module and
//! [`Widgets`](widgets::Widgets), their controls) at the bottom; [`data`] (the `State` and what follows from it
//! alone); [`fields`] and [`params`] (how a control and a key are declared);
//! [`spec`] (what a widget declares); each widget's file
//! (`widgets::NAME`); [`registry`] (every widget's spec, read from the list);
//! then this file (switching the GPU, which each widget's file hooks into), and
//! [`url`], [`page`], [`hints`] above it.

pub mod data;
pub mod fields;
pub mod hints;
pub mod page;
pub mod params;
pub mod parse;
pub mod registry;
pub mod spec;
pub mod url;
pub mod widgets;

/// Accepted ranges (defined beside the model's [`Setting`], which the remedies
/// keep inside them).
pub use crate::model::setting::limits;
pub use data::State;

use crate::model::{Preset, Setting};

impl State {
    /// Switch preset: keep the workload, take the new hardware's numbers; keep the
    /// dtype if the new preset has it.
    pub fn select_preset(&mut self, hw: &'static Preset) {
        self.set_setting(&self.setting.on_preset(hw));
    }

    /// Take the explorer's part from `t` (a remedy's change, another preset); the
    /// widgets' own controls stay, except a link that changes with the GPU
    /// (`widgets::common`). `t` comes from a valid state changed by a remedy, which
    /// keeps values inside
    /// [`limits`](crate::model::setting::limits).
    pub fn set_setting(&mut self, t: &Setting) {
        let before = self.setting.hw;
        self.setting = *t;
        for w in registry::WIDGETS {
            if let Some(follow) = w.on_gpu {
                follow(self, before);
            }
        }
        // a widget's value the new GPU cannot run (fp8 weights on a GPU without
        // fp8) falls back to its default, as the explorer's dtype does
        for p in registry::PARAMS {
            if p.check(self, (p.get)(self)).is_err() {
                (p.set)(self, p.default_value());
            }
        }
        if !t.hw.is_measured() {
            self.gpu_name.clear();
            self.spread = crate::model::mygpu::Spread::default();
        }
    }
}
