//! The explorer's URL keys, ONE DECLARATION EACH: a row of [`EXPLORER`] gives the
//! key, how a value is read into the [`State`] (a bad one → the reason for its
//! notice) and how the state writes it. A number is its control's [`Field`]
//! (`fields.rs`: range, units, the slider and the box), so the codec and the
//! control cannot disagree on a range. `url::decode`/`encode` and `url::KEYS` run
//! over this table, as they run over the widgets' `params!` table
//! (`widgets::PARAMS`); adding an explorer key is one row here plus its control
//! (and its README row: tests/url_contract.rs checks both ways).
//!
//! Rows are in URL order, which is also the order they are read in: `hw` first
//! (it picks the preset every later default comes from), `dtype` before `flops`
//! (whose default is the preset's peak in that dtype).

use super::fields::{self, Field};
use super::parse::{gpu_name, parse_int};
use super::{preset_flops, State};
use crate::model::achievable::Roof;
use crate::model::{hardware, Dtype, Workload};

/// The other keys of the query, for a key whose reading depends on them.
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;
/// Sets the state from a value; `Err` is the notice's reason.
pub type Read = fn(&mut State, &str, Lookup) -> Result<(), String>;

/// One explorer key.
#[derive(Clone, Copy)]
pub struct XParam {
    pub key: &'static str,
    pub kind: XKind,
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

/// Every explorer key, in URL order. Keys are stable (README "URL contract").
pub const EXPLORER: &[XParam] = &[
    other("hw", read_hw, |s| Some(s.hw.id.into())),
    other("dtype", read_dtype, |s| Some(s.dtype.id().into())),
    number(fields::FLOPS),
    number(fields::BW),
    number(fields::BATCH),
    number(fields::HIDDEN),
    other("workload", read_workload, |s| Some(s.workload.id().into())),
    number(fields::OPS),
    other("fused", read_fused, |s| {
        Some(if s.fused { "1" } else { "0" }.into())
    }),
    number(fields::OVERHEAD),
    // written only when not the default, so older links read the same
    other("roof", read_roof, |s| {
        (s.roof != Roof::Datasheet).then(|| s.roof.id().into())
    }),
    // only with a measured GPU
    other("gpu", read_gpu, |s| {
        (s.hw.is_measured() && !s.gpu_name.is_empty()).then(|| s.gpu_name.clone())
    }),
];

const fn number(f: Field) -> XParam {
    XParam {
        key: f.id,
        kind: XKind::Number(f),
    }
}

const fn other(key: &'static str, read: Read, write: fn(&State) -> Option<String>) -> XParam {
    XParam {
        key,
        kind: XKind::Other { read, write },
    }
}

/// The explorer's keys, in URL order.
pub const KEYS: [&str; EXPLORER.len()] = {
    let mut k = [""; EXPLORER.len()];
    let mut i = 0;
    while i < EXPLORER.len() {
        k[i] = EXPLORER[i].key;
        i += 1;
    }
    k
};

pub fn param(key: &str) -> Option<&'static XParam> {
    EXPLORER.iter().find(|p| p.key == key)
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

fn read_hw(s: &mut State, v: &str, get: Lookup) -> Result<(), String> {
    match hardware::preset(v) {
        // a measured GPU is only its numbers: without them there is nothing to show
        Some(p) if p.is_measured() && (get("flops").is_none() || get("bw").is_none()) => {
            Err("a measured GPU needs its measured flops= and bw= in the link".into())
        }
        Some(p) => {
            *s = State::for_preset(p);
            Ok(())
        }
        None => Err("unknown hardware preset".into()),
    }
}

fn read_dtype(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    match Dtype::from_id(v) {
        Some(d) if s.hw.supports(d) => {
            s.select_dtype(d);
            // the preset's peak in that dtype, unless `flops` says otherwise
            s.flops = preset_flops(s.hw, s.dtype);
            Ok(())
        }
        Some(_) => Err(format!("{} has no {v} mode", s.hw.name)),
        None => Err("unknown dtype (fp32, tf32, bf16, fp8)".into()),
    }
}

fn read_workload(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    s.workload = Workload::from_id(v).ok_or("must be mlp or chain")?;
    Ok(())
}

fn read_fused(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    s.fused = match v {
        "1" => true,
        "0" => false,
        _ => return Err("must be 1 or 0".into()),
    };
    Ok(())
}

fn read_roof(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    s.roof = Roof::from_id(v).ok_or("must be datasheet or achievable")?;
    Ok(())
}

fn read_gpu(s: &mut State, v: &str, _: Lookup) -> Result<(), String> {
    if !s.hw.is_measured() {
        return Err("only used with hw=measured".into());
    }
    s.gpu_name = gpu_name(v);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_never_a_widget_key() {
        for (i, k) in KEYS.iter().enumerate() {
            assert!(!KEYS[..i].contains(k), "{k} twice");
            assert!(
                super::super::widgets::param(k).is_none(),
                "{k} is also a widget key"
            );
        }
    }

    #[test]
    fn every_number_row_is_its_controls_range() {
        for p in EXPLORER {
            if let XKind::Number(f) = p.kind {
                assert_eq!(p.key, f.id);
                let s = State::default();
                // the default is inside the range, and reads back as itself
                let v = p.write(&s).unwrap_or_default();
                let mut t = State::default();
                assert_eq!(p.read(&mut t, &v, &|_| None), Ok(()), "{}={v}", p.key);
                assert_eq!((f.get)(&t), (f.get)(&s), "{}", p.key);
                // just outside either end is refused
                for x in [f.min / 2.0, f.max * 2.0] {
                    let v = if f.integer {
                        format!("{}", x.floor().max(0.0))
                    } else {
                        format!("{x:e}")
                    };
                    if f.integer && x < 1.0 {
                        continue; // "0" is refused as "must be greater than zero", also a refusal
                    }
                    assert!(
                        p.read(&mut t, &v, &|_| None).is_err(),
                        "{}={v} accepted",
                        p.key
                    );
                }
            }
        }
    }
}
