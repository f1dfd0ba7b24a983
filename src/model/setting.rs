//! A setting: one GPU preset and dtype with the user's peak, bandwidth and overhead,
//! and the workload's shape. It is what the explorer's controls describe, without the
//! essay widgets' own knobs, and it turns into the [`Machine`] the model runs on.
//!
//! The counterfactual remedies ([`super::remedies`]) change a setting and run the
//! model again; the app state (`state::State`) keeps the same fields and delegates
//! here, so "what the remedy predicts" and "what clicking it does" are one code path.

use super::achievable::{self, Roof};
use super::gemm::Gemm;
pub use super::hardware::preset_flops;
use super::hardware::{Dtype, Preset};
use super::workload::{KernelGroup, L2Roof, Machine, Shape};

/// Accepted ranges, shared by the URL codec, the sliders, the number boxes and the
/// remedies (a remedy never leaves them).
pub mod limits {
    pub const FLOPS: (f64, f64) = (1e9, 1e18);
    pub const BW: (f64, f64) = (1e9, 1e15);
    pub const OVERHEAD: (f64, f64) = (1e-8, 1e-2);
    pub const BATCH: (u32, u32) = (1, 65536);
    pub const HIDDEN: (u32, u32) = (1, 65536);
    pub const OPS: (u32, u32) = (1, 1024);
}

/// What the explorer's controls describe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setting {
    pub hw: &'static Preset,
    pub dtype: Dtype,
    /// Matmul ceiling, FLOP/s (the peak slider).
    pub flops: f64,
    /// DRAM bandwidth, bytes/s.
    pub bw: f64,
    /// CPU seconds per kernel launch.
    pub overhead: f64,
    /// Datasheet or achievable roofs.
    pub roof: Roof,
    pub shape: Shape,
    /// A measured GPU's L2 roof, from the lab's cache cliff (its fast plateau's
    /// bandwidth and the working set where it ends); it replaces the preset's
    /// ([`super::hardware::l2`]) in [`Setting::cached`]. `None` on a datasheet
    /// preset and on a run without a cliff.
    pub l2_measured: Option<L2Roof>,
}

impl Setting {
    /// `hw` in `dtype` at its datasheet peaks on `roof`, no CPU overhead and a
    /// one-element step: for callers that need only its machine (a trace's
    /// roofline) or set the rest themselves.
    pub fn on(hw: &'static Preset, dtype: Dtype, roof: Roof) -> Setting {
        Setting {
            hw,
            dtype,
            flops: preset_flops(hw, dtype),
            bw: hw.mem_bw,
            overhead: 0.0,
            roof,
            shape: Shape {
                workload: super::workload::Workload::Mlp,
                batch: 1,
                hidden: 1,
                ops: 1,
                fused: false,
            },
            l2_measured: None,
        }
    }

    /// The effective machine: the matmul ceiling is the slider; the pointwise
    /// ceiling is the preset's (half its fp32 FMA rate) scaled by the same factor the
    /// slider moved the matmul peak by. With achievable roofs, each is scaled by the
    /// preset's measured (or estimated) fraction ([`achievable::fractions`]) and
    /// matmuls with a shape are priced by the GEMM model ([`super::gemm`]).
    pub fn machine(&self) -> Machine {
        Machine {
            gemm: match self.roof {
                Roof::Datasheet => None,
                Roof::Achievable => super::gemm::Hw::of(self.hw, self.dtype),
            },
            ..self.roofs()
        }
    }

    /// The machine's roofs: the sliders, scaled by the achievable fractions on
    /// achievable roofs; no GEMM model.
    fn roofs(&self) -> Machine {
        let scale = self.scale();
        let (f_mm, f_pw, f_bw) = match self.roof {
            Roof::Datasheet => (1.0, 1.0, 1.0),
            Roof::Achievable => {
                let f = achievable::fractions(self.hw);
                (f.matmul(self.dtype), f.pointwise, f.bw)
            }
        };
        Machine {
            matmul_flops: self.flops * f_mm,
            pointwise_flops: self.hw.pointwise_peak() * scale * f_pw,
            bw: self.bw * f_bw,
            overhead: self.overhead,
            elem_bytes: self.dtype.bytes(),
            floor: super::hardware::kernel_floor(self.hw).seconds,
            gemm: None,
            l2: None,
        }
    }

    /// [`Setting::machine`] with the preset's L2 roof where a source gives one
    /// ([`super::hardware::l2`]): kernels whose working set fits in L2 are priced
    /// on it. The explorer's step and the microbenchmark run on this machine
    /// (a loop re-running one small step keeps its data in L2); the widgets whose
    /// weights stream from HBM every step (llm, dit, bert, serve, shapes) keep
    /// [`Setting::machine`], which prices every byte on HBM.
    pub fn cached(&self) -> Machine {
        Machine {
            l2: self
                .l2_measured
                .or_else(|| super::workload::l2_roof(self.hw)),
            ..self.machine()
        }
    }

    /// This setting on another preset at its datasheet numbers, as choosing it
    /// in the hardware select would: the dtype kept where the preset has it, the
    /// roofs, overhead and shape kept (the widgets' "compare GPUs" rows).
    pub fn on_preset(&self, hw: &'static Preset) -> Setting {
        let dtype = if hw.supports(self.dtype) {
            self.dtype
        } else {
            hw.default_dtype()
        };
        Setting {
            hw,
            dtype,
            flops: preset_flops(hw, dtype),
            bw: hw.mem_bw,
            // another GPU: the measured cache was this one's
            l2_measured: None,
            ..*self
        }
    }

    /// Switch dtype (ignored if the preset lacks it); the peak jumps to the preset's
    /// value for that dtype.
    ///
    /// On a measured GPU the peak keeps its measured fraction of the datasheet's
    /// ([`Setting::scale`]): the dtype's datasheet rate times that fraction.
    pub fn select_dtype(&mut self, dtype: Dtype) {
        if self.hw.supports(dtype) {
            let scale = if self.hw.is_measured() {
                self.scale()
            } else {
                1.0
            };
            self.dtype = dtype;
            self.flops =
                (preset_flops(self.hw, dtype) * scale).clamp(limits::FLOPS.0, limits::FLOPS.1);
        }
    }

    /// The peak slider over the preset's datasheet peak in this dtype: on a
    /// measured GPU, the measured fp32 rate over its datasheet's, the factor
    /// every rate the lab cannot measure (tensor cores) is scaled by, on the
    /// reasoning that they run at the clock the fp32 units ran at.
    pub fn scale(&self) -> f64 {
        self.flops / preset_flops(self.hw, self.dtype)
    }

    /// This setting in `dtype` on achievable roofs (the shapes widget's GEMM):
    /// a datasheet preset at its datasheet peaks, as ever; a measured GPU at
    /// its measured rates, the dtype's peak scaled as [`Setting::select_dtype`]
    /// does. A dtype the preset lacks gives its default dtype.
    pub fn gemm_on(&self, dtype: Dtype) -> Setting {
        let dtype = if self.hw.supports(dtype) {
            dtype
        } else {
            self.hw.default_dtype()
        };
        if !self.hw.is_measured() {
            return Setting::on(self.hw, dtype, Roof::Achievable);
        }
        // the measured rates; no CPU overhead and a one-element step, as
        // `Setting::on` has (the GEMM is priced as a replay would run it)
        let mut s = Setting {
            flops: self.flops,
            bw: self.bw,
            ..Setting::on(self.hw, self.dtype, Roof::Achievable)
        };
        s.select_dtype(dtype);
        s
    }

    /// Wall time of one step, seconds.
    pub fn wall(&self) -> f64 {
        crate::model::explorer::analyse(&self.shape, &self.cached()).wall_time_s
    }

    /// Wall time per sample of the batch, seconds: the fair yardstick when a remedy
    /// changes how much work a step does.
    pub fn per_sample(&self) -> f64 {
        self.wall() / f64::from(self.shape.batch.max(1))
    }
}

/// The GPU time the matmul `g` in `dtype` should take on `hw` with `roof`'s
/// roofs, operands in HBM, as a CUDA graph replays it (no CPU launch cost): the
/// shape model under achievable roofs, the essay's roofline (at least the kernel
/// floor) on datasheet roofs. For callers that have a shape and a preset, not a
/// step (a trace's placed matmul: `Gemm::new(m, n, k, dtype)`, or `batch` > 1
/// for a batched product).
pub fn gpu_seconds(g: Gemm, dtype: Dtype, hw: &'static Preset, roof: Roof) -> f64 {
    let group = KernelGroup::gemm("matmul", g, g.bytes(dtype.bytes()));
    group.parts(&Setting::on(hw, dtype, roof).machine()).total
}
