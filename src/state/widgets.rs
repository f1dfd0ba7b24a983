//! Per-widget controls of the essay widgets, and their URL parameters.
//!
//! **One declaration per parameter** (the `params!` table below): from each row
//! follow the [`Widgets`] field and its type, its default, its URL key and codec
//! ([`PARAMS`]: kind, range, parse, format) and the control the widget shows
//! ([`field`]: a slider [`Field`], a [`FlagField`] or a [`ChoiceField`] with its
//! label). Choices are typed enums declared with `choice_enum!`, whose variants
//! carry their URL ids and labels. Keys and defaults are part of the public URL
//! contract (README); `encode` writes only the keys whose value differs from its
//! default, so links stay short.

use super::fields::{to_u32, Field};
use super::{link, State};
use crate::model::dit::DitModel;
use crate::model::generations::Line;
use crate::model::llm::{self, KvDtype, LlmModel, Phase, WeightDtype};
use crate::model::Dtype;

/// A choice parameter's type: a fieldless enum whose variants are its URL ids.
pub trait Choice: Copy + PartialEq + Send + Sync + 'static {
    /// Every variant, in URL-id order (the order of the select's options).
    const ALL: &'static [Self];
    /// The URL ids of `ALL`, in the same order (the codec's table needs them as a
    /// constant).
    const IDS: &'static [&'static str];
    fn id(self) -> &'static str;
    /// What the control shows for it.
    fn label(self) -> &'static str;
    /// Its position in [`Choice::ALL`].
    fn index(self) -> u32 {
        Self::ALL.iter().position(|v| *v == self).unwrap_or(0) as u32
    }
    fn from_index(i: u32) -> Option<Self> {
        Self::ALL.get(i as usize).copied()
    }
    fn from_id(id: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.id() == id)
    }
}

/// A fieldless enum implementing [`Choice`]: `Variant = "url-id" "label"`.
macro_rules! choice_enum {
    ($(#[$m:meta])* pub enum $name:ident { $($(#[$vm:meta])* $var:ident = $id:literal $label:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($(#[$vm])* $var,)* }
        impl Choice for $name {
            const ALL: &'static [Self] = &[$($name::$var,)*];
            const IDS: &'static [&'static str] = &[$($id,)*];
            fn id(self) -> &'static str {
                match self { $($name::$var => $id,)* }
            }
            fn label(self) -> &'static str {
                match self { $($name::$var => $label,)* }
            }
        }
    };
}

choice_enum! {
    /// Which operation the op calculator shows.
    pub enum CalcOp {
        Matmul = "matmul" "matmul [M,K] × [K,N]",
        Pointwise = "pointwise" "pointwise chain",
        Reduction = "reduction" "row reduction (layernorm / softmax)",
        Attention = "attention" "attention",
    }
}

choice_enum! {
    /// Which row reduction the calculator shows.
    pub enum Norm {
        LayerNorm = "layernorm" "layernorm",
        Softmax = "softmax" "softmax",
    }
}

choice_enum! {
    /// What the trace widget opens on.
    pub enum TraceSource {
        Example = "example" "the bundled example (an A100 run)",
    }
}

choice_enum! {
    /// Which line of GPUs the generations chart shows.
    pub enum GenLine {
        Both = "both" "both lines",
        Datacenter = "datacenter" "datacenter (HBM)",
        Consumer = "consumer" "consumer (GDDR)",
    }
}

choice_enum! {
    /// How many GPUs share one parallel dimension (`llm_tp`, `llm_pp`, `dit_sp`):
    /// `model::parallel::DEGREES`.
    pub enum Degree {
        One = "1" "1",
        Two = "2" "2",
        Four = "4" "4",
        Eight = "8" "8",
    }
}

impl Degree {
    pub fn n(self) -> u32 {
        match self {
            Degree::One => 1,
            Degree::Two => 2,
            Degree::Four => 4,
            Degree::Eight => 8,
        }
    }
}

choice_enum! {
    /// The link between GPUs (`llm_link`, `dit_link`): the preset's own, or one of
    /// `model::parallel::LINKS` by its id (a test checks the two lists agree).
    pub enum LinkChoice {
        Preset = "preset" "the GPU's own",
        Nvlink2 = "nvlink2" "NVLink 2 (150 GB/s)",
        Nvlink3 = "nvlink3" "NVLink 3 (300 GB/s)",
        Nvlink4 = "nvlink4" "NVLink 4 (450 GB/s)",
        Nvlink5 = "nvlink5" "NVLink 5 (900 GB/s)",
        Xgmi = "xgmi" "Infinity Fabric (448 GB/s)",
        Pcie4 = "pcie4" "PCIe 4.0 x16 (32 GB/s)",
        Pcie5 = "pcie5" "PCIe 5.0 x16 (64 GB/s)",
        IbNdr = "ib-ndr" "InfiniBand NDR (50 GB/s)",
    }
}

impl LinkChoice {
    /// The link itself: the chosen one, or the preset's (`preset_id`), or PCIe 4.0
    /// for a preset with none.
    pub fn link(self, preset_id: &str) -> crate::model::parallel::Link {
        use crate::model::parallel::{default_link, link};
        let chosen = match self {
            LinkChoice::Preset => default_link(preset_id),
            other => link(other.id()),
        };
        chosen
            .or_else(|| link("pcie4"))
            .copied()
            .unwrap_or(crate::model::parallel::Link::NONE)
    }
}

impl GenLine {
    /// The model's line, or `None` for both.
    pub fn filter(self) -> Option<Line> {
        match self {
            GenLine::Both => None,
            GenLine::Datacenter => Some(Line::Datacenter),
            GenLine::Consumer => Some(Line::Consumer),
        }
    }
}

/// The microbenchmark's dtype (`mb_dtype`): the model's dtypes, by their ids.
impl Choice for Dtype {
    const ALL: &'static [Self] = &Dtype::ALL;
    const IDS: &'static [&'static str] = &[
        Dtype::Fp32.id(),
        Dtype::Tf32.id(),
        Dtype::Bf16.id(),
        Dtype::Fp8.id(),
    ];
    fn id(self) -> &'static str {
        Dtype::id(self)
    }
    fn label(self) -> &'static str {
        Dtype::id(self)
    }
}

/// A model enum as a choice: its variants and URL ids are the model's (`ALL`
/// order = the model's `IDS` order, tested), its labels are the control's.
macro_rules! model_choice {
    ($t:ident { $($var:ident = $label:literal,)* }) => {
        impl Choice for $t {
            const ALL: &'static [Self] = &[$($t::$var,)*];
            const IDS: &'static [&'static str] = &$t::IDS;
            fn id(self) -> &'static str {
                $t::id(self)
            }
            fn label(self) -> &'static str {
                match self { $($t::$var => $label,)* }
            }
        }
    };
}

model_choice!(LlmModel {
    Llama3_8b = "Llama-3-8B",
    Llama3_70b = "Llama-3-70B",
    Mistral7b = "Mistral-7B",
    Mixtral8x7b = "Mixtral-8x7B (MoE, 2 of 8 experts)",
    Custom = "custom shape",
});
model_choice!(Phase {
    Decode = "decode (one new token per sequence)",
    Prefill = "prefill (the whole prompt)",
});
model_choice!(WeightDtype {
    Bf16 = "bf16",
    Fp8 = "fp8",
    Int8 = "int8 (weight-only)",
    Int4 = "int4 (weight-only)",
});
model_choice!(KvDtype {
    Bf16 = "bf16",
    Fp8 = "fp8",
});
model_choice!(DitModel {
    XL2 = "DiT-XL/2 (image)",
    CogVideoX2b = "CogVideoX-2B (video, 480 × 720)",
});

/// The microbenchmark's tensor size in elements: 2^10 … 2^30, the essay's 2^28.
pub const MB_ELEMS: (u32, u32) = (1 << 10, 1 << 30);
pub const MB_ELEMS_DEFAULT: u32 = 1 << 28;

/// A checkbox's parameter: URL key (also the DOM id), label, access.
#[derive(Clone, Copy)]
pub struct FlagField {
    pub id: &'static str,
    pub label: &'static str,
    pub get: fn(&State) -> bool,
    pub set: fn(&mut State, bool),
}

/// A select's parameter: URL key (also the DOM id), label, access; the options
/// are `T::ALL` with their ids and labels.
pub struct ChoiceField<T: Choice> {
    pub id: &'static str,
    pub label: &'static str,
    pub get: fn(&State) -> T,
    pub set: fn(&mut State, T),
}

impl<T: Choice> Clone for ChoiceField<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Choice> Copy for ChoiceField<T> {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// A decimal figure that replaces one from elsewhere (`state::link`): kept in
    /// thousandths of its URL unit, `min..=max`; the default 0 is "not typed"
    /// (never written; a typed 0 is refused).
    Milli {
        min: u32,
        max: u32,
    },
}

impl WKind {
    pub fn default(&self) -> u32 {
        match *self {
            WKind::Int { default, .. } | WKind::Choice { default, .. } => default,
            WKind::Flag { default } => u32::from(default),
            WKind::Milli { .. } => 0,
        }
    }
}

/// One parameter as the URL codec sees it: values as `u32` (a flag 0/1, a choice
/// its index).
#[derive(Clone, Copy)]
pub struct WParam {
    pub key: &'static str,
    pub kind: WKind,
    pub get: fn(&Widgets) -> u32,
    pub set: fn(&mut Widgets, u32),
}

// The pieces of one `params!` row, by kind.
macro_rules! param_ty {
    (Int) => {
        u32
    };
    (Milli) => {
        u32
    };
    (Flag) => {
        bool
    };
    (Choice $t:ty) => {
        $t
    };
}
macro_rules! param_kind {
    (Int [] [$min:expr, $max:expr] $d:expr) => {
        WKind::Int {
            min: $min,
            max: $max,
            default: $d,
        }
    };
    (Flag [] [] $d:expr) => {
        WKind::Flag { default: $d }
    };
    (Milli [] [$min:expr, $max:expr] $d:expr) => {
        WKind::Milli {
            min: $min,
            max: $max,
        }
    };
    (Choice [$t:ty] [] $d:expr) => {
        WKind::Choice {
            names: <$t as Choice>::IDS,
            default: $d as u32,
        }
    };
}
macro_rules! param_get {
    (Int $w:ident $f:ident) => {
        $w.$f
    };
    (Milli $w:ident $f:ident) => {
        $w.$f
    };
    (Flag $w:ident $f:ident) => {
        u32::from($w.$f)
    };
    (Choice $w:ident $f:ident) => {
        Choice::index($w.$f)
    };
}
macro_rules! param_set {
    (Int [] $w:ident $f:ident $v:ident) => {
        $w.$f = $v
    };
    (Milli [] $w:ident $f:ident $v:ident) => {
        $w.$f = $v
    };
    (Flag [] $w:ident $f:ident $v:ident) => {
        $w.$f = $v != 0
    };
    (Choice [$t:ty] $w:ident $f:ident $v:ident) => {
        if let Some(x) = <$t as Choice>::from_index($v) {
            $w.$f = x;
        }
    };
}
macro_rules! param_field {
    (Int [] [$min:expr, $max:expr] $f:ident $key:literal $label:literal) => {
        pub const $f: Field = Field {
            id: $key,
            label: $label,
            box_unit: "",
            base_unit: "",
            scale: 1.0,
            min: $min as f64,
            max: $max as f64,
            integer: true,
            get: |s| f64::from(s.widgets.$f),
            set: |s, v| s.widgets.$f = to_u32(v),
        };
    };
    (Flag [] [] $f:ident $key:literal $label:literal) => {
        pub const $f: FlagField = FlagField {
            id: $key,
            label: $label,
            get: |s| s.widgets.$f,
            set: |s, v| s.widgets.$f = v,
        };
    };
    (Choice [$t:ty] [] $f:ident $key:literal $label:literal) => {
        pub const $f: ChoiceField<$t> = ChoiceField {
            id: $key,
            label: $label,
            get: |s| s.widgets.$f,
            set: |s, v| s.widgets.$f = v,
        };
    };
    // its control shows the figure it replaces: `state::link`'s fields
    (Milli [] [$min:expr, $max:expr] $f:ident $key:literal $label:literal) => {};
}

macro_rules! param_slider {
    (Int $v:ident $f:ident) => {
        $v.push(field::$f)
    };
    ($kind:ident $v:ident $f:ident) => {};
}

/// The parameter table: one row per parameter,
/// `field: Kind [range] = default, "url_key", "label";`.
macro_rules! params {
    ($($(#[doc = $doc:literal])* $f:ident: $kind:ident $(<$t:ty>)? $([$min:expr, $max:expr])? = $d:expr, $key:literal, $label:literal;)*) => {
        /// The essay widgets' own controls, one field per parameter.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Widgets {
            $($(#[doc = $doc])* pub $f: param_ty!($kind $($t)?),)*
        }

        impl Default for Widgets {
            fn default() -> Self {
                Widgets { $($f: $d,)* }
            }
        }

        /// Every widget parameter, in URL order. Keys are stable.
        pub const PARAMS: &[WParam] = &[$(
            WParam {
                key: $key,
                kind: param_kind!($kind [$($t)?] [$($min, $max)?] $d),
                get: |w| param_get!($kind w $f),
                set: |w, v| { param_set!($kind [$($t)?] w $f v) },
            },
        )*];

        /// The integer parameters' slider fields (for tests over every control).
        #[allow(clippy::vec_init_then_push)]
        pub fn sliders() -> Vec<Field> {
            let mut v = Vec::new();
            $(param_slider!($kind v $f);)*
            v
        }

        /// Each parameter as the control its widget shows, named after its field.
        #[allow(non_upper_case_globals)]
        pub mod field {
            use super::*;
            $(param_field!($kind [$($t)?] [$($min, $max)?] $f $key $label);)*
        }
    };
}

params! {
    bert_batch: Int[1, 512] = 8, "bert_batch", "Batch size";
    bert_seq: Int[8, 4096] = 512, "bert_seq", "Sequence length";
    bert_fused: Flag = false, "bert_fused", "fuse the non-matmul ops between matmuls";
    fusion_n: Int[1, 1024] = 2, "fusion_n", "Ops in the chain (n)";
    graphs: Flag = false, "graphs", "CUDA graphs (one launch for the whole step)";
    compiled: Flag = false, "compiled", "compile / fuse (a JIT: fewer kernels)";
    cpp: Flag = false, "cpp", "C++ loop (no Python)";
    gen_line: Choice<GenLine> = GenLine::Both, "gen_line", "Show";
    calc: Choice<CalcOp> = CalcOp::Matmul, "calc", "Operation";
    calc_m: Int[1, 65536] = 4096, "calc_m", "M (rows of A)";
    calc_n: Int[1, 65536] = 4096, "calc_n", "N (columns of B)";
    calc_k: Int[1, 65536] = 4096, "calc_k", "K (shared dimension)";
    calc_elems: Int[1, 1 << 30] = 1 << 26, "calc_elems", "Elements";
    calc_ops: Int[1, 1024] = 4, "calc_ops", "Ops in the chain";
    calc_fused: Flag = true, "calc_fused", "fused into one kernel";
    calc_rows: Int[1, 1 << 20] = 8192, "calc_rows", "Rows";
    calc_cols: Int[1, 1 << 20] = 4096, "calc_cols", "Columns (reduced)";
    calc_norm: Choice<Norm> = Norm::LayerNorm, "calc_norm", "Kind";
    calc_batch: Int[1, 1024] = 8, "calc_batch", "Batch";
    calc_heads: Int[1, 256] = 16, "calc_heads", "Heads";
    calc_seq: Int[1, 131072] = 4096, "calc_seq", "Sequence length";
    calc_hd: Int[1, 512] = 128, "calc_hd", "Head dimension";
    calc_flash: Flag = true, "calc_flash", "fused (FlashAttention-style): scores stay on chip";
    /// Asked for; where the preset lacks it the widget shows fp32 ([`State::mb_dtype`]).
    mb_dtype: Choice<Dtype> = Dtype::Fp32, "mb_dtype", "Dtype";
    mb_elems: Int[MB_ELEMS.0, MB_ELEMS.1] = MB_ELEMS_DEFAULT, "mb_elems", "Tensor size (elements)";
    // the `llm` widget (`model::llm`); the custom shape's keys apply with `llm_model=custom`
    llm_model: Choice<LlmModel> = LlmModel::Llama3_8b, "llm_model", "Model";
    llm_phase: Choice<Phase> = Phase::Decode, "llm_phase", "Phase";
    llm_batch: Int[llm::limits::BATCH.0, llm::limits::BATCH.1] = 1, "llm_batch", "Batch (sequences)";
    llm_context: Int[llm::limits::CONTEXT.0, llm::limits::CONTEXT.1] = 4096, "llm_context", "Context (tokens)";
    llm_wdtype: Choice<WeightDtype> = WeightDtype::Bf16, "llm_wdtype", "Weights";
    llm_kvdtype: Choice<KvDtype> = KvDtype::Bf16, "llm_kvdtype", "KV cache";
    llm_graphs: Flag = false, "llm_graphs", "CUDA graphs (one launch per step)";
    llm_flash: Flag = true, "llm_flash", "FlashAttention";
    llm_layers: Int[llm::limits::LAYERS.0, llm::limits::LAYERS.1] = 32, "llm_layers", "Layers";
    llm_hidden: Int[llm::limits::HIDDEN.0, llm::limits::HIDDEN.1] = 4096, "llm_hidden", "Hidden size";
    llm_heads: Int[llm::limits::HEADS.0, llm::limits::HEADS.1] = 32, "llm_heads", "Attention heads";
    llm_kv_heads: Int[llm::limits::HEADS.0, llm::limits::HEADS.1] = 8, "llm_kv_heads", "KV heads";
    llm_ffn: Int[llm::limits::FFN.0, llm::limits::FFN.1] = 14336, "llm_ffn", "FFN width";
    llm_vocab: Int[llm::limits::VOCAB.0, llm::limits::VOCAB.1] = 128256, "llm_vocab", "Vocabulary";
    // more than one GPU (issue 24, `model::parallel`)
    llm_tp: Choice<Degree> = Degree::One, "llm_tp", "Tensor parallel (GPUs per stage)";
    llm_pp: Choice<Degree> = Degree::One, "llm_pp", "Pipeline stages";
    llm_link: Choice<LinkChoice> = LinkChoice::Preset, "llm_link", "Link between GPUs";
    llm_link_bw: Milli[link::BW_MILLI.0, link::BW_MILLI.1] = 0, "llm_link_bw", "Link bandwidth, each way (GB/s)";
    llm_link_lat: Milli[link::LAT_MILLI.0, link::LAT_MILLI.1] = 0, "llm_link_lat", "Link latency per ring step (µs)";
    llm_overlap: Flag = false, "llm_overlap", "Overlap communication with compute";
    // the `dit` widget (`model::dit`)
    dit_model: Choice<DitModel> = DitModel::XL2, "dit_model", "Model";
    dit_res: Int[1, 1024] = 256, "dit_res", "Resolution (px) or frames";
    dit_batch: Int[1, 256] = 1, "dit_batch", "Batch";
    dit_flash: Flag = true, "dit_flash", "FlashAttention";
    dit_graphs: Flag = false, "dit_graphs", "CUDA graphs (one launch per step)";
    dit_fused: Flag = false, "dit_fused", "fuse adaLN scale/shift/gate and GELU into neighbours";
    dit_sp: Choice<Degree> = Degree::One, "dit_sp", "Sequence parallel (GPUs)";
    dit_link: Choice<LinkChoice> = LinkChoice::Preset, "dit_link", "Link between GPUs";
    dit_link_bw: Milli[link::BW_MILLI.0, link::BW_MILLI.1] = 0, "dit_link_bw", "Link bandwidth, each way (GB/s)";
    dit_link_lat: Milli[link::LAT_MILLI.0, link::LAT_MILLI.1] = 0, "dit_link_lat", "Link latency per ring step (µs)";
    // the `trace` widget: what it opens on (only the bundled example has a URL;
    // a file of the reader's own never leaves the page, nor goes into the URL)
    trace: Choice<TraceSource> = TraceSource::Example, "trace", "Trace";
}

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
            WKind::Int { min, max, .. } => super::parse::parse_int(v, min, max),
            WKind::Milli { min, max } => parse_milli(v, min, max),
        }
    }

    /// The URL text of a value.
    pub fn format(&self, v: u32) -> String {
        match self.kind {
            WKind::Flag { .. } => if v != 0 { "1" } else { "0" }.into(),
            WKind::Choice { names, .. } => names.get(v as usize).copied().unwrap_or("").into(),
            WKind::Int { .. } => v.to_string(),
            WKind::Milli { .. } => milli_text(v),
        }
    }

    /// Clamp a value from a control into the parameter's range.
    pub fn clamp(&self, v: u32) -> u32 {
        match self.kind {
            WKind::Int { min, max, .. } => v.clamp(min, max),
            WKind::Milli { min, max } if v != 0 => v.clamp(min, max),
            WKind::Milli { .. } => 0,
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

/// A `Milli` value as URL text: thousandths as a decimal, trailing zeros dropped
/// (`900000` → `900`, `600` → `0.6`); 0 (not typed) is empty.
pub fn milli_text(v: u32) -> String {
    match (v / 1000, v % 1000) {
        _ if v == 0 => String::new(),
        (i, 0) => i.to_string(),
        (i, f) => format!("{i}.{f:03}").trim_end_matches('0').to_string(),
    }
}

/// A positive decimal in `min..=max` thousandths (to three decimals) from URL text.
fn parse_milli(v: &str, min: u32, max: u32) -> Result<u32, String> {
    match v.trim().parse::<f64>() {
        Err(_) => Err("not a number".into()),
        Ok(x) if !x.is_finite() => Err("not a finite number".into()),
        Ok(x) if x <= 0.0 => Err("must be greater than zero".into()),
        Ok(x) => {
            let t = (x * 1000.0).round();
            if t < f64::from(min) || t > f64::from(max) {
                Err(format!(
                    "out of range {} to {}",
                    milli_text(min),
                    milli_text(max)
                ))
            } else {
                // in range and whole, so the conversion is exact
                Ok(t as u32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_choices_are_the_model_links() {
        // every link the control offers is one of model::parallel's, by its id,
        // in its order, after the preset's own
        let ids: Vec<&str> = LinkChoice::ALL.iter().map(|c| c.id()).collect();
        let model: Vec<&str> = crate::model::parallel::LINKS.iter().map(|l| l.id).collect();
        assert_eq!(ids[0], "preset");
        assert_eq!(&ids[1..], &model[..]);
        for c in &LinkChoice::ALL[1..] {
            assert_eq!(c.link("h100-sxm").id, c.id());
        }
        // the preset's own, and PCIe 4.0 where a preset names none
        assert_eq!(LinkChoice::Preset.link("h100-sxm").id, "nvlink4");
        assert_eq!(LinkChoice::Preset.link("m2-max").id, "pcie4");
        let degrees: Vec<u32> = Degree::ALL.iter().map(|d| d.n()).collect();
        assert_eq!(degrees, crate::model::parallel::DEGREES);
    }

    #[test]
    fn keys_unique_and_defaults_valid() {
        for (i, a) in PARAMS.iter().enumerate() {
            for b in &PARAMS[i + 1..] {
                assert_ne!(a.key, b.key);
            }
            let d = a.kind.default();
            assert_eq!(a.clamp(d), d, "{}", a.key);
            // a `Milli` default is "not typed": never written, so never read
            if !matches!(a.kind, WKind::Milli { .. }) {
                assert_eq!(a.parse(&a.format(d)), Ok(d), "{}", a.key);
            }
        }
        let w = Widgets::default();
        assert_eq!(w.fusion_n, 2);
        assert_eq!(w.bert_seq, 512);
        assert!(w.calc_fused && w.calc_flash);
        assert_eq!((w.mb_dtype, w.mb_elems), (Dtype::Fp32, 1 << 28));
    }

    /// The declarations generate today's URL contract: the same keys in the same
    /// order, kinds, ranges, names and defaults (README "URL contract"), and the
    /// README's widget table names every key.
    #[test]
    fn declarations_match_the_url_contract() {
        use WKind::{Flag, Int};
        let int = |min, max, default| Int { min, max, default };
        let flag = |default| Flag { default };
        let choice = |names, default| WKind::Choice { names, default };
        let want: Vec<(&str, WKind)> = vec![
            ("bert_batch", int(1, 512, 8)),
            ("bert_seq", int(8, 4096, 512)),
            ("bert_fused", flag(false)),
            ("fusion_n", int(1, 1024, 2)),
            ("graphs", flag(false)),
            ("compiled", flag(false)),
            ("cpp", flag(false)),
            ("gen_line", choice(&["both", "datacenter", "consumer"], 0)),
            (
                "calc",
                choice(&["matmul", "pointwise", "reduction", "attention"], 0),
            ),
            ("calc_m", int(1, 65536, 4096)),
            ("calc_n", int(1, 65536, 4096)),
            ("calc_k", int(1, 65536, 4096)),
            ("calc_elems", int(1, 1 << 30, 1 << 26)),
            ("calc_ops", int(1, 1024, 4)),
            ("calc_fused", flag(true)),
            ("calc_rows", int(1, 1 << 20, 8192)),
            ("calc_cols", int(1, 1 << 20, 4096)),
            ("calc_norm", choice(&["layernorm", "softmax"], 0)),
            ("calc_batch", int(1, 1024, 8)),
            ("calc_heads", int(1, 256, 16)),
            ("calc_seq", int(1, 131072, 4096)),
            ("calc_hd", int(1, 512, 128)),
            ("calc_flash", flag(true)),
            ("mb_dtype", choice(&["fp32", "tf32", "bf16", "fp8"], 0)),
            ("mb_elems", int(1 << 10, 1 << 30, 1 << 28)),
        ];
        let got: Vec<(&str, WKind)> = PARAMS.iter().map(|p| (p.key, p.kind)).collect();
        assert_eq!(got[..want.len()], want[..]);
        let readme = include_str!("../../README.md");
        let table = readme
            .split("Widget parameters (")
            .nth(1)
            .and_then(|t| t.split("\n\n`embed=").next())
            .unwrap_or("");
        for p in PARAMS {
            assert!(
                table.contains(&format!("`{}`", p.key)),
                "README's widget parameter table lacks `{}`",
                p.key
            );
            // every row's generated field matches the codec's row
            let w = Widgets::default();
            assert_eq!((p.get)(&w), p.kind.default(), "{}", p.key);
        }
        for f in sliders() {
            match param(f.id).map(|p| p.kind) {
                Some(Int { min, max, .. }) => {
                    assert_eq!((f.min, f.max), (f64::from(min), f64::from(max)))
                }
                other => panic!("{}: {other:?}", f.id),
            }
        }
    }

    #[test]
    fn choice_ids_follow_their_variants() {
        fn check<T: Choice + std::fmt::Debug>() {
            assert_eq!(T::ALL.len(), T::IDS.len());
            for (i, v) in T::ALL.iter().enumerate() {
                assert_eq!(v.id(), T::IDS[i]);
                assert_eq!(v.index(), i as u32);
                assert_eq!(T::from_index(i as u32), Some(*v));
                assert_eq!(T::from_id(v.id()), Some(*v));
                assert!(!v.label().is_empty());
            }
            assert_eq!(T::from_index(T::ALL.len() as u32), None);
        }
        check::<Dtype>();
        check::<CalcOp>();
        check::<Norm>();
        check::<GenLine>();
        check::<LlmModel>();
        check::<Phase>();
        check::<WeightDtype>();
        check::<KvDtype>();
        check::<DitModel>();
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
        // a decimal figure in thousandths, to three places
        let bw = param("llm_link_bw").unwrap();
        assert_eq!(bw.parse("900"), Ok(900_000));
        assert_eq!(bw.parse("12.5"), Ok(12_500));
        assert_eq!(bw.format(12_500), "12.5");
        assert_eq!(milli_text(600), "0.6");
        assert_eq!(milli_text(1_000_000), "1000");
        for bad in ["0", "-1", "x", "inf", "200000", "0.01"] {
            assert!(bw.parse(bad).is_err(), "{bad}");
        }
        assert_eq!(bw.clamp(0), 0);
        assert_eq!(bw.clamp(1), 100);
        assert_eq!(param("mb_dtype").unwrap().parse("bf16"), Ok(2));
    }
}
