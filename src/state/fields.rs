//! The numeric controls: their ranges, display units, slider mapping and the
//! validation of what a user types. Pure, so it is tested natively.

use super::{limits, State};
use crate::model::units::{self, ParseError};

/// One numeric control (a log-scale slider with a typed number box beside it).
#[derive(Clone, Copy)]
pub struct Field {
    /// DOM id prefix (`{id}-slider`, `{id}-box`, `{id}-error`) and URL key.
    pub id: &'static str,
    pub label: &'static str,
    /// Unit shown beside the number box.
    pub box_unit: &'static str,
    /// Base unit, for error messages.
    pub base_unit: &'static str,
    /// Box value × scale = value in SI base units.
    pub scale: f64,
    pub min: f64,
    pub max: f64,
    pub integer: bool,
    pub get: fn(&State) -> f64,
    pub set: fn(&mut State, f64),
}

const fn range_u32((a, b): (u32, u32)) -> (f64, f64) {
    (a as f64, b as f64)
}

// Conversions below only ever see values already validated to lie in range.
fn to_u32(v: f64) -> u32 {
    v.round().clamp(0.0, f64::from(u32::MAX)) as u32
}

pub const FLOPS: Field = Field {
    id: "flops",
    label: "Peak FLOP/s (matmul)",
    box_unit: "TFLOP/s",
    base_unit: "FLOP/s",
    scale: 1e12,
    min: limits::FLOPS.0,
    max: limits::FLOPS.1,
    integer: false,
    get: |s| s.flops,
    set: |s, v| s.flops = v,
};

pub const BW: Field = Field {
    id: "bw",
    label: "Memory bandwidth",
    box_unit: "TB/s",
    base_unit: "B/s",
    scale: 1e12,
    min: limits::BW.0,
    max: limits::BW.1,
    integer: false,
    get: |s| s.bw,
    set: |s, v| s.bw = v,
};

pub const OVERHEAD: Field = Field {
    id: "overhead",
    label: "Overhead per kernel",
    box_unit: "µs",
    base_unit: "s",
    scale: 1e-6,
    min: limits::OVERHEAD.0,
    max: limits::OVERHEAD.1,
    integer: false,
    get: |s| s.overhead,
    set: |s, v| s.overhead = v,
};

pub const BATCH: Field = Field {
    id: "batch",
    label: "Batch size B",
    box_unit: "",
    base_unit: "",
    scale: 1.0,
    min: range_u32(limits::BATCH).0,
    max: range_u32(limits::BATCH).1,
    integer: true,
    get: |s| f64::from(s.batch),
    set: |s, v| s.batch = to_u32(v),
};

pub const HIDDEN: Field = Field {
    id: "hidden",
    label: "Hidden size D",
    box_unit: "",
    base_unit: "",
    scale: 1.0,
    min: range_u32(limits::HIDDEN).0,
    max: range_u32(limits::HIDDEN).1,
    integer: true,
    get: |s| f64::from(s.hidden),
    set: |s, v| s.hidden = to_u32(v),
};

pub const OPS: Field = Field {
    id: "ops",
    label: "Pointwise ops in the chain",
    box_unit: "",
    base_unit: "",
    scale: 1.0,
    min: range_u32(limits::OPS).0,
    max: range_u32(limits::OPS).1,
    integer: true,
    get: |s| f64::from(s.ops),
    set: |s, v| s.ops = to_u32(v),
};

impl Field {
    /// The slider's position for a value (sliders are log10 scaled).
    pub fn to_slider(&self, v: f64) -> f64 {
        v.log10()
    }

    /// The value for a slider position: rounded to a whole number or three
    /// significant digits, clamped to the range. Never NaN.
    pub fn from_slider(&self, x: f64) -> f64 {
        let x = if x.is_finite() { x } else { self.min.log10() };
        let v = 10f64.powf(x);
        let v = if self.integer {
            v.round()
        } else {
            round_sig(v, 3)
        };
        v.clamp(self.min, self.max)
    }

    /// The number box text for a value, in the box unit.
    pub fn format_box(&self, v: f64) -> String {
        if self.integer {
            format!("{}", v.round())
        } else {
            let b = round_sig(v / self.scale, 4);
            format!("{b}")
        }
    }

    /// Validate typed text (in the box unit). Errors are sentences for the user.
    pub fn parse_box(&self, text: &str) -> Result<f64, String> {
        let v = units::parse_number(text).map_err(|e| e.to_string())? * self.scale;
        if self.integer && v.fract() != 0.0 {
            return Err(ParseError::NotInteger.to_string());
        }
        units::check_range(v, self.min, self.max, self.base_unit).map_err(|e| match e {
            ParseError::OutOfRange { .. } => format!(
                "must be between {} and {}{}",
                self.format_box(self.min),
                self.format_box(self.max),
                if self.box_unit.is_empty() {
                    String::new()
                } else {
                    format!(" {}", self.box_unit)
                }
            ),
            other => other.to_string(),
        })
    }
}

/// Round to `digits` significant digits.
pub fn round_sig(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let mag = v.abs().log10().floor() as i32;
    let p = 10f64.powi(digits - 1 - mag);
    let r = (v * p).round() / p;
    // `r` may carry binary noise (0.30000000000000004); reparse its short form.
    format!("{r:.*}", (digits - 1 - mag).max(0) as usize)
        .parse()
        .unwrap_or(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slider_round_trip_and_clamp() {
        for f in [FLOPS, BW, OVERHEAD, BATCH, HIDDEN, OPS] {
            assert_eq!(f.from_slider(f.to_slider(f.min)), f.min, "{}", f.id);
            assert_eq!(f.from_slider(f.to_slider(f.max)), f.max, "{}", f.id);
            assert_eq!(f.from_slider(f64::NAN), f.min);
            assert_eq!(f.from_slider(99.0), f.max);
        }
        assert_eq!(FLOPS.from_slider(312e12f64.log10()), 312e12);
        assert_eq!(BATCH.from_slider(2.0), 100.0);
    }

    #[test]
    fn boxes() {
        assert_eq!(FLOPS.format_box(312e12), "312");
        assert_eq!(BW.format_box(1.555e12), "1.555");
        assert_eq!(OVERHEAD.format_box(1.0 / 280_000.0), "3.571");
        assert_eq!(BATCH.format_box(64.0), "64");
        assert_eq!(FLOPS.parse_box("312"), Ok(312e12));
        assert_eq!(OVERHEAD.parse_box("3.5"), Ok(3.5e-6));
        assert_eq!(BATCH.parse_box("128"), Ok(128.0));
        assert!(BATCH.parse_box("abc").is_err());
        assert!(BATCH.parse_box("1.5").unwrap_err().contains("whole"));
        assert!(BATCH
            .parse_box("0")
            .unwrap_err()
            .contains("greater than zero"));
        assert_eq!(
            BATCH.parse_box("70000").unwrap_err(),
            "must be between 1 and 65536"
        );
        assert!(FLOPS.parse_box("-5").is_err());
        assert!(FLOPS.parse_box("1e400").is_err());
        assert!(FLOPS.parse_box("2e6").unwrap_err().contains("TFLOP/s"));
    }

    #[test]
    fn rounding() {
        assert_eq!(round_sig(0.1 + 0.2, 3), 0.3);
        assert_eq!(round_sig(312.4e12, 3), 312e12);
        assert_eq!(round_sig(3.5714285e-6, 4), 3.571e-6);
    }
}

/// A numeric widget parameter as a slider field; its range must equal the URL
/// table's (`widgets::PARAMS`, checked by a test).
macro_rules! widget_field {
    ($name:ident, $key:literal, $field:ident, $label:literal, $min:expr, $max:expr) => {
        pub const $name: Field = Field {
            id: $key,
            label: $label,
            box_unit: "",
            base_unit: "",
            scale: 1.0,
            min: $min as f64,
            max: $max as f64,
            integer: true,
            get: |s| s.widgets.$field as f64,
            set: |s, v| s.widgets.$field = to_u32(v),
        };
    };
}

widget_field!(BERT_BATCH, "bert_batch", bert_batch, "Batch size", 1, 512);
widget_field!(BERT_SEQ, "bert_seq", bert_seq, "Sequence length", 8, 4096);
widget_field!(
    FUSION_N,
    "fusion_n",
    fusion_n,
    "Ops in the chain (n)",
    1,
    1024
);
widget_field!(CALC_M, "calc_m", calc_m, "M (rows of A)", 1, 65536);
widget_field!(CALC_N, "calc_n", calc_n, "N (columns of B)", 1, 65536);
widget_field!(CALC_K, "calc_k", calc_k, "K (shared dimension)", 1, 65536);
widget_field!(
    CALC_ELEMS,
    "calc_elems",
    calc_elems,
    "Elements",
    1,
    1u32 << 30
);
widget_field!(CALC_OPS, "calc_ops", calc_ops, "Ops in the chain", 1, 1024);
widget_field!(CALC_ROWS, "calc_rows", calc_rows, "Rows", 1, 1u32 << 20);
widget_field!(
    CALC_COLS,
    "calc_cols",
    calc_cols,
    "Columns (reduced)",
    1,
    1u32 << 20
);
widget_field!(CALC_BATCH, "calc_batch", calc_batch, "Batch", 1, 1024);
widget_field!(CALC_HEADS, "calc_heads", calc_heads, "Heads", 1, 256);
widget_field!(CALC_SEQ, "calc_seq", calc_seq, "Sequence length", 1, 131072);
widget_field!(CALC_HD, "calc_hd", calc_hd, "Head dimension", 1, 512);

// issue 13: llm / dit
use crate::model::llm::limits as ll;
widget_field!(
    LLM_BATCH,
    "llm_batch",
    llm_batch,
    "Batch (sequences)",
    ll::BATCH.0,
    ll::BATCH.1
);
widget_field!(
    LLM_CONTEXT,
    "llm_context",
    llm_context,
    "Context (tokens)",
    ll::CONTEXT.0,
    ll::CONTEXT.1
);
widget_field!(
    LLM_LAYERS,
    "llm_layers",
    llm_layers,
    "Layers",
    ll::LAYERS.0,
    ll::LAYERS.1
);
widget_field!(
    LLM_HIDDEN,
    "llm_hidden",
    llm_hidden,
    "Hidden size",
    ll::HIDDEN.0,
    ll::HIDDEN.1
);
widget_field!(
    LLM_HEADS,
    "llm_heads",
    llm_heads,
    "Attention heads",
    ll::HEADS.0,
    ll::HEADS.1
);
widget_field!(
    LLM_KV_HEADS,
    "llm_kv_heads",
    llm_kv_heads,
    "KV heads",
    ll::HEADS.0,
    ll::HEADS.1
);
widget_field!(
    LLM_FFN,
    "llm_ffn",
    llm_ffn,
    "FFN width",
    ll::FFN.0,
    ll::FFN.1
);
widget_field!(
    LLM_VOCAB,
    "llm_vocab",
    llm_vocab,
    "Vocabulary",
    ll::VOCAB.0,
    ll::VOCAB.1
);
widget_field!(
    DIT_RES,
    "dit_res",
    dit_res,
    "Resolution (px) or frames",
    1,
    1024
);
widget_field!(DIT_BATCH, "dit_batch", dit_batch, "Batch", 1, 256);

pub const WIDGET_FIELDS: [Field; 24] = [
    BERT_BATCH,
    BERT_SEQ,
    FUSION_N,
    CALC_M,
    CALC_N,
    CALC_K,
    CALC_ELEMS,
    CALC_OPS,
    CALC_ROWS,
    CALC_COLS,
    CALC_BATCH,
    CALC_HEADS,
    CALC_SEQ,
    CALC_HD,
    LLM_BATCH,
    LLM_CONTEXT,
    LLM_LAYERS,
    LLM_HIDDEN,
    LLM_HEADS,
    LLM_KV_HEADS,
    LLM_FFN,
    LLM_VOCAB,
    DIT_RES,
    DIT_BATCH,
];

#[cfg(test)]
mod widget_field_tests {
    use super::*;
    use crate::state::widgets::{param, WKind};

    #[test]
    fn ranges_match_the_url_table() {
        for f in WIDGET_FIELDS {
            let p = param(f.id).unwrap();
            match p.kind {
                WKind::Int { min, max, .. } => {
                    assert_eq!((f.min, f.max), (f64::from(min), f64::from(max)), "{}", f.id)
                }
                _ => panic!("{} is not an integer parameter", f.id),
            }
        }
    }
}
