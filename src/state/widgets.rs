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
pub const PARAMS: [WParam; 25] = [
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
