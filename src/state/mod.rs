//! App state: what the user chose, as plain data. The URL codec in [`url`] is the
//! public, stable contract that turns it into a query string and back.
//!
//! Invariant: every `State` that exists is valid (values inside [`limits`], `dtype`
//! supported by `hw`), so the model never sees a bad number.

pub mod adapt;
pub mod fields;
pub mod hints;
pub mod link;
pub mod page;
pub mod params;
pub mod parse;
pub mod registry;
pub mod url;
pub mod widgets;

use crate::model::achievable::Roof;
use crate::model::{self, hardware, Dtype, Machine, Preset, Report, Setting, Shape, Workload};
pub use widgets::Widgets;

/// Accepted ranges (defined beside the model's [`Setting`], which the remedies keep
/// inside them).
pub use crate::model::setting::limits;
pub use crate::model::setting::preset_flops;

/// PyTorch manages about 280 thousand tiny ops per second: ~3.57 µs per kernel.
pub const DEFAULT_OVERHEAD_S: f64 = 1.0 / 280_000.0;
pub const DEFAULT_BATCH: u32 = 256;
pub const DEFAULT_HIDDEN: u32 = 4096;
pub const DEFAULT_OPS: u32 = 8;

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub hw: &'static Preset,
    pub dtype: Dtype,
    /// Matmul ceiling, FLOP/s.
    pub flops: f64,
    /// DRAM bandwidth, bytes/s.
    pub bw: f64,
    pub batch: u32,
    pub hidden: u32,
    pub workload: Workload,
    pub ops: u32,
    pub fused: bool,
    /// Seconds per kernel launch.
    pub overhead: f64,
    /// Datasheet or achievable roofs (URL `roof`).
    pub roof: Roof,
    /// The adapter's name when `hw` is the lab's measured GPU (URL `gpu`), else empty.
    pub gpu_name: String,
    /// The essay widgets' own controls.
    pub widgets: Widgets,
}

impl Default for State {
    fn default() -> Self {
        State::for_preset(hardware::default_preset())
    }
}

impl State {
    /// Defaults for a preset: its default dtype, its peaks.
    pub fn for_preset(hw: &'static Preset) -> Self {
        let dtype = hw.default_dtype();
        State {
            hw,
            dtype,
            flops: preset_flops(hw, dtype),
            bw: hw.mem_bw,
            batch: DEFAULT_BATCH,
            hidden: DEFAULT_HIDDEN,
            workload: Workload::Mlp,
            ops: DEFAULT_OPS,
            fused: false,
            overhead: DEFAULT_OVERHEAD_S,
            roof: Roof::Datasheet,
            gpu_name: String::new(),
            widgets: Widgets::default(),
        }
    }

    /// Switch preset: keep the workload, take the new hardware's numbers; keep the
    /// dtype if the new preset has it.
    pub fn select_preset(&mut self, hw: &'static Preset) {
        let dtype = if hw.supports(self.dtype) {
            self.dtype
        } else {
            hw.default_dtype()
        };
        let before = self.hw;
        self.hw = hw;
        self.links_follow_gpu(before);
        self.dtype = dtype;
        self.flops = preset_flops(hw, dtype);
        self.bw = hw.mem_bw;
        if !hw.is_measured() {
            self.gpu_name.clear();
        }
    }

    /// The hardware's name as the page shows it: a preset's, or "Measured: <adapter>".
    pub fn hw_name(&self) -> String {
        if self.hw.is_measured() {
            let name = if self.gpu_name.is_empty() {
                "this browser's GPU"
            } else {
                &self.gpu_name
            };
            format!("Measured: {name}")
        } else {
            self.hw.name.to_string()
        }
    }

    /// Switch dtype (ignored if the preset lacks it); the peak slider jumps to the
    /// preset's value for that dtype.
    pub fn select_dtype(&mut self, dtype: Dtype) {
        let mut t = self.setting();
        t.select_dtype(dtype);
        self.set_setting(&t);
    }

    /// The explorer's part of the state, as the model sees it.
    pub fn setting(&self) -> Setting {
        Setting {
            hw: self.hw,
            dtype: self.dtype,
            flops: self.flops,
            bw: self.bw,
            overhead: self.overhead,
            roof: self.roof,
            shape: self.shape(),
        }
    }

    /// Take the explorer's part from `t` (a remedy's change); the widgets' own
    /// controls stay. `t` comes from a valid state changed by a remedy, which keeps
    /// values inside [`limits`].
    pub fn set_setting(&mut self, t: &Setting) {
        let before = self.hw;
        self.hw = t.hw;
        self.links_follow_gpu(before);
        self.dtype = t.dtype;
        self.flops = t.flops;
        self.bw = t.bw;
        self.overhead = t.overhead;
        self.roof = t.roof;
        self.workload = t.shape.workload;
        self.batch = t.shape.batch;
        self.hidden = t.shape.hidden;
        self.ops = t.shape.ops;
        self.fused = t.shape.fused;
    }

    pub fn machine(&self) -> Machine {
        self.setting().machine()
    }

    pub fn shape(&self) -> Shape {
        Shape {
            workload: self.workload,
            batch: self.batch,
            hidden: self.hidden,
            ops: self.ops,
            fused: self.fused,
        }
    }

    pub fn report(&self) -> Report {
        model::analyse(&self.shape(), &self.machine())
    }
}
