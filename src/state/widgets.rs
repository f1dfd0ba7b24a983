//! Per-widget controls of the essay widgets, and their URL parameters.
//!
//! Table-driven: each [`WParam`] names its URL key, its kind (bounded integer,
//! flag, or choice among names), and how to read/write it. The keys and defaults
//! are part of the public URL contract (README); `encode` writes only the keys
//! whose value differs from its default, so links stay short.

/// Which operation the op calculator shows.
pub const CALC_OPS: [&str; 4] = ["matmul", "pointwise", "reduction", "attention"];
/// Which row reduction.
pub const NORMS: [&str; 2] = ["layernorm", "softmax"];
/// Which line of GPUs the generations chart shows.
pub const LINES: [&str; 3] = ["both", "datacenter", "consumer"];
/// The microbenchmark's dtype: the ids of `Dtype::ALL`, in that order (tested).
pub const MB_DTYPES: [&str; 4] = ["fp32", "tf32", "bf16", "fp8"];
/// The microbenchmark's tensor size in elements: 2^10 … 2^30, the essay's 2^28.
pub const MB_ELEMS: (u32, u32) = (1 << 10, 1 << 30);
pub const MB_ELEMS_DEFAULT: u32 = 1 << 28;

use crate::model::dit::DitModel;
use crate::model::llm::{self, KvDtype, LlmModel, Phase, WeightDtype};
use crate::model::{microbench, Dtype};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Widgets {
    pub bert_batch: u32,
    pub bert_seq: u32,
    pub bert_fused: bool,
    pub fusion_n: u32,
    pub graphs: bool,
    pub compiled: bool,
    pub cpp: bool,
    pub gen_line: u32,
    pub calc: u32,
    pub calc_m: u32,
    pub calc_n: u32,
    pub calc_k: u32,
    pub calc_elems: u32,
    pub calc_ops: u32,
    pub calc_fused: bool,
    pub calc_rows: u32,
    pub calc_cols: u32,
    pub calc_norm: u32,
    pub calc_batch: u32,
    pub calc_heads: u32,
    pub calc_seq: u32,
    pub calc_hd: u32,
    pub calc_flash: bool,
    pub mb_dtype: u32,
    pub mb_elems: u32,
    // issue 13: llm / dit
    pub llm_model: u32,
    pub llm_phase: u32,
    pub llm_batch: u32,
    pub llm_context: u32,
    pub llm_wdtype: u32,
    pub llm_kvdtype: u32,
    pub llm_graphs: bool,
    pub llm_flash: bool,
    pub llm_layers: u32,
    pub llm_hidden: u32,
    pub llm_heads: u32,
    pub llm_kv_heads: u32,
    pub llm_ffn: u32,
    pub llm_vocab: u32,
    pub dit_model: u32,
    pub dit_res: u32,
    pub dit_batch: u32,
    pub dit_flash: bool,
    pub dit_graphs: bool,
    pub dit_fused: bool,
}

impl Default for Widgets {
    fn default() -> Self {
        let mut w = Widgets {
            bert_batch: 0,
            bert_seq: 0,
            bert_fused: false,
            fusion_n: 0,
            graphs: false,
            compiled: false,
            cpp: false,
            gen_line: 0,
            calc: 0,
            calc_m: 0,
            calc_n: 0,
            calc_k: 0,
            calc_elems: 0,
            calc_ops: 0,
            calc_fused: false,
            calc_rows: 0,
            calc_cols: 0,
            calc_norm: 0,
            calc_batch: 0,
            calc_heads: 0,
            calc_seq: 0,
            calc_hd: 0,
            calc_flash: false,
            mb_dtype: 0,
            mb_elems: 0,
            // issue 13: llm / dit
            llm_model: 0,
            llm_phase: 0,
            llm_batch: 0,
            llm_context: 0,
            llm_wdtype: 0,
            llm_kvdtype: 0,
            llm_graphs: false,
            llm_flash: false,
            llm_layers: 0,
            llm_hidden: 0,
            llm_heads: 0,
            llm_kv_heads: 0,
            llm_ffn: 0,
            llm_vocab: 0,
            dit_model: 0,
            dit_res: 0,
            dit_batch: 0,
            dit_flash: false,
            dit_graphs: false,
            dit_fused: false,
        };
        for p in PARAMS {
            (p.set)(&mut w, p.kind.default());
        }
        w
    }
}

#[derive(Clone, Copy, Debug)]
pub enum WKind {
    Int {
        min: u32,
        max: u32,
        default: u32,
    },
    Flag {
        default: bool,
    },
    Choice {
        names: &'static [&'static str],
        default: u32,
    },
}

impl WKind {
    pub fn default(&self) -> u32 {
        match *self {
            WKind::Int { default, .. } | WKind::Choice { default, .. } => default,
            WKind::Flag { default } => u32::from(default),
        }
    }
}

#[derive(Clone, Copy)]
pub struct WParam {
    pub key: &'static str,
    pub kind: WKind,
    pub get: fn(&Widgets) -> u32,
    pub set: fn(&mut Widgets, u32),
}

macro_rules! int {
    ($key:literal, $field:ident, $min:expr, $max:expr, $def:expr) => {
        WParam {
            key: $key,
            kind: WKind::Int {
                min: $min,
                max: $max,
                default: $def,
            },
            get: |w| w.$field,
            set: |w, v| w.$field = v,
        }
    };
}
macro_rules! flag {
    ($key:literal, $field:ident, $def:expr) => {
        WParam {
            key: $key,
            kind: WKind::Flag { default: $def },
            get: |w| u32::from(w.$field),
            set: |w, v| w.$field = v != 0,
        }
    };
}
macro_rules! choice {
    ($key:literal, $field:ident, $names:expr, $def:expr) => {
        WParam {
            key: $key,
            kind: WKind::Choice {
                names: &$names,
                default: $def,
            },
            get: |w| w.$field,
            set: |w, v| w.$field = v,
        }
    };
}

/// Every widget parameter. Keys are stable.
pub const PARAMS: [WParam; 45] = [
    int!("bert_batch", bert_batch, 1, 512, 8),
    int!("bert_seq", bert_seq, 8, 4096, 512),
    flag!("bert_fused", bert_fused, false),
    int!("fusion_n", fusion_n, 1, 1024, 2),
    flag!("graphs", graphs, false),
    flag!("compiled", compiled, false),
    flag!("cpp", cpp, false),
    choice!("gen_line", gen_line, LINES, 0),
    choice!("calc", calc, CALC_OPS, 0),
    int!("calc_m", calc_m, 1, 65536, 4096),
    int!("calc_n", calc_n, 1, 65536, 4096),
    int!("calc_k", calc_k, 1, 65536, 4096),
    int!("calc_elems", calc_elems, 1, 1 << 30, 1 << 26),
    int!("calc_ops", calc_ops, 1, 1024, 4),
    flag!("calc_fused", calc_fused, true),
    int!("calc_rows", calc_rows, 1, 1 << 20, 8192),
    int!("calc_cols", calc_cols, 1, 1 << 20, 4096),
    choice!("calc_norm", calc_norm, NORMS, 0),
    int!("calc_batch", calc_batch, 1, 1024, 8),
    int!("calc_heads", calc_heads, 1, 256, 16),
    int!("calc_seq", calc_seq, 1, 131072, 4096),
    int!("calc_hd", calc_hd, 1, 512, 128),
    flag!("calc_flash", calc_flash, true),
    choice!("mb_dtype", mb_dtype, MB_DTYPES, 0),
    int!(
        "mb_elems",
        mb_elems,
        MB_ELEMS.0,
        MB_ELEMS.1,
        MB_ELEMS_DEFAULT
    ),
    // issue 13: llm / dit (choices' names are the model enums' ids)
    choice!("llm_model", llm_model, LlmModel::IDS, 0),
    choice!("llm_phase", llm_phase, Phase::IDS, 0),
    int!(
        "llm_batch",
        llm_batch,
        llm::limits::BATCH.0,
        llm::limits::BATCH.1,
        1
    ),
    int!(
        "llm_context",
        llm_context,
        llm::limits::CONTEXT.0,
        llm::limits::CONTEXT.1,
        4096
    ),
    choice!("llm_wdtype", llm_wdtype, WeightDtype::IDS, 0),
    choice!("llm_kvdtype", llm_kvdtype, KvDtype::IDS, 0),
    flag!("llm_graphs", llm_graphs, false),
    flag!("llm_flash", llm_flash, true),
    int!(
        "llm_layers",
        llm_layers,
        llm::limits::LAYERS.0,
        llm::limits::LAYERS.1,
        32
    ),
    int!(
        "llm_hidden",
        llm_hidden,
        llm::limits::HIDDEN.0,
        llm::limits::HIDDEN.1,
        4096
    ),
    int!(
        "llm_heads",
        llm_heads,
        llm::limits::HEADS.0,
        llm::limits::HEADS.1,
        32
    ),
    int!(
        "llm_kv_heads",
        llm_kv_heads,
        llm::limits::HEADS.0,
        llm::limits::HEADS.1,
        8
    ),
    int!(
        "llm_ffn",
        llm_ffn,
        llm::limits::FFN.0,
        llm::limits::FFN.1,
        14336
    ),
    int!(
        "llm_vocab",
        llm_vocab,
        llm::limits::VOCAB.0,
        llm::limits::VOCAB.1,
        128256
    ),
    choice!("dit_model", dit_model, DitModel::IDS, 0),
    int!("dit_res", dit_res, 1, 1024, 256),
    int!("dit_batch", dit_batch, 1, 256, 1),
    flag!("dit_flash", dit_flash, true),
    flag!("dit_graphs", dit_graphs, false),
    flag!("dit_fused", dit_fused, false),
];

pub fn param(key: &str) -> Option<&'static WParam> {
    PARAMS.iter().find(|p| p.key == key)
}

impl WParam {
    /// Parse a URL value; `Err` is the reason shown to the user.
    pub fn parse(&self, v: &str) -> Result<u32, String> {
        match self.kind {
            WKind::Flag { .. } => match v {
                "1" => Ok(1),
                "0" => Ok(0),
                _ => Err("must be 1 or 0".into()),
            },
            WKind::Choice { names, .. } => names
                .iter()
                .position(|n| *n == v)
                .map(|i| i as u32)
                .ok_or_else(|| format!("must be one of {}", names.join(", "))),
            WKind::Int { min, max, .. } => super::url::parse_int(v, min, max),
        }
    }

    /// The URL text of a value.
    pub fn format(&self, v: u32) -> String {
        match self.kind {
            WKind::Flag { .. } => if v != 0 { "1" } else { "0" }.into(),
            WKind::Choice { names, .. } => names.get(v as usize).copied().unwrap_or("").into(),
            WKind::Int { .. } => v.to_string(),
        }
    }

    /// Clamp a value from a control into the parameter's range.
    pub fn clamp(&self, v: u32) -> u32 {
        match self.kind {
            WKind::Int { min, max, .. } => v.clamp(min, max),
            WKind::Flag { .. } => u32::from(v != 0),
            WKind::Choice { names, default } => {
                if (v as usize) < names.len() {
                    v
                } else {
                    default
                }
            }
        }
    }
}

/// The microbenchmark's dtype: the one asked for (`mb_dtype`) and the one shown,
/// which falls back to fp32 (every preset has it) where the preset lacks the one
/// asked for; the widget says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MbDtype {
    pub wanted: Dtype,
    pub used: Dtype,
}

impl super::State {
    pub fn mb_dtype(&self) -> MbDtype {
        let wanted = Dtype::ALL
            .get(self.widgets.mb_dtype as usize)
            .copied()
            .unwrap_or(Dtype::Fp32);
        let used = if self.hw.supports(wanted) {
            wanted
        } else {
            Dtype::Fp32
        };
        MbDtype { wanted, used }
    }

    /// The microbenchmark widget's model: its own dtype and size on the explorer's
    /// hardware (bandwidth, pointwise ceiling, launch overhead).
    pub fn microbench(&self) -> microbench::Bench {
        microbench::bench(
            &self.machine(),
            self.mb_dtype().used,
            f64::from(self.widgets.mb_elems),
            self.hw.name,
        )
    }
}

// issue 13: llm / dit
impl super::State {
    /// The `llm` widget's run: its model (the custom shape from its keys, KV heads
    /// at most the heads) and controls.
    pub fn llm_run(&self) -> llm::LlmRun {
        let w = &self.widgets;
        let config = LlmModel::from_index(w.llm_model)
            .config()
            .map(|c| c.0)
            .unwrap_or(llm::LlmConfig {
                layers: w.llm_layers,
                hidden: w.llm_hidden,
                heads: w.llm_heads,
                kv_heads: w.llm_kv_heads.min(w.llm_heads),
                ffn: w.llm_ffn,
                vocab: w.llm_vocab,
                experts: 1,
                top_k: 1,
            });
        llm::LlmRun {
            config,
            phase: Phase::from_index(w.llm_phase),
            batch: w.llm_batch,
            context: w.llm_context,
            wdtype: WeightDtype::from_index(w.llm_wdtype),
            kvdtype: KvDtype::from_index(w.llm_kvdtype),
            graphs: w.llm_graphs,
            flash: w.llm_flash,
        }
    }

    /// The `dit` widget's run.
    pub fn dit_run(&self) -> crate::model::dit::DitRun {
        let w = &self.widgets;
        crate::model::dit::DitRun {
            model: DitModel::from_index(w.dit_model),
            res: w.dit_res,
            batch: w.dit_batch,
            flash: w.dit_flash,
            graphs: w.dit_graphs,
            fused: w.dit_fused,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_unique_and_defaults_valid() {
        for (i, a) in PARAMS.iter().enumerate() {
            for b in &PARAMS[i + 1..] {
                assert_ne!(a.key, b.key);
            }
            let d = a.kind.default();
            assert_eq!(a.clamp(d), d, "{}", a.key);
            assert_eq!(a.parse(&a.format(d)), Ok(d), "{}", a.key);
        }
        let w = Widgets::default();
        assert_eq!(w.fusion_n, 2);
        assert_eq!(w.bert_seq, 512);
        assert!(w.calc_fused && w.calc_flash);
        assert_eq!((w.mb_dtype, w.mb_elems), (0, 1 << 28));
    }

    #[test]
    fn mb_dtypes_are_the_dtype_ids() {
        let ids: Vec<&str> = Dtype::ALL.iter().map(|d| d.id()).collect();
        assert_eq!(ids, MB_DTYPES);
    }

    #[test]
    fn microbench_defaults_to_the_essay_and_falls_back_to_fp32() {
        use crate::model::{hardware, Regime};
        // default: A100, fp32, 2^28 elements (1 GiB) whatever the explorer's dtype
        let s = super::super::State::default();
        assert_eq!(s.dtype, Dtype::Bf16);
        let b = s.microbench();
        assert_eq!(b.dtype, Dtype::Fp32);
        assert_eq!(b.bytes(), f64::from(1u32 << 30));
        assert!((b.crossover.repeat - 50.16).abs() < 0.01);
        assert_eq!(b.regime_at_1(), Regime::Memory);
        // fp8 on an A100: shown as fp32, the choice kept for presets that have it
        let mut s = s;
        s.widgets.mb_dtype = 3;
        assert_eq!(
            s.mb_dtype(),
            MbDtype {
                wanted: Dtype::Fp8,
                used: Dtype::Fp32
            }
        );
        assert_eq!(s.microbench().dtype, Dtype::Fp32);
        let h100 = hardware::preset("h100-sxm").unwrap();
        s.select_preset(h100);
        assert_eq!(s.mb_dtype().used, Dtype::Fp8);
        assert!(s.microbench().crossover.repeat < b.crossover.repeat / 2.0);
        // the M2 Max has fp32 only
        s.select_preset(hardware::preset("m2-max").unwrap());
        assert_eq!(s.microbench().dtype, Dtype::Fp32);
        // small sizes: overhead-bound at repeat 1
        s.widgets.mb_elems = 1 << 10;
        assert_eq!(s.microbench().regime_at_1(), Regime::Overhead);
    }

    #[test]
    fn parse_rejects() {
        let p = param("bert_seq").unwrap();
        assert!(p.parse("abc").is_err());
        assert!(p.parse("0").is_err());
        assert!(p.parse("5000").is_err());
        assert!(p.parse("1.5").is_err());
        assert!(param("graphs").unwrap().parse("yes").is_err());
        assert!(param("calc").unwrap().parse("conv").is_err());
        assert_eq!(param("calc").unwrap().parse("attention"), Ok(3));
        let mb = param("mb_elems").unwrap();
        assert!(mb.parse("1023").is_err());
        assert!(mb.parse("1073741825").is_err());
        assert_eq!(mb.parse("1073741824"), Ok(1 << 30));
        assert_eq!(mb.parse("1000000"), Ok(1_000_000));
        assert!(param("mb_dtype").unwrap().parse("fp64").is_err());
        assert_eq!(param("mb_dtype").unwrap().parse("bf16"), Ok(2));
    }
}
