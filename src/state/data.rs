//! The app's state as plain data: [`State`], what the user chose (the
//! explorer's [`Setting`], the measured GPU's name, each widget's own controls in
//! [`Widgets`], the roofs' choice), its defaults and what follows from it alone.
//! Switching the GPU, which each widget's file hooks into, sits above the widget
//! files, in `state/mod.rs`.
//!
//! Invariant: every `State` that exists is valid (values inside
//! [`limits`](crate::model::setting::limits), its dtype supported by the
//! preset), so the model never sees a bad number.

use crate::model::achievable::Roof;
use crate::model::setting::preset_flops;
use crate::model::{self, hardware, Dtype, Machine, Preset, Report, Setting, Shape, Workload};
use crate::state::widgets::Widgets;

/// One kernel's CPU cost at the essay's PyTorch rate
/// ([`crate::model::overhead::PYTORCH_OPS_PER_S`]): ~3.57 µs per kernel.
pub const DEFAULT_OVERHEAD_S: f64 = 1.0 / crate::model::overhead::PYTORCH_OPS_PER_S;
pub const DEFAULT_BATCH: u32 = 256;
pub const DEFAULT_HIDDEN: u32 = 4096;
pub const DEFAULT_OPS: u32 = 8;

/// The rule between two widget keys: the llm widget's DEP above 1 holds the
/// whole attention on each GPU, so it needs `llm_tp=1`, and tensor parallel
/// above 1 needs `llm_dep=1` (`v` a degree's index: 0 is one GPU). `Err` is
/// the reason a value is refused, the last good one kept.
pub fn exclusive(s: &State, key: &str, v: u32) -> Result<(), String> {
    let w = &s.widgets.llm;
    match key {
        "llm_dep" if v > 0 && w.tp.n() > 1 => Err(format!(
            "DEP holds the whole attention on each GPU, so it needs llm_tp=1 (llm_tp is {})",
            w.tp.n()
        )),
        "llm_tp" if v > 0 && w.dep.n() > 1 => Err(format!(
            "tensor parallel needs llm_dep=1 (llm_dep is {}: DEP holds the whole attention on each GPU)",
            w.dep.n()
        )),
        _ => Ok(()),
    }
}

/// The explorer's defaults on a preset: its default dtype, its peaks, the MLP.
pub fn default_setting(hw: &'static Preset) -> Setting {
    let dtype = hw.default_dtype();
    Setting {
        hw,
        dtype,
        flops: preset_flops(hw, dtype),
        bw: hw.mem_bw,
        overhead: DEFAULT_OVERHEAD_S,
        roof: Roof::Datasheet,
        shape: Shape {
            workload: Workload::Mlp,
            batch: DEFAULT_BATCH,
            hidden: DEFAULT_HIDDEN,
            ops: DEFAULT_OPS,
            fused: false,
        },
        l2_measured: None,
    }
}

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
    /// The measured GPU's spread (`bw_spread`, `flops_spread`): zero unless
    /// the GPU is the lab's measured one.
    pub spread: model::mygpu::Spread,
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
            setting: default_setting(hw),
            gpu_name: String::new(),
            widgets: Widgets::default(),
            roof_set: false,
            spread: model::mygpu::Spread::default(),
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

    /// The measured GPU's labelled figures in one line ([`model::mygpu::line`]);
    /// `None` on a datasheet preset.
    pub fn mygpu_line(&self) -> Option<String> {
        model::mygpu::line(&self.setting, self.spread, &self.gpu_name)
    }

    /// The widgets beyond the essay's setting ([`State::beyond`]) at the low and
    /// high end of the measured spread ([`model::mygpu::ends`]).
    pub fn beyond_ends(&self) -> Option<[Setting; 2]> {
        model::mygpu::ends(&self.beyond(), self.spread)
    }

    pub fn machine(&self) -> Machine {
        self.setting.machine()
    }

    /// The explorer's machine: [`Setting::cached`] (the L2 roof where known).
    pub fn cached(&self) -> Machine {
        self.setting.cached()
    }

    pub fn report(&self) -> Report {
        State::report_of(&self.setting)
    }

    /// The explorer's report for `setting` (all [`State::report`] reads).
    pub fn report_of(setting: &Setting) -> Report {
        model::analyse(&setting.shape, &setting.cached())
    }
}
