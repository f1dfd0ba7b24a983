//! How a URL key is declared, read and written: the machinery every widget's
//! state file (`state::widgets::NAME`) declares its keys with.
//!
//! Two kinds of key:
//! - **the explorer's** ([`XParam`]): a number through its control's [`Field`]
//!   (range, units, the slider and the box, so the codec and the control cannot
//!   disagree on a range), or any other value with its own read and write;
//! - **a widget's own** ([`WParam`]): declared by one row of a [`params!`] table
//!   (`field: Kind [range] = default, "url_key", "label";`; a label two widgets
//!   share is a constant, `widgets::common::label`), from which follow the
//!   widget's `Params` field and its type, its default, its URL codec (kind, range,
//!   parse, format) and the control the widget shows (its `field` module: a slider
//!   [`Field`], a [`FlagField`] or a [`ChoiceField`] with its label). Choices are
//!   typed enums declared with [`choice_enum!`] (or [`model_choice!`] for a model
//!   enum), whose variants carry their URL ids and labels.
//!
//! Keys and defaults are part of the public URL contract (docs/contract.md, generated from these rows); a widget key is
//! written only when its value differs from its default, so links stay short.

use super::fields::Field;
use crate::model::Dtype;
use crate::state::data::State;

pub use super::parse::parse_int;

// ---------------------------------------------------------------------------
// The explorer's keys
// ---------------------------------------------------------------------------

/// The other keys of the query, for a key whose reading depends on them.
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;
/// Sets the state from a value; `Err` is the notice's reason.
pub type Read = fn(&mut State, &str, Lookup) -> Result<(), String>;

/// One explorer key.
#[derive(Clone, Copy)]
pub struct XParam {
    pub key: &'static str,
    pub kind: XKind,
    /// What docs/contract.md says of it (native builds only: the page never
    /// shows it, so its text stays out of the .wasm).
    #[cfg(not(target_arch = "wasm32"))]
    pub doc: XDoc,
}

/// An explorer key's entry in the URL contract: what it means, the values it
/// takes and its default, in words. An empty `accepted` or `default` is
/// written from the code (a number's range; the default state's URL value).
#[derive(Clone, Copy, Debug)]
pub struct XDoc {
    pub meaning: &'static str,
    pub accepted: &'static str,
    pub default: &'static str,
}

/// How a key is read and written.
#[derive(Clone, Copy)]
pub enum XKind {
    /// A number, through its control: parsed as `Field::integer` says, checked
    /// against the field's range, always written.
    Number(Field),
    /// Anything else: `read` sets the state from a value (it may look at the other
    /// keys of the query through `get`), `write` gives the URL text, or `None` to
    /// leave the key out.
    Other {
        read: Read,
        write: fn(&State) -> Option<String>,
    },
}

/// A numeric explorer key: its control's field.
#[allow(unused_variables)]
pub const fn number(f: Field, doc: XDoc) -> XParam {
    XParam {
        key: f.id,
        kind: XKind::Number(f),
        #[cfg(not(target_arch = "wasm32"))]
        doc,
    }
}

/// Any other explorer key.
#[allow(unused_variables)]
pub const fn other(
    key: &'static str,
    read: Read,
    write: fn(&State) -> Option<String>,
    doc: XDoc,
) -> XParam {
    XParam {
        key,
        kind: XKind::Other { read, write },
        #[cfg(not(target_arch = "wasm32"))]
        doc,
    }
}

impl XParam {
    /// Read a URL value into `s`; on `Err` (the notice's reason) `s` is unchanged.
    pub fn read(&self, s: &mut State, v: &str, get: Lookup) -> Result<(), String> {
        match self.kind {
            XKind::Number(f) if f.integer => {
                let x = parse_int(v, f.min as u32, f.max as u32)?;
                (f.set)(s, f64::from(x));
                Ok(())
            }
            XKind::Number(f) => {
                let x = parse_float(v, f.min, f.max)?;
                (f.set)(s, x);
                Ok(())
            }
            XKind::Other { read, .. } => read(s, v, get),
        }
    }

    /// The URL text for `s`, or `None` where the key is left out.
    pub fn write(&self, s: &State) -> Option<String> {
        match self.kind {
            XKind::Number(f) if f.integer => Some(((f.get)(s) as u32).to_string()),
            XKind::Number(f) => Some(format!("{:e}", (f.get)(s))),
            XKind::Other { write, .. } => write(s),
        }
    }
}

/// A positive finite number in `min..=max` from URL text.
fn parse_float(v: &str, min: f64, max: f64) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Err(_) => Err("not a number".into()),
        Ok(x) if !x.is_finite() => Err("not a finite number".into()),
        Ok(x) if x <= 0.0 => Err("must be greater than zero".into()),
        Ok(x) if x < min || x > max => Err(format!("out of range {min:e} to {max:e}")),
        Ok(x) => Ok(x),
    }
}

// ---------------------------------------------------------------------------
// A widget's own keys
// ---------------------------------------------------------------------------

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
    /// The preset dtype this value needs (the llm widget's fp8 weights and
    /// cache need fp8), checked by the one dtype rule, `Preset::check`: the
    /// codec refuses it on a GPU without it, a GPU change falls back from it and
    /// the select greys it out ([`WParam::check`]). `None`: runs anywhere.
    fn needs(self) -> Option<Dtype> {
        None
    }
}

/// A fieldless enum implementing [`Choice`]: `Variant = "url-id" "label"`.
macro_rules! choice_enum {
    ($(#[$m:meta])* pub enum $name:ident { $($(#[$vm:meta])* $var:ident = $id:literal $label:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($(#[$vm])* $var,)* }
        impl $crate::state::params::Choice for $name {
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
pub(crate) use choice_enum;

/// A model enum as a choice: its variants and URL ids are the model's (`ALL`
/// order = the model's `IDS` order, tested), its labels are the control's.
macro_rules! model_choice {
    ($t:ident { $($var:ident = $label:literal,)* } $(needs $needs:path)?) => {
        impl $crate::state::params::Choice for $t {
            const ALL: &'static [Self] = &[$($t::$var,)*];
            const IDS: &'static [&'static str] = &$t::IDS;
            fn id(self) -> &'static str {
                $t::id(self)
            }
            fn label(self) -> &'static str {
                match self { $($t::$var => $label,)* }
            }
            $(fn needs(self) -> Option<$crate::model::Dtype> {
                $needs(self)
            })?
        }
    };
}
pub(crate) use model_choice;

/// The model's dtypes as a choice, by their ids (the microbenchmark's `mb_dtype`).
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
    /// A decimal figure that replaces one from elsewhere (`widgets::common`'s
    /// typed link figures): kept in thousandths of its URL unit, `min..=max`; the
    /// default 0 is "not typed" (never written; a typed 0 is refused).
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

/// One widget parameter as the URL codec sees it: values as `u32` (a flag 0/1, a
/// choice its index).
#[derive(Clone, Copy)]
pub struct WParam {
    pub key: &'static str,
    pub kind: WKind,
    pub get: fn(&State) -> u32,
    pub set: fn(&mut State, u32),
    /// The preset dtype a value needs ([`Choice::needs`]; `None` for most).
    pub needs: fn(u32) -> Option<Dtype>,
    /// What docs/contract.md says of it: its control's label and its row's doc
    /// comment (native builds only: the text stays out of the .wasm).
    #[cfg(not(target_arch = "wasm32"))]
    pub doc: WDoc,
}

/// A widget key's entry in the URL contract, from its `params!` row: the
/// control's label and the row's `///` lines (the range and default are the
/// row's own, written by the generator).
#[derive(Clone, Copy, Debug)]
pub struct WDoc {
    pub label: &'static str,
    pub lines: &'static [&'static str],
}

impl WDoc {
    /// The meaning as one line: the label, then the row's doc comment.
    pub fn text(&self) -> String {
        let more = self
            .lines
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ");
        if more.is_empty() {
            self.label.to_string()
        } else {
            format!("{}. {more}", self.label)
        }
    }
}

impl WParam {
    /// THE dtype rule for a widget's value: `Err` (the reason, "Apple M2 Max
    /// has no fp8 mode") where it needs a dtype the state's GPU lacks.
    /// Then the rule between keys ([`crate::state::data::exclusive`]).
    pub fn check(&self, s: &State, v: u32) -> Result<(), String> {
        if let Some(d) = (self.needs)(v) {
            s.setting.hw.check(d)?;
        }
        crate::state::data::exclusive(s, self.key, v)
    }

    /// Its default value.
    pub fn default_value(&self) -> u32 {
        match self.kind {
            WKind::Int { default, .. } => default,
            WKind::Flag { default } => u32::from(default),
            WKind::Choice { default, .. } => default,
            WKind::Milli { .. } => 0,
        }
    }

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
            WKind::Int { min, max, .. } => parse_int(v, min, max),
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
        $crate::state::params::WKind::Int {
            min: $min,
            max: $max,
            default: $d,
        }
    };
    (Flag [] [] $d:expr) => {
        $crate::state::params::WKind::Flag { default: $d }
    };
    (Milli [] [$min:expr, $max:expr] $d:expr) => {
        $crate::state::params::WKind::Milli {
            min: $min,
            max: $max,
        }
    };
    (Choice [$t:ty] [] $d:expr) => {
        $crate::state::params::WKind::Choice {
            names: <$t as $crate::state::params::Choice>::IDS,
            default: $d as u32,
        }
    };
}
macro_rules! param_needs {
    (Choice [$t:ty]) => {
        |v| {
            <$t as $crate::state::params::Choice>::from_index(v)
                .and_then($crate::state::params::Choice::needs)
        }
    };
    ($kind:ident []) => {
        |_| None
    };
}
macro_rules! param_get {
    (Int $v:expr) => {
        $v
    };
    (Milli $v:expr) => {
        $v
    };
    (Flag $v:expr) => {
        u32::from($v)
    };
    (Choice $v:expr) => {
        $crate::state::params::Choice::index($v)
    };
}
macro_rules! param_set {
    (Int [] $place:expr, $v:ident) => {
        $place = $v
    };
    (Milli [] $place:expr, $v:ident) => {
        $place = $v
    };
    (Flag [] $place:expr, $v:ident) => {
        $place = $v != 0
    };
    (Choice [$t:ty] $place:expr, $v:ident) => {
        if let Some(x) = <$t as $crate::state::params::Choice>::from_index($v) {
            $place = x;
        }
    };
}
macro_rules! param_field {
    (Int [] [$min:expr, $max:expr] $w:ident $f:ident $key:literal $label:expr) => {
        pub const $f: $crate::state::fields::Field = $crate::state::fields::Field {
            id: $key,
            label: $label,
            box_unit: "",
            base_unit: "",
            scale: 1.0,
            min: $min as f64,
            max: $max as f64,
            integer: true,
            get: |s| f64::from(s.widgets.$w.$f),
            set: |s, v| s.widgets.$w.$f = $crate::state::fields::to_u32(v),
        };
    };
    (Flag [] [] $w:ident $f:ident $key:literal $label:expr) => {
        pub const $f: $crate::state::params::FlagField = $crate::state::params::FlagField {
            id: $key,
            label: $label,
            get: |s| s.widgets.$w.$f,
            set: |s, v| s.widgets.$w.$f = v,
        };
    };
    (Choice [$t:ty] [] $w:ident $f:ident $key:literal $label:expr) => {
        pub const $f: $crate::state::params::ChoiceField<$t> = $crate::state::params::ChoiceField {
            id: $key,
            label: $label,
            get: |s| s.widgets.$w.$f,
            set: |s, v| s.widgets.$w.$f = v,
        };
    };
    // its control shows the figure it replaces: `widgets::common`'s link boxes
    (Milli [] [$min:expr, $max:expr] $w:ident $f:ident $key:literal $label:expr) => {};
}
macro_rules! param_slider {
    (Int $v:ident $f:ident) => {
        $v.push(field::$f)
    };
    ($kind:ident $v:ident $f:ident) => {};
}
pub(crate) use {
    param_field, param_get, param_kind, param_needs, param_set, param_slider, param_ty,
};

/// A widget's parameter table, in its state file: one row per parameter,
/// `field: Kind [range] = default, "url_key", "label";`, under `in NAME`, the
/// widget's file name (its part of `state::Widgets`). It declares:
/// - `Params`, the widget's own controls (one field per row) with their defaults;
/// - `PARAMS`, its URL keys in URL order, for its `Spec`;
/// - `field::NAME`, each row as the control its view shows;
/// - `sliders()`, its integer rows' slider fields (tests run over every control).
///
/// A row's `///` lines are its meaning in the URL contract (docs/contract.md,
/// generated from these rows), after its label.
macro_rules! params {
    (in $w:ident; $($(#[doc = $doc:literal])* $f:ident: $kind:ident $(<$t:ty>)? $([$min:expr, $max:expr])? = $d:expr, $key:literal, $label:expr;)*) => {
        /// The widget's own controls, one field per URL parameter.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Params {
            $($(#[doc = $doc])* pub $f: $crate::state::params::param_ty!($kind $($t)?),)*
        }

        impl Default for Params {
            fn default() -> Self {
                Params { $($f: $d,)* }
            }
        }

        /// The widget's URL parameters, in URL order. Keys are stable.
        pub const PARAMS: &[$crate::state::params::WParam] = &[$(
            $crate::state::params::WParam {
                key: $key,
                kind: $crate::state::params::param_kind!($kind [$($t)?] [$($min, $max)?] $d),
                get: |s| $crate::state::params::param_get!($kind s.widgets.$w.$f),
                set: |s, v| { $crate::state::params::param_set!($kind [$($t)?] s.widgets.$w.$f, v) },
                needs: $crate::state::params::param_needs!($kind [$($t)?]),
                #[cfg(not(target_arch = "wasm32"))]
                doc: $crate::state::params::WDoc { label: $label, lines: &[$($doc,)*] },
            },
        )*];

        /// The integer parameters' slider fields (tests run over every control).
        #[allow(clippy::vec_init_then_push, unused_mut)]
        pub fn sliders() -> Vec<$crate::state::fields::Field> {
            let mut v = Vec::new();
            $($crate::state::params::param_slider!($kind v $f);)*
            v
        }

        /// Each parameter as the control the widget shows, named after its field.
        #[allow(non_upper_case_globals, unused_imports)]
        pub mod field {
            use super::*;
            $($crate::state::params::param_field!($kind [$($t)?] [$($min, $max)?] $w $f $key $label);)*
        }
    };
}
pub(crate) use params;

#[cfg(test)]
mod tests {
    use super::*;

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
        // every choice a widget declares, through its rows' names
        for p in crate::state::registry::params() {
            if let WKind::Choice { names, default } = p.kind {
                assert!((default as usize) < names.len(), "{}", p.key);
                for (i, n) in names.iter().enumerate() {
                    assert_eq!(p.parse(n), Ok(i as u32), "{}={n}", p.key);
                    assert_eq!(p.format(i as u32), *n, "{}", p.key);
                }
            }
        }
    }

    #[test]
    fn milli_figures() {
        assert_eq!(milli_text(600), "0.6");
        assert_eq!(milli_text(1_000_000), "1000");
        assert_eq!(milli_text(0), "");
        assert_eq!(parse_milli("12.5", 100, 100_000_000), Ok(12_500));
        for bad in ["0", "-1", "x", "inf", "200000", "0.01"] {
            assert!(parse_milli(bad, 100, 100_000_000).is_err(), "{bad}");
        }
    }
}
